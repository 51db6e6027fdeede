/**
 * Conversations that outlive their process (issue 23, D26), with the real
 * CLIs against the fake provider: per built-in, three conversations of two
 * turns end three ways — `/close`, `svc stop` (SIGTERM to the daemon) and
 * `kill -9` of the daemon while idle — and each is resumed by a later daemon
 * on the same home for a third turn. The provider's third request must carry
 * the first two turns (the agent really reloaded its history), the svc log
 * must be gap-free across the seam, and usage must be the sum.
 * Run with `deno test -A tests/real_agents/resume_test.ts`.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { agentsDir, HARNESSES } from "../../scripts/agents_install.ts";
import { SvcClient } from "../../src/client/client.ts";
import { removeTree, tempHome } from "../helpers/home.ts";
import { type ServeProcess, startServe } from "../helpers/process.ts";
import type { Harness } from "./agent_bins.ts";
import { AGENT_MODELS, prepareAgentEnv } from "./agent_env.ts";
import { requireAgent, runAgentTests } from "./agents_gate.ts";
import { conversationTexts, type FakeProvider, startFakeProvider } from "./fake_provider.ts";

type Json = Record<string, unknown>;

/** How each conversation's first process ends. */
const ENDINGS = ["close", "stop", "kill9"] as const;
type Ending = typeof ENDINGS[number];

const PREVIOUS_STATUS: Record<Ending, string> = {
  close: "completed",
  stop: "killed",
  kill9: "orphaned",
};

interface Conversation {
  ending: Ending;
  id: string;
  /** Indexes of the provider requests this conversation made. */
  requests: number[];
}

class Rig {
  serve: ServeProcess | null = null;
  client: SvcClient | null = null;

  constructor(
    readonly cli: Harness,
    readonly provider: FakeProvider,
    readonly home: string,
    readonly project: string,
    readonly env: Record<string, string>,
  ) {}

  async start(): Promise<SvcClient> {
    this.serve = await startServe(this.home, [], this.env);
    this.client = new SvcClient({ socketPath: join(this.home, "svc.sock") });
    return this.client;
  }

  async stop(signal: "SIGTERM" | "SIGKILL"): Promise<void> {
    this.client?.close();
    const status = await this.serve!.stop(signal);
    if (signal === "SIGTERM") assert.equal(status.code, 0, this.serve!.stderr());
    this.serve = null;
  }

  async poll<T>(what: string, attempt: () => Promise<T | null>): Promise<T> {
    const until = Date.now() + 90_000;
    for (;;) {
      const value = await attempt();
      if (value !== null) return value;
      if (Date.now() > until) {
        throw new Error(`Timed out waiting for ${what}\n${this.serve?.stderr().slice(-4000)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async events(id: string): Promise<Array<{ seq: number; kind: string; payload: Json }>> {
    const page = await this.client!.get<{ events: Json[] }>(`/sessions/${id}/events`);
    return page.body.events.map((event) => ({
      seq: event.seq as number,
      kind: event.kind as string,
      payload: JSON.parse(event.payload_json as string),
    }));
  }

  turns(id: string, count: number): Promise<Json[]> {
    return this.poll(`${count} turns of ${id}`, async () => {
      const turns = (await this.events(id)).filter((event) => event.kind === "agent.turn");
      return turns.length >= count ? turns.map((turn) => turn.payload) : null;
    });
  }

  record(id: string): Promise<Json> {
    return this.client!.get<Json>(`/sessions/${id}`).then((response) => response.body);
  }

  ended(id: string): Promise<Json> {
    return this.poll(`the end of ${id}`, async () => {
      const record = await this.record(id);
      return record.status === "running" ? null : record;
    });
  }

  /** Sends one turn (the first as the launch prompt) and waits for it; notes its requests. */
  async turn(conversation: Conversation, text: string, answer: string, count: number) {
    this.provider.script([{ text: answer }]);
    const from = this.provider.requests.length;
    if (count === 1) {
      const response = await this.client!.post<Json>("/sessions", {
        projectRoot: this.project,
        harness: this.cli,
        prompt: text,
        ...(this.cli === "gemini" ? { model: AGENT_MODELS.gemini } : {}),
      });
      assert.equal(response.status, 201, JSON.stringify(response.body));
      conversation.id = response.body.id as string;
    } else {
      const input = await this.client!.post<Json>(`/sessions/${conversation.id}/input`, {
        data: text,
      });
      assert.equal(input.status, 200, JSON.stringify(input.body));
    }
    const [last] = (await this.turns(conversation.id, count)).slice(count - 1);
    assert.equal(last.status, "completed", JSON.stringify(last));
    assert.equal(last.result, answer);
    for (const request of this.provider.requests.slice(from)) {
      if (!request.side) conversation.requests.push(request.index);
    }
    this.provider.clearScript();
  }
}

/** Every input token, cached ones included (D22), and output tokens, of `requests`. */
function expectedUsage(provider: FakeProvider, requests: number[]) {
  const reports = provider.usageReported.filter((report) => requests.includes(report.request));
  return {
    inputTokens: reports.reduce(
      (sum, r) => sum + r.inputTokens + (r.api === "anthropic" ? r.cachedInputTokens : 0),
      0,
    ),
    outputTokens: reports.reduce((sum, r) => sum + r.outputTokens, 0),
  };
}

/** Gemini CLI 0.61 loses a session loaded in the UTC minute its recording started. */
async function crossMinute(createdAt: string): Promise<void> {
  const next = (Math.floor(Date.parse(createdAt) / 60_000) + 1) * 60_000;
  const wait = next - Date.now() + 500;
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
}

const options = { ignore: !runAgentTests, sanitizeOps: false, sanitizeResources: false };

for (const cli of HARNESSES) {
  Deno.test(
    { name: `${cli}: a conversation resumes after /close, svc stop and kill -9 (D26)`, ...options },
    async () => {
      requireAgent(cli);
      const provider = await startFakeProvider();
      const envDir = join(agentsDir(), "homes", crypto.randomUUID());
      await Deno.mkdir(envDir, { recursive: true });
      const env = await prepareAgentEnv(cli, { providerUrl: provider.url, dir: envDir });
      const home = await tempHome();
      await Deno.writeTextFile(join(home, "config.json"), JSON.stringify({}));
      const project = await Deno.realPath(await tempHome());
      const rig = new Rig(cli, provider, home, project, env);
      const conversations = new Map<Ending, Conversation>(
        ENDINGS.map((ending) => [ending, { ending, id: "", requests: [] }]),
      );
      const two = async (ending: Ending) => {
        const c = conversations.get(ending)!;
        await rig.turn(c, `first ${ending}`, `Answer ${ending} 1`, 1);
        await rig.turn(c, `second ${ending}`, `Answer ${ending} 2`, 2);
        return c;
      };
      try {
        // Daemon 1: one conversation closed, one left idle for `svc stop`.
        await rig.start();
        const closed = await two("close");
        await rig.client!.post(`/sessions/${closed.id}/close`, {});
        assert.equal((await rig.ended(closed.id)).status, "completed");
        await two("stop");
        await rig.stop("SIGTERM");

        // Daemon 2: one conversation left idle, then the daemon is killed.
        await rig.start();
        const killed = await two("kill9");
        const { created_at } = await rig.record(killed.id);
        await rig.stop("SIGKILL");

        // Daemon 3 recovers, and resumes each for a third turn.
        const client = await rig.start();
        if (cli === "gemini") await crossMinute(created_at as string);
        for (const c of conversations.values()) {
          const before = await rig.ended(c.id);
          assert.equal(before.status, PREVIOUS_STATUS[c.ending], JSON.stringify(before));
          assert.equal(before.resumable, true, JSON.stringify(before));
          const agentSessionId = before.agent_session_id;
          const resumed = await client.post<Json>(`/sessions/${c.id}/resume`, {});
          assert.equal(resumed.status, 200, JSON.stringify(resumed.body));
          assert.equal(resumed.body.status, "running");
          await rig.turn(c, `third ${c.ending}`, `Answer ${c.ending} 3`, 3);

          const third = provider.requests[c.requests.at(-1)!];
          const history = conversationTexts(third).join("\n");
          for (const text of [`first ${c.ending}`, `Answer ${c.ending} 1`, `second ${c.ending}`]) {
            assert.ok(history.includes(text), `${c.ending}: "${text}" reloaded:\n${history}`);
          }
          assert.ok(history.includes(`Answer ${c.ending} 2`), `${c.ending}: turn 2 reloaded`);

          const events = await rig.events(c.id);
          assert.deepEqual(events.map((e) => e.seq), events.map((_, i) => i + 1), "gap-free");
          const seam = events.find((e) => e.kind === "session.resumed")!;
          assert.deepEqual(seam.payload, {
            agentSessionId,
            previousStatus: PREVIOUS_STATUS[c.ending],
            resumes: 1,
          });
          const messages = events.filter((e) => e.kind === "agent.message").map((e) =>
            `${e.payload.role}: ${e.payload.text}`
          );
          assert.deepEqual(messages, [
            `user: first ${c.ending}`,
            `assistant: Answer ${c.ending} 1`,
            `user: second ${c.ending}`,
            `assistant: Answer ${c.ending} 2`,
            `user: third ${c.ending}`,
            `assistant: Answer ${c.ending} 3`,
          ], "the replayed history is not recorded again");
          const record = await rig.record(c.id);
          assert.equal(record.turns, 3);
          const usage = record.usage as Json;
          assert.deepEqual(
            { inputTokens: usage.inputTokens, outputTokens: usage.outputTokens },
            expectedUsage(provider, c.requests),
            `${c.ending}: usage is the sum of all three turns`,
          );
          await client.post(`/sessions/${c.id}/close`, {});
          assert.equal((await rig.ended(c.id)).status, "completed");
        }
        await rig.stop("SIGTERM");
      } finally {
        if (rig.serve) await rig.stop("SIGKILL").catch(() => {});
        await provider.close();
        await removeTree(home);
        await removeTree(project);
        await removeTree(envDir);
      }
    },
  );
}
