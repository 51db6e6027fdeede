import assert from "node:assert/strict";
import type {
  AdapterContext,
  AdapterFactory,
  AdapterStep,
  AgentProtocolId,
  ProtocolAdapter,
} from "../../src/agents/protocol.ts";
import { NO_USAGE } from "../../src/agents/protocol.ts";
import { LiveEvents } from "../../src/events/live_events.ts";
import { silentLogger } from "../../src/log.ts";
import { newLiveSession } from "../../src/sessions/live_session.ts";
import {
  type ConversationStart,
  newConversation,
} from "../../src/sessions/session_conversation.ts";
import { FakeClock } from "../fakes/clock.ts";
import { FakeProcess } from "../fakes/spawner.ts";
import { runningSessionRow } from "../helpers/rows.ts";
import { type SessionLog, withSessionLog } from "../helpers/session_log.ts";

/** An adapter whose lines are the steps themselves, as JSON; it notes how it was made. */
function stepAdapter(contexts: AdapterContext[]): AdapterFactory {
  return (context) => {
    contexts.push(context);
    const adapter: ProtocolAdapter = {
      protocol: "acp",
      turnsBeforeReady: false,
      start: () => ["hello"],
      onLine: (line) => JSON.parse(line) as AdapterStep[],
      streamedPiece: () => false,
      sendTurn: (text) => [`turn:${text}`],
      interrupt: () => ["cancel"],
      answerPermission: () => [],
    };
    return adapter;
  };
}

const TIMEOUTS = { turnMs: 1000, idleMs: 5000, interruptGraceMs: 200, closeGraceMs: 300 };

function setUp({ sessions, events }: SessionLog, start: Partial<ConversationStart> = {}) {
  const row = {
    ...runningSessionRow("ses_a"),
    protocol: "acp" as const,
    activity: "starting" as const,
  };
  sessions.insert(row);
  events.open("ses_a", 0);
  const process = new FakeProcess({ argv: ["x"], cwd: "/" });
  const live = newLiveSession(row, process);
  const contexts: AdapterContext[] = [];
  const factory = stepAdapter(contexts);
  const published: Array<{ kind: string } & Record<string, unknown>> = [];
  const kills: number[] = [];
  const clock = new FakeClock(0);
  const conversation = newConversation(live, {
    events,
    sessions,
    live: new LiveEvents(clock),
    log: silentLogger,
    clock,
    adapters: Object.fromEntries(
      ["acp", "claude", "codex-app-server"].map((id) => [id, factory]),
    ) as Record<AgentProtocolId, AdapterFactory>,
    timeouts: () => TIMEOUTS,
    publish: (kind, data) => published.push({ kind, ...data }),
    decide: () => Promise.reject(new Error("no permission requests here")),
  }, {
    protocol: "acp",
    cwd: "/work",
    model: "m",
    prompt: "first",
    oneShot: false,
    approvals: "deny",
    resumeFrom: null,
    resumed: null,
    kill: () => kills.push(1),
    ...start,
  });
  return { process, live, contexts, published, kills, conversation };
}

Deno.test("newConversation() writes the agent's lines to stdin, records them and updates the row (D16)", async () => {
  await withSessionLog(async (log) => {
    const { process, contexts, published, conversation } = setUp(log);
    assert.deepEqual(contexts, [{ cwd: "/work", model: "m", resume: null }]);
    conversation.start();
    conversation.onStdout(
      JSON.stringify([{
        type: "ready",
        agentSessionId: "s1",
        model: null,
        agentVersion: null,
        resumable: true,
      }]) + "\n",
    );
    const row = log.sessions.get("ses_a")!;
    assert.equal(row.agent_session_id, "s1");
    assert.equal(row.agent_resumable, 1);
    assert.equal(row.activity, "working");
    assert.ok(published.some((p) => p.kind === "session.updated" && p.activity === "working"));
    await log.events.append("ses_a", "marker", {}); // Durable after the inputs.
    assert.equal(process.stdinText, "hello\nturn:first\n");
    const inputs = log.stored.readAfter("ses_a", 0, 10).filter((e) => e.kind === "input")
      .map((e) => JSON.parse(e.payload_json).data);
    assert.deepEqual(inputs, ["hello\n", "turn:first\n"]);
  });
});

Deno.test("newConversation() on a resume goes on from the row's agent session, turns and usage (D26)", async () => {
  await withSessionLog((log) => {
    const usage = { ...NO_USAGE, inputTokens: 120, outputTokens: 7 };
    const resumed = {
      ...runningSessionRow("ses_a"),
      agent_session_id: "s1",
      turns: 3,
      usage_json: JSON.stringify(usage),
    };
    const { contexts, conversation } = setUp(log, {
      prompt: null,
      resumeFrom: "s1",
      resumed,
    });
    assert.equal(contexts[0].resume, "s1");
    assert.equal(conversation.state.turns, 3);
    assert.equal(conversation.state.agentSessionId, "s1");
    assert.deepEqual(conversation.state.usage, usage);
  });
});
