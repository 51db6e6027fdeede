/**
 * The four built-ins, and a configured ACP harness, driven for real through
 * the daemon's socket (issue 9; D16, D17, D18, D22): the pinned CLIs against
 * the fake provider, in a project that is not a git repository and was
 * never trusted. Run with `deno task test:agents`.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { HARNESSES } from "../../scripts/agents_install.ts";
import type { Harness } from "./agent_bins.ts";
import { type AgentDaemon, startAgentDaemon } from "./agent_daemon.ts";
import { SHELL_TOOL_CALLS } from "./agent_env.ts";
import { requireAgent, runAgentTests } from "./agents_gate.ts";
import { conversationTexts, type RecordedRequest } from "./fake_provider.ts";
import { git, gitRepository } from "../helpers/git.ts";
import { removeTree } from "../helpers/home.ts";
import { routineDefinition } from "../helpers/routine.ts";

type Json = Record<string, unknown>;

/** Short enough to test, long enough for a CLI's start-up on a busy 2-core machine. */
const TURN_TIMEOUT_MINUTES = 0.2;
/** Long enough for the test to answer a request it polls for. */
const APPROVAL_TIMEOUT_SECONDS = 6;

/** The main-conversation requests the provider received from index `from` on. */
function mainRequests(d: AgentDaemon, from: number): RecordedRequest[] {
  return d.provider.requests.slice(from).filter((request) => !request.side);
}

/** What svc should report for those requests: every input token, cached ones included (D22). */
function expectedTokens(d: AgentDaemon, from: number) {
  const reports = d.provider.usageReported.slice(from).filter((report) => !report.side);
  return {
    inputTokens: reports.reduce(
      (sum, r) => sum + r.inputTokens + (r.api === "anthropic" ? r.cachedInputTokens : 0),
      0,
    ),
    outputTokens: reports.reduce((sum, r) => sum + r.outputTokens, 0),
  };
}

async function twoTurns(d: AgentDaemon): Promise<void> {
  const from = d.provider.requests.length;
  d.provider.script([{ text: "Hi there" }, { text: "Second answer" }]);
  const id = await d.launch({ prompt: "hello" });
  await d.waitForKind(id, "agent.turn", 1);
  const input = await d.client.post<Json>(`/sessions/${id}/input`, { data: "and again" });
  assert.equal(input.status, 200, JSON.stringify(input.body));
  await d.waitForKind(id, "agent.turn", 2);

  const page = await d.client.get<{ events: Json[] }>(
    `/sessions/${id}/events?kinds=agent.message,agent.turn`,
  );
  const typed = page.body.events.map((event) => [
    event.kind,
    JSON.parse(event.payload_json as string),
  ]);
  assert.deepEqual(
    typed.map(([kind, p]) => kind === "agent.message" ? [p.role, p.text] : ["turn", p.status]),
    [
      ["user", "hello"],
      ["assistant", "Hi there"],
      ["turn", "completed"],
      ["user", "and again"],
      ["assistant", "Second answer"],
      ["turn", "completed"],
    ],
  );
  const second = mainRequests(d, from).at(-1)!;
  const history = conversationTexts(second).join("\n");
  assert.match(history, /hello/, "turn 1 is carried into turn 2");
  assert.match(history, /Hi there/);

  const record = (await d.client.get<Json>(`/sessions/${id}`)).body;
  assert.equal(record.turns, 2);
  assert.equal(record.activity, "idle");
  assert.equal(typeof record.agent_session_id, "string");
  const usage = record.usage as Json;
  assert.deepEqual(
    { inputTokens: usage.inputTokens, outputTokens: usage.outputTokens },
    expectedTokens(d, from),
    "usage matches what the provider reported",
  );

  await d.client.post(`/sessions/${id}/close`, {});
  const ended = await d.waitForEnd(id);
  assert.equal(ended.status, "completed", JSON.stringify(ended));
}

async function interrupted(d: AgentDaemon): Promise<void> {
  const from = d.provider.requests.length;
  d.provider.script([{ hang: true }, { text: "after the interrupt" }]);
  const id = await d.launch({ prompt: "wait forever" });
  await d.provider.waitForRequest((r) => r.index >= from && !r.side, 60_000);
  const response = await d.client.post<Json>(`/sessions/${id}/interrupt`, {});
  assert.equal(response.status, 200);
  const [turn] = await d.waitForKind(id, "agent.turn", 1);
  assert.equal(turn.status, "interrupted");
  assert.equal((await d.client.get<Json>(`/sessions/${id}`)).body.status, "running");
  await d.client.post(`/sessions/${id}/input`, { data: "go on" });
  const turns = await d.waitForKind(id, "agent.turn", 2);
  assert.equal(turns[1].status, "completed", "the session takes the next turn");
  await d.client.post(`/sessions/${id}/kill`, {});
  await d.waitForEnd(id);
}

async function permissionDenied(d: AgentDaemon, cli: Harness): Promise<void> {
  d.provider.script([{ toolCall: SHELL_TOOL_CALLS[cli] }, { text: "done" }]);
  const id = await d.launch({ prompt: "create a file", oneShot: true, approvals: "deny" });
  const ended = await d.waitForEnd(id);
  const [request] = await d.waitForKind(id, "agent.permission", 1);
  assert.equal(typeof request.requestId, "string");
  const [resolved] = await d.waitForKind(id, "agent.permission.resolved", 1);
  assert.deepEqual(resolved, { requestId: request.requestId, decision: "deny", by: "policy" });
  const [turn] = await d.waitForKind(id, "agent.turn", 1);
  assert.equal(turn.status, "completed", "the agent goes on after a denial");
  assert.equal(ended.status, "completed");
  await assert.rejects(Deno.stat(join(d.project, "created.txt")), "the tool never ran");
  d.provider.clearScript(); // opencode ends the turn at the denial, without asking for "done".
}

/**
 * The owner's answer through the broker (issue 10, D18): `allow` runs the
 * tool (its file exists), `deny` does not, no answer is denied by timeout,
 * and policy `allow` runs it without asking. The pending list ends empty.
 */
async function ownerDecides(
  d: AgentDaemon,
  cli: Harness,
  answer: "allow" | "deny" | "timeout" | "policy-allow",
): Promise<void> {
  const file = join(d.project, "created.txt");
  await Deno.remove(file).catch(() => {});
  d.provider.script([{ toolCall: SHELL_TOOL_CALLS[cli] }, { text: "done" }]);
  const policy = answer === "policy-allow" ? "allow" : "ask";
  const id = await d.launch({ prompt: "create a file", oneShot: true, approvals: policy });
  const [request] = await d.waitForKind(id, "agent.permission", 1);
  if (answer === "allow" || answer === "deny") {
    const listed = await d.act("svc.sessions.approvals", { sessionId: id });
    assert.deepEqual(
      (listed.result as { approvals: Json[] }).approvals.map((a) => a.requestId),
      [request.requestId],
    );
    const approved = await d.act("svc.sessions.approve", {
      sessionId: id,
      requestId: request.requestId,
      decision: answer,
    });
    assert.equal(approved.ok, true, JSON.stringify(approved));
  }
  const ended = await d.waitForEnd(id);
  const [resolved] = await d.waitForKind(id, "agent.permission.resolved", 1);
  const expected = {
    allow: ["allow", "owner"],
    deny: ["deny", "owner"],
    timeout: ["deny", "timeout"],
    "policy-allow": ["allow", "policy"],
  }[answer];
  assert.deepEqual([resolved.decision, resolved.by], expected);
  const [turn] = await d.waitForKind(id, "agent.turn", 1);
  assert.equal(turn.status, "completed", JSON.stringify(turn));
  assert.equal(ended.status, "completed");
  const ran = await Deno.stat(file).then(() => true, () => false);
  assert.equal(ran, expected[0] === "allow", "the tool ran exactly when allowed");
  const pending = await d.act("svc.sessions.approvals", {});
  assert.deepEqual((pending.result as { approvals: Json[] }).approvals, []);
  d.provider.clearScript();
}

async function turnTimeout(d: AgentDaemon): Promise<void> {
  d.provider.script([{ hang: true }]);
  const id = await d.launch({ prompt: "never answered" });
  const [turn] = await d.waitForKind(id, "agent.turn", 1);
  assert.deepEqual([turn.status, turn.reason], ["interrupted", "timeout"]);
  await d.client.post(`/sessions/${id}/kill`, {});
  await d.waitForEnd(id);
}

async function routineRun(d: AgentDaemon, model: string | null): Promise<void> {
  d.provider.script([{ text: "routine done" }]);
  const created = await d.act("svc.automations.create", {
    definition: routineDefinition(`check-${d.harness}`, {
      name: "Check",
      runtime: d.harness,
      prompt: "report",
      cwd: d.project,
      ...(model ? { model } : {}),
    }),
  });
  assert.equal(created.ok, true, JSON.stringify(created));
  const run = await d.act("svc.automations.run", { id: `check-${d.harness}` });
  const sessionId = (run.result as Json).sessionId as string;
  assert.equal((await d.waitForEnd(sessionId)).status, "completed");
  for (;;) {
    const runs = await d.act("svc.automations.runs", { id: `check-${d.harness}` });
    const [latest] = (runs.result as { runs: Json[] }).runs;
    if (latest.status === "running") {
      await new Promise((resolve) => setTimeout(resolve, 100));
      continue;
    }
    assert.equal(latest.status, "succeeded", JSON.stringify(latest));
    break;
  }
  const [turn] = await d.waitForKind(sessionId, "agent.turn", 1);
  assert.equal(turn.result, "routine done");
}

/**
 * A routine run isolated in a worktree (issue 12, D20–D22): the agent's tool
 * runs in the worktree, the owner's checkout stays clean, the run records
 * the change, the agent's usage and final text, and its inbox result.
 */
async function worktreeRun(d: AgentDaemon, cli: Harness, model: string | null): Promise<void> {
  const repo = await gitRepository();
  try {
    d.provider.script([{ toolCall: SHELL_TOOL_CALLS[cli] }, { text: "worktree done" }]);
    const id = `isolated-${d.harness}`;
    const created = await d.act("svc.automations.create", {
      definition: routineDefinition(id, {
        name: "Isolated",
        runtime: d.harness,
        prompt: "create a file",
        cwd: repo,
        approvals: "allow",
        isolation: "worktree",
        outputTarget: { kind: "inbox" },
        ...(model ? { model } : {}),
      }),
    });
    assert.equal(created.ok, true, JSON.stringify(created));
    const run = (await d.act("svc.automations.run", { id })).result as Json;
    assert.equal(run.error ?? null, null, JSON.stringify(run));
    await d.waitForEnd(run.sessionId as string);
    let record: Json = {};
    for (;;) {
      const runs = await d.act("svc.automations.runs", { id });
      [record] = (runs.result as { runs: Json[] }).runs;
      if (record.status !== "running") break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(record.status, "succeeded", JSON.stringify(record));
    assert.equal(await git(repo, "status", "--porcelain"), "", "the owner's checkout is clean");
    const worktree = record.worktree as Json;
    await Deno.stat(join(worktree.path as string, "created.txt"));
    assert.deepEqual(
      [worktree.changedFiles, worktree.insertions, worktree.deletions, worktree.uncommittedFiles],
      [1, 0, 0, 1],
    );
    assert.equal(record.summary, "worktree done");
    assert.equal(typeof (record.usage as Json).outputTokens, "number");
    const delivery = record.delivery as Json;
    assert.equal(delivery.status, "delivered");
    assert.match(await Deno.readTextFile(delivery.path as string), /## Result\n\nworktree done\n/);
    const pruned = await d.act("svc.automations.prune", { routineId: id, force: true });
    assert.equal(((pruned.result as Json).removals as Json[])[0].removed, true);
    d.provider.clearScript();
  } finally {
    await removeTree(repo);
  }
}

const options = { ignore: !runAgentTests, sanitizeOps: false, sanitizeResources: false };

for (const cli of HARNESSES) {
  Deno.test(
    { name: `${cli}: conversations through the socket (D16-D18, D22)`, ...options },
    async (t) => {
      requireAgent(cli);
      await using d = await startAgentDaemon(cli, {
        config: {
          turnTimeoutMinutes: TURN_TIMEOUT_MINUTES,
          approvals: { timeoutSeconds: APPROVAL_TIMEOUT_SECONDS },
        },
      });
      const model = cli === "gemini" ? "gemini-2.5-flash" : null;
      await t.step(
        "a two-turn conversation with history and usage; close → completed",
        () => twoTurns(d),
      );
      await t.step("an interrupted turn; the session takes the next one", () => interrupted(d));
      await t.step(
        "a tool call that asks permission is denied by policy",
        () => permissionDenied(d, cli),
      );
      for (const answer of ["allow", "deny", "timeout", "policy-allow"] as const) {
        await t.step(
          `a permission request answered: ${answer}`,
          () => ownerDecides(d, cli, answer),
        );
      }
      await t.step("a provider that never answers: the turn times out", () => turnTimeout(d));
      await t.step("a one-shot routine run succeeds", () => routineRun(d, model));
      await t.step(
        "a routine run in a git worktree delivers its result",
        () => worktreeRun(d, cli, model),
      );
    },
  );
}

Deno.test(
  { name: "a configured ACP harness (opencode acp) converses (D16)", ...options },
  async () => {
    requireAgent("opencode");
    await using d = await startAgentDaemon("opencode", {
      harness: "my-acp",
      config: {
        harnesses: { "my-acp": { command: ["opencode", "acp"], protocol: "acp", label: "My ACP" } },
      },
    });
    await twoTurns(d);
  },
);
