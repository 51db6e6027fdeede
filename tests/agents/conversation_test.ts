import assert from "node:assert/strict";
import {
  Conversation,
  type ConversationIo,
  type PermissionDecision,
} from "../../src/agents/conversation.ts";
import type { AdapterStep, ProtocolAdapter, Usage } from "../../src/agents/protocol.ts";
import { FakeClock } from "../fakes/clock.ts";

/** An adapter whose lines are the steps themselves, as JSON: the test speaks in steps. */
function stepAdapter(handshake: boolean): ProtocolAdapter & { answers: string[] } {
  const answers: string[] = [];
  return {
    protocol: "acp",
    turnsBeforeReady: !handshake,
    answers,
    start: () => handshake ? ["hello"] : [],
    onLine: (line) => JSON.parse(line) as AdapterStep[],
    streamedPiece: () => false,
    sendTurn: (text) => [`turn:${text}`],
    interrupt: () => ["cancel"],
    answerPermission: (requestId, answer) => {
      answers.push(`${requestId}:${answer.decision}`);
      return [`answer:${requestId}`];
    },
  };
}

const TIMEOUTS = { turnMs: 1000, idleMs: 5000, interruptGraceMs: 200, closeGraceMs: 300 };

function harness(
  options: { handshake?: boolean; oneShot?: boolean; decision?: PermissionDecision } = {},
) {
  const clock = new FakeClock(0);
  const written: string[] = [];
  const recorded: Array<[string, Record<string, unknown>]> = [];
  const published: Array<[string, Record<string, unknown>]> = [];
  const calls: string[] = [];
  const adapter = stepAdapter(options.handshake ?? true);
  const io: ConversationIo = {
    write: (line) => written.push(line),
    record: (kind, payload) => {
      recorded.push([kind, payload]);
      return Promise.resolve();
    },
    publish: (kind, payload) => published.push([kind, payload]),
    closeInput: () => calls.push("closeInput"),
    kill: () => calls.push("kill"),
    changed: () => {},
    decide: () =>
      Promise.resolve(
        options.decision ?? { decision: "deny", remember: false, message: null, by: "policy" },
      ),
  };
  const conversation = new Conversation(adapter, {
    io,
    clock,
    timeouts: TIMEOUTS,
    prompt: "first",
    oneShot: options.oneShot ?? false,
  });
  const emit = (...steps: AdapterStep[]) => conversation.onStdout(JSON.stringify(steps) + "\n");
  const kinds = () => recorded.map(([kind]) => kind);
  return { clock, written, recorded, published, calls, adapter, conversation, emit, kinds };
}

const READY: AdapterStep = {
  type: "ready",
  agentSessionId: "s1",
  model: null,
  agentVersion: null,
  resumable: true,
};
const turnEnd = (usage: Usage | null = null): AdapterStep => ({
  type: "turn_end",
  status: "completed",
  reason: null,
  result: null,
  usage,
});

Deno.test("Conversation sends the prompt only after the handshake, then queued turns in order", async () => {
  const h = harness();
  h.conversation.start();
  assert.deepEqual(h.written, ["hello"]);
  assert.deepEqual(h.conversation.submit("s", "second"), { queued: true });
  h.emit(READY);
  assert.deepEqual(h.written, ["hello", "turn:first"]);
  assert.equal(h.conversation.state.activity, "working");
  h.emit({ type: "message", text: "answer" }, turnEnd());
  assert.deepEqual(h.written.at(-1), "turn:second");
  h.emit(turnEnd());
  assert.equal(h.conversation.state.activity, "idle");
  assert.equal(h.conversation.state.turns, 2);
  const turns = h.recorded.filter(([kind]) => kind === "agent.turn").map(([, p]) => p);
  assert.equal(turns[0].result, "answer", "the last message is the result when none is reported");
  await h.clock.advance(0);
});

Deno.test("Conversation fails the session when the handshake never completes", async () => {
  const h = harness();
  h.conversation.start();
  await h.clock.advance(TIMEOUTS.turnMs);
  assert.deepEqual(h.calls, ["kill"]);
  assert.match(await h.conversation.finish() ?? "", /handshake in time/);
});

Deno.test("Conversation interrupts a silent turn, then kills an agent that ignores it", async () => {
  const h = harness({ handshake: false });
  h.conversation.start();
  await h.clock.advance(TIMEOUTS.turnMs - 1);
  h.emit({ type: "message", text: "progress" }); // Progress re-arms the turn timeout.
  await h.clock.advance(TIMEOUTS.turnMs - 1);
  assert.ok(!h.written.includes("cancel"));
  await h.clock.advance(1);
  assert.equal(h.written.at(-1), "cancel");
  await h.clock.advance(TIMEOUTS.interruptGraceMs);
  assert.deepEqual(h.calls, ["kill"]);
  assert.match(await h.conversation.finish() ?? "", /did not stop the turn/);
  const turn = h.recorded.find(([kind]) => kind === "agent.turn")![1];
  assert.equal(turn.status, "interrupted");
  assert.equal(turn.reason, "timeout");
});

Deno.test("Conversation's turn timeout counts silence: lines move its one timer, a clock step times nothing out", async () => {
  const h = harness({ handshake: false });
  h.conversation.start();
  for (let i = 0; i < 50; i++) {
    await h.clock.advance(TIMEOUTS.turnMs / 2);
    h.emit({ type: "message", text: `progress ${i}` });
  }
  assert.equal(h.clock.pending, 1, "one timer for the turn");
  assert.ok(!h.written.includes("cancel"));
  // The wall clock steps an hour ahead just after a line: the silence is not an hour.
  h.clock.set(h.clock.now() + 3_600_000);
  await h.clock.advance(TIMEOUTS.turnMs / 2);
  assert.ok(!h.written.includes("cancel"), "a step is not silence");
  await h.clock.advance(TIMEOUTS.turnMs);
  assert.equal(h.written.at(-1), "cancel", "a whole turnMs of silence after it is");
});

Deno.test("Conversation closes input when idle and kills an agent that does not exit", async () => {
  const h = harness({ handshake: false, oneShot: true });
  h.conversation.start();
  assert.throws(() => h.conversation.submit("s", "more"), /closing/);
  h.emit(READY, turnEnd());
  assert.deepEqual(h.calls, ["closeInput"]);
  await h.clock.advance(TIMEOUTS.closeGraceMs);
  assert.deepEqual(h.calls, ["closeInput", "kill"]);
  assert.equal(await h.conversation.finish(), null, "the one-shot turn completed");
});

Deno.test("Conversation closes an idle conversation after the idle timeout", async () => {
  const h = harness({ handshake: false });
  h.conversation.start();
  h.emit(turnEnd());
  await h.clock.advance(TIMEOUTS.idleMs - 1);
  assert.deepEqual(h.calls, []);
  await h.clock.advance(1);
  assert.deepEqual(h.calls, ["closeInput"]);
});

Deno.test("Conversation records a permission request and its resolution before answering", async () => {
  const h = harness({ handshake: false });
  h.conversation.start();
  h.emit({ type: "permission", requestId: "r1", tool: "Bash", summary: "Bash: ls", options: [] });
  assert.equal(h.conversation.state.activity, "waiting_approval");
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.deepEqual(h.kinds().slice(-2), ["agent.permission", "agent.permission.resolved"]);
  assert.equal(h.written.at(-1), "answer:r1");
  assert.deepEqual(h.adapter.answers, ["r1:deny"]);
  assert.equal(h.conversation.state.activity, "working");
});

Deno.test("Conversation derives a turn's usage from cumulative reports and sums the session", () => {
  const h = harness({ handshake: false });
  h.conversation.start();
  const usage = (input: number) => ({
    inputTokens: input,
    outputTokens: null,
    cachedInputTokens: null,
    costUsd: null,
  });
  h.emit({ type: "usage", usage: usage(100), cumulative: true }, turnEnd());
  h.conversation.submit("s", "again");
  h.emit({ type: "usage", usage: usage(250), cumulative: true }, turnEnd());
  const turns = h.recorded.filter(([kind]) => kind === "agent.turn").map(([, p]) => p.usage);
  assert.deepEqual(turns, [usage(100), usage(150)]);
  assert.deepEqual(h.conversation.state.usage, usage(250));
});

Deno.test("Conversation fails a session whose agent exits mid-turn, and rejects empty input", async () => {
  const h = harness({ handshake: false });
  h.conversation.start();
  assert.throws(() => h.conversation.submit("s", "  "), /must not be empty/);
  h.emit(READY);
  await h.conversation.finish();
  const turn = h.recorded.find(([kind]) => kind === "agent.turn")![1];
  assert.deepEqual([turn.status, turn.reason], ["failed", "agent_exited"]);
  assert.equal(h.conversation.state.activity, null);
});

Deno.test("Conversation publishes deltas live, redacted as one message, and records notices (D29)", async () => {
  const h = harness();
  h.conversation.start();
  h.emit(READY);
  const secret = "sk-ant-api03-" + "a".repeat(40);
  h.emit(
    { type: "notice", level: "warning", message: `retry ${secret}`, attempt: 2, maxAttempts: 10 },
    { type: "notice", level: "info", message: "compacted", attempt: null, maxAttempts: null },
    { type: "delta", text: "Hello " },
    { type: "delta", text: "key sk-ant-api03-" },
    { type: "delta", text: "a".repeat(40) + " done" },
    { type: "message", text: `Hello key ${secret} done` },
    turnEnd(),
  );
  await h.clock.advance(0);
  const notices = h.recorded.filter(([kind]) => kind === "agent.notice").map(([, p]) => p);
  assert.deepEqual(notices, [
    { level: "warning", message: "retry [REDACTED:anthropic]", attempt: 2, maxAttempts: 10 },
    { level: "info", message: "compacted" },
  ]);
  assert.ok(h.published.every(([kind]) => kind === "agent.message.delta"));
  const streamed = h.published.map(([, p]) => p.text).join("");
  const [, message] = h.recorded.find(([kind, p]) =>
    kind === "agent.message" && p.role === "assistant"
  )!;
  assert.equal(streamed, message.text, "the deltas join into the recorded message");
  assert.ok(!streamed.includes(secret));
  assert.deepEqual(h.published[0][1], { turn: 1, text: "Hello " });
  assert.ok(!h.kinds().includes("agent.message.delta"), "deltas are never recorded");
});

Deno.test("Conversation never publishes a key streamed one character a delta (issue 33)", async () => {
  const h = harness();
  h.conversation.start();
  h.emit(READY);
  const secret = "ghp_" + "a".repeat(36);
  const reply = `Your token is ${secret} so keep it safe.`;
  h.emit(...[...reply].map((text): AdapterStep => ({ type: "delta", text })));
  assert.ok(h.published.length > 1, "text before the key is shown as it comes");
  const shown = h.published.map(([, p]) => p.text).join("");
  assert.ok(!shown.includes("ghp_"), shown);
  h.emit({ type: "message", text: reply }, turnEnd());
  await h.clock.advance(0);
  const streamed = h.published.map(([, p]) => p.text).join("");
  assert.equal(streamed, "Your token is [REDACTED:github] so keep it safe.");
});

Deno.test("Conversation sends held delta text when the turn ends without a message", async () => {
  const h = harness();
  h.conversation.start();
  h.emit(READY);
  h.emit({ type: "delta", text: "partial " }, { type: "delta", text: "answer" }, turnEnd());
  await h.clock.advance(0);
  assert.deepEqual(h.published.map(([, p]) => p.text), ["partial ", "answer"]);
  assert.ok(h.published.every(([, p]) => p.turn === 1));
});

Deno.test("Conversation records a failed turn's limit, its reset as an instant (D33)", () => {
  const h = harness();
  h.conversation.start();
  h.emit(READY);
  h.emit({
    type: "turn_end",
    status: "failed",
    reason: "You've hit your session limit",
    result: null,
    usage: null,
    limit: { reason: "usage_limit", resetsAt: Date.UTC(2026, 10, 28, 9, 42), retryAfterMs: 2500 },
  });
  const turns = h.recorded.filter(([kind]) => kind === "agent.turn").map(([, p]) => p);
  assert.deepEqual(turns[0].limit, {
    reason: "usage_limit",
    resetsAt: "2026-11-28T09:42:00.000Z",
    retryAfterSeconds: 2.5,
  });
  // The session parks (D33): the turn is kept to be sent again, and no more input is taken.
  assert.equal(h.conversation.parked?.turns.length, 1);
  assert.throws(() => h.conversation.submit("s", "second"), /is closing/);
});
