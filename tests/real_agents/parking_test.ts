/**
 * A real claude session parks on a subscription's usage limit and resumes
 * by itself when it lifts (issue 39, D33). The pinned CLI, logged in by
 * OAuth as a subscription is, talks to the fake provider, which answers one
 * request with Anthropic's 429 (the recorded unified rate-limit headers); the
 * daemon runs in-process with a FakeClock, so the timer fires when the test
 * moves the clock past `parkedUntil` plus the 60 s jitter. Run with
 * `deno test -A tests/real_agents/parking_test.ts`.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { agentsDir } from "../../scripts/agents_install.ts";
import { systemProber } from "../../src/sessions/harness_probe.ts";
import { FakeClock } from "../fakes/clock.ts";
import { startTestDaemon, waitForEnd } from "../helpers/daemon.ts";
import { removeTree, tempHome } from "../helpers/home.ts";
import { waitForKind } from "../helpers/scripted_agent.ts";
import { prepareAgentEnv } from "./agent_env.ts";
import { requireAgent, runAgentTests } from "./agents_gate.ts";
import { anthropicUsageLimit, conversationTexts, startFakeProvider } from "./fake_provider.ts";

type Json = Record<string, unknown>;
// deno-lint-ignore no-explicit-any
type Any = any;

const options = { ignore: !runAgentTests, sanitizeOps: false, sanitizeResources: false };

/** Sets the test process's environment (the in-process daemon's children inherit it); undoes it. */
function useEnv(env: Record<string, string | undefined>): () => void {
  const saved = Object.fromEntries(Object.keys(env).map((key) => [key, Deno.env.get(key)]));
  const apply = (values: Record<string, string | undefined>) => {
    for (const [key, value] of Object.entries(values)) {
      if (value === undefined) Deno.env.delete(key);
      else Deno.env.set(key, value);
    }
  };
  apply(env);
  return () => apply(saved);
}

Deno.test(
  {
    name: "claude: a usage limit parks the session; autoResume re-sends the turn (D33)",
    ...options,
  },
  async () => {
    requireAgent("claude");
    await using provider = await startFakeProvider();
    const envDir = join(agentsDir(), "homes", crypto.randomUUID());
    await Deno.mkdir(envDir, { recursive: true });
    const agentEnv = await prepareAgentEnv("claude", { providerUrl: provider.url, dir: envDir });
    // A subscription's login, as recorded: claude then reports the reset time and does not retry.
    const restoreEnv = useEnv({
      ...agentEnv,
      ANTHROPIC_API_KEY: undefined,
      CLAUDE_CODE_OAUTH_TOKEN: "sk-ant-oat01-fake",
    });
    const home = await tempHome();
    const project = await Deno.realPath(await tempHome());
    try {
      const clock = new FakeClock(Date.now());
      const resetS = Math.floor(clock.now() / 1000) + 3600;
      await using t = await startTestDaemon({
        home,
        clock,
        random: () => 0.5,
        prober: systemProber(),
        configJson: { autoResume: { enabled: true } },
      });
      provider.script([{ text: "first answer" }, anthropicUsageLimit(resetS)]);
      const launched = await t.client.post<Json>("/sessions", {
        projectRoot: project,
        harness: "claude",
        prompt: "first question",
      });
      assert.equal(launched.status, 201, JSON.stringify(launched.body));
      const id = launched.body.id as string;
      const [first] = await waitForKind(t, id, "agent.turn", 1);
      assert.equal(first.status, "completed", JSON.stringify(first));
      const input = await t.client.post<Json>(`/sessions/${id}/input`, { data: "second question" });
      assert.ok(input.status < 300, JSON.stringify(input.body));

      const ended = await waitForEnd(t.client, id, 60_000) as Any;
      assert.equal(ended.status, "parked", JSON.stringify(ended));
      assert.deepEqual(ended.parked, {
        until: new Date(resetS * 1000).toISOString(),
        reason: "usage_limit",
        autoResume: {
          state: "waiting",
          at: new Date(resetS * 1000 + 30_000).toISOString(),
          note: null,
        },
      });
      const limited = provider.requests.filter((request) => !request.side).length;

      provider.script([{ text: "second answer" }]);
      await clock.advance(resetS * 1000 + 60_000 + 1 - clock.now());
      const resent = await provider.waitForRequest(
        (request) => !request.side && request.index >= limited,
        60_000,
      );
      const texts = conversationTexts(resent);
      // claude's own transcript keeps the turn the limit failed; svc sends it again after it.
      assert.deepEqual(
        texts.filter((text) => !text.startsWith("<system-reminder>")).map((text) => text.trim()),
        ["first question", "first answer", "second question", "second question"],
        JSON.stringify(texts),
      );
      assert.equal(texts.at(-1), "second question", "the re-sent turn is the last, exactly");
      const turns = await waitForKind(t, id, "agent.turn", 3);
      assert.equal(turns[2].status, "completed", JSON.stringify(turns[2]));
      assert.equal(turns[2].result, "second answer");
      const [unparked] = await waitForKind(t, id, "session.unparked", 1);
      assert.deepEqual(unparked, { by: "timer", turns: 1 });
      const record = (await t.client.get<Any>(`/sessions/${id}`)).body;
      assert.equal(record.parked, null);
      assert.equal(record.resumes, 1);
      await t.client.post(`/sessions/${id}/close`, {});
      await waitForEnd(t.client, id, 30_000);
    } finally {
      restoreEnv();
      await removeTree(home);
      await removeTree(project);
      await removeTree(envDir);
    }
  },
);
