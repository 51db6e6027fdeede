/**
 * Sessions started outside svc (issue 39, D33), with the real CLIs against
 * the fake provider: per built-in, a conversation started by running the
 * CLI directly in a project (its home pointed at a temp dir, as a user's
 * terminal would be) is listed by `GET /sessions/discover`, adopted with
 * `POST /sessions/adopt` (its transcript imported, then resumed natively),
 * and continued: the provider's next request carries the direct turn.
 * Run with `deno test -A tests/real_agents/adopt_test.ts`.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { agentsDir, HARNESSES } from "../../scripts/agents_install.ts";
import { SvcClient } from "../../src/client/client.ts";
import { removeTree, tempHome } from "../helpers/home.ts";
import { startServe } from "../helpers/process.ts";
import type { Harness } from "./agent_bins.ts";
import { AGENT_MODELS, prepareAgentEnv } from "./agent_env.ts";
import { requireAgent, runAgentTests } from "./agents_gate.ts";
import { conversationTexts, startFakeProvider } from "./fake_provider.ts";

type Json = Record<string, unknown>;

/** Each CLI's own one-shot mode, as a user runs it in a terminal (not through svc). */
const DIRECT_ARGV: Readonly<Record<Harness, (prompt: string) => string[]>> = {
  claude: (prompt) => ["claude", "-p", prompt],
  codex: (prompt) => ["codex", "exec", "--skip-git-repo-check", prompt],
  gemini: (prompt) => ["gemini", "--skip-trust", "--model", AGENT_MODELS.gemini, "-p", prompt],
  opencode: (prompt) => ["opencode", "run", prompt],
};

/** Gemini CLI 0.61 loses a session loaded in the UTC minute its recording started. */
async function crossMinute(at: string): Promise<void> {
  const next = (Math.floor(Date.parse(at) / 60_000) + 1) * 60_000;
  const wait = next - Date.now() + 500;
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
}

async function poll<T>(what: string, attempt: () => Promise<T | null>): Promise<T> {
  const until = Date.now() + 90_000;
  for (;;) {
    const value = await attempt();
    if (value !== null) return value;
    if (Date.now() > until) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const options = { ignore: !runAgentTests, sanitizeOps: false, sanitizeResources: false };

for (const cli of HARNESSES) {
  Deno.test(
    {
      name: `${cli}: a conversation started outside svc is discovered and adopted (D33)`,
      ...options,
    },
    async () => {
      requireAgent(cli);
      const provider = await startFakeProvider();
      const envDir = join(agentsDir(), "homes", crypto.randomUUID());
      await Deno.mkdir(envDir, { recursive: true });
      const env = await prepareAgentEnv(cli, { providerUrl: provider.url, dir: envDir });
      const home = await tempHome();
      await Deno.writeTextFile(join(home, "config.json"), JSON.stringify({}));
      const project = await Deno.realPath(await tempHome());
      const serve = { current: null as Awaited<ReturnType<typeof startServe>> | null };
      try {
        // The user's own terminal: the CLI run directly, one turn.
        provider.script([{ text: "Answer direct 1" }]);
        const [program, ...args] = DIRECT_ARGV[cli]("first direct");
        const direct = await new Deno.Command(program, {
          args,
          env,
          clearEnv: true,
          cwd: project,
          stdin: "null",
          stdout: "piped",
          stderr: "piped",
        }).output();
        const stderr = new TextDecoder().decode(direct.stderr);
        assert.equal(direct.code, 0, stderr);
        assert.match(new TextDecoder().decode(direct.stdout), /Answer direct 1/);
        provider.clearScript();

        serve.current = await startServe(home, [], env);
        const client = new SvcClient({ socketPath: join(home, "svc.sock") });
        try {
          const listed = await client.get<{ sessions: Json[]; unavailable: Json[] }>(
            `/sessions/discover?${new URLSearchParams({ harness: cli, cwd: project })}`,
          );
          assert.equal(listed.status, 200, JSON.stringify(listed.body));
          assert.equal(listed.body.sessions.length, 1, JSON.stringify(listed.body));
          const [found] = listed.body.sessions;
          assert.equal(found.harness, cli);
          assert.equal(found.cwd, project);
          assert.ok(typeof found.title === "string" && found.title !== "", JSON.stringify(found));
          assert.ok(typeof found.lastActivityAt === "string", JSON.stringify(found));
          if (cli !== "opencode") assert.match(found.title as string, /first direct/);

          if (cli === "gemini") await crossMinute(found.lastActivityAt as string);
          const adopted = await client.post<Json>("/sessions/adopt", {
            harness: cli,
            agentSessionId: found.agentSessionId,
            ...(cli === "gemini" ? { model: AGENT_MODELS.gemini } : {}),
          });
          assert.equal(adopted.status, 201, JSON.stringify(adopted.body));
          assert.equal(adopted.body.status, "running");
          assert.equal(adopted.body.agent_session_id, found.agentSessionId);
          const id = adopted.body.id as string;

          // The next turn, through svc: the agent reloaded the direct conversation.
          provider.script([{ text: "Answer adopted 2" }]);
          const from = provider.requests.length;
          const input = await client.post<Json>(`/sessions/${id}/input`, {
            data: "second adopted",
          });
          assert.equal(input.status, 200, JSON.stringify(input.body));
          const events = await poll("the adopted turn", async () => {
            const page = await client.get<{ events: Json[] }>(`/sessions/${id}/events`);
            const all = page.body.events.map((e) => ({
              kind: e.kind as string,
              payload: JSON.parse(e.payload_json as string) as Json,
            }));
            return all.some((e) => e.kind === "agent.turn") ? all : null;
          });
          const turn = events.find((e) => e.kind === "agent.turn")!;
          assert.equal(turn.payload.status, "completed", JSON.stringify(turn.payload));
          assert.equal(turn.payload.result, "Answer adopted 2");

          const request = provider.requests.slice(from).filter((r) => !r.side).at(-1)!;
          const history = conversationTexts(request).join("\n");
          for (const text of ["first direct", "Answer direct 1", "second adopted"]) {
            assert.ok(history.includes(text), `"${text}" carried:\n${history}`);
          }

          assert.equal(events[0].kind, "session.adopted");
          assert.equal(events[0].payload.agentSessionId, found.agentSessionId);
          assert.equal(events[0].payload.transcript, "read");
          const imported = events.filter((e) => e.payload.imported === true)
            .map((e) => `${e.payload.role}: ${e.payload.text}`);
          assert.deepEqual(imported.length, 2, JSON.stringify(imported));
          assert.match(imported[0], /^user: .*first direct/);
          assert.equal(imported[1], "assistant: Answer direct 1");
          const seam = events.findIndex((e) => e.kind === "session.resumed");
          assert.equal(seam, 3, "the resume follows the imported history");
          const live = events.filter((e) => e.kind === "agent.message" && !e.payload.imported)
            .map((e) => `${e.payload.role}: ${e.payload.text}`);
          assert.deepEqual(live, ["user: second adopted", "assistant: Answer adopted 2"]);

          await client.post(`/sessions/${id}/close`, {});
          await poll("the end", async () => {
            const record = await client.get<Json>(`/sessions/${id}`);
            return record.body.status === "running" ? null : record.body;
          });
        } finally {
          client.close();
        }
        const status = await serve.current.stop("SIGTERM");
        assert.equal(status.code, 0, serve.current.stderr());
        serve.current = null;
      } catch (error) {
        // The daemon's log first: a failure's cause is often only there.
        console.error(serve.current?.stderr().slice(-6000));
        throw error;
      } finally {
        if (serve.current) await serve.current.stop("SIGKILL").catch(() => {});
        await provider.close();
        await removeTree(home);
        await removeTree(project);
        await removeTree(envDir);
      }
    },
  );
}
