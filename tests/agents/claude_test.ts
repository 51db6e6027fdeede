/** The claude stream-json adapter on transcripts recorded from Claude Code 2.1.197 (D16, D17, D22). */
import assert from "node:assert/strict";
import { createClaudeAdapter, summarize } from "../../src/agents/claude.ts";
import type { AdapterStep, ProtocolAdapter } from "../../src/agents/protocol.ts";
import { loadTranscript, stepsOf } from "./transcript.ts";

type Json = Record<string, unknown>;

/** Feeds "out" lines to the adapter and turns the recorder's "in" lines into the same intents. */
async function replay(scenario: string) {
  const lines = await loadTranscript("claude", scenario);
  const adapter: ProtocolAdapter = createClaudeAdapter({ cwd: "/project", model: null });
  const steps: AdapterStep[] = [];
  const written: string[] = [];
  for (const { dir, line } of lines) {
    if (dir === "out") {
      steps.push(...adapter.onLine(line));
      continue;
    }
    const message = JSON.parse(line) as Json;
    if (message.type === "user") {
      const content = (message.message as { content: Array<{ text: string }> }).content;
      written.push(...adapter.sendTurn(content[0].text));
    } else if (message.type === "control_request") {
      written.push(...adapter.interrupt());
    } else if (message.type === "control_response") {
      const response = message.response as { request_id: string; response: Json };
      const allow = response.response.behavior === "allow";
      written.push(...adapter.answerPermission(response.request_id, {
        decision: allow ? "allow" : "deny",
        remember: false,
        message: allow ? null : response.response.message as string,
      }));
    }
  }
  const recorded = lines.filter((line) => line.dir === "in").map((line) => JSON.parse(line.line));
  return { steps, written: written.map((line) => JSON.parse(line)), recorded };
}

Deno.test("claude adapter: two turns carry one session, messages, results and per-turn usage", async () => {
  const { steps, written, recorded } = await replay("two_turns");
  assert.equal(createClaudeAdapter({ cwd: "/", model: null }).turnsBeforeReady, true);
  const [ready] = stepsOf(steps, "ready");
  const init = (await loadTranscript("claude", "two_turns"))
    .map((line) => JSON.parse(line.line)).find((message) => message.subtype === "init");
  assert.deepEqual(ready, {
    type: "ready",
    agentSessionId: init.session_id,
    model: "claude-sonnet-4-5",
    agentVersion: "2.1.197",
    resumable: true,
  });
  assert.deepEqual(stepsOf(steps, "session"), [], "the id does not change between turns");
  assert.deepEqual(stepsOf(steps, "message").map((step) => step.text), [
    "Hi there",
    "Second answer",
  ]);
  const turns = stepsOf(steps, "turn_end");
  assert.deepEqual(turns.map((turn) => [turn.status, turn.result]), [
    ["completed", "Hi there"],
    ["completed", "Second answer"],
  ]);
  // The fake provider reported 100 then 101 input tokens plus 5 cache reads, and 20 output
  // tokens, per turn; svc counts cached input in inputTokens. total_cost_usd is the process's
  // running total, so each turn gets its own share.
  assert.deepEqual(turns.map((turn) => turn.usage), [
    { inputTokens: 105, outputTokens: 20, cachedInputTokens: 5, costUsd: 0.0006015 },
    { inputTokens: 106, outputTokens: 20, cachedInputTokens: 5, costUsd: 0.001206 - 0.0006015 },
  ]);
  assert.deepEqual(written, recorded, "the adapter writes what the recorder proved works");
});

Deno.test("claude adapter: a can_use_tool request becomes a permission; allow echoes the input", async () => {
  const { steps, written, recorded } = await replay("tool_allow");
  const [permission] = stepsOf(steps, "permission");
  assert.equal(permission.tool, "Bash");
  assert.equal(permission.summary, "Bash: touch created.txt");
  assert.deepEqual(permission.target, { kind: "shell", command: "touch created.txt", paths: [] });
  assert.deepEqual(permission.options.map((option) => option.kind), ["allow_once", "reject_once"]);
  assert.deepEqual(stepsOf(steps, "tool").map((tool) => [tool.callId, tool.status]), [
    ["toolu_fake_0", "started"],
    ["toolu_fake_0", "completed"],
  ]);
  assert.equal(
    stepsOf(steps, "tool")[0].input,
    '{"command":"touch created.txt","description":"Create created.txt"}',
  );
  assert.deepEqual(written, recorded);
  assert.equal(stepsOf(steps, "turn_end")[0].status, "completed");
});

Deno.test("claude adapter: a denied tool is declined and the turn still completes", async () => {
  const { steps, written, recorded } = await replay("tool_deny");
  assert.deepEqual(stepsOf(steps, "tool").map((tool) => tool.status), ["started", "declined"]);
  assert.equal(stepsOf(steps, "tool")[1].output, "Denied by the recorder");
  assert.deepEqual(written, recorded);
  assert.deepEqual(stepsOf(steps, "turn_end").map((turn) => turn.status), ["completed"]);
});

Deno.test("claude adapter: an interrupt ends the turn as interrupted", async () => {
  const { steps, written } = await replay("interrupt");
  const [turn] = stepsOf(steps, "turn_end");
  assert.deepEqual([turn.status, turn.reason], ["interrupted", "interrupted"]);
  assert.deepEqual(written.at(-1), {
    type: "control_request",
    request_id: "svc-1",
    request: { subtype: "interrupt" },
  });
});

Deno.test("claude adapter: other control requests get an error reply; junk lines yield nothing", () => {
  const adapter = createClaudeAdapter({ cwd: "/", model: null });
  assert.deepEqual(adapter.onLine("not json"), []);
  assert.deepEqual(adapter.onLine('{"type":"assistant","message":null}'), []);
  const [reply] = adapter.onLine(
    '{"type":"control_request","request_id":"r9","request":{"subtype":"hook_callback"}}',
  );
  assert.equal(reply.type, "write");
  assert.deepEqual(JSON.parse((reply as { line: string }).line).response, {
    subtype: "error",
    request_id: "r9",
    error: 'Unsupported control request "hook_callback"',
  });
  assert.equal(summarize("Read", { file_path: "/a" }), "Read: /a");
  assert.equal(summarize("Task", {}), "Task");
});

Deno.test("claude adapter: partial messages stream as deltas before each complete message (D29)", async () => {
  const { steps } = await replay("two_turns");
  const shown = steps.filter((step) => step.type === "delta" || step.type === "message")
    .map((step) => `${step.type}:${(step as { text: string }).text}`);
  assert.deepEqual(shown, [
    "delta:Hi",
    "delta: there",
    "message:Hi there",
    "delta:Second",
    "delta: answer",
    "message:Second answer",
  ]);
});

Deno.test("claude adapter: api_retry lines are notices and the failed turn states the API error (D29)", async (t) => {
  await t.step("unreachable provider", async () => {
    const { steps } = await replay("api_retry_unreachable");
    assert.deepEqual(
      stepsOf(steps, "notice").map((
        { level, attempt, maxAttempts },
      ) => [level, attempt, maxAttempts]),
      [["warning", 1, 2], ["warning", 2, 2]],
    );
    assert.match(
      stepsOf(steps, "notice")[0].message,
      /^no answer from the API \(unknown\), next try in \d/,
    );
    const [turn] = stepsOf(steps, "turn_end");
    assert.equal(turn.status, "failed");
    assert.equal(turn.reason, "API Error: Unable to connect to API (ConnectionRefused)");
  });
  await t.step("overloaded provider (529)", async () => {
    const { steps } = await replay("api_retry_overloaded");
    const notices = stepsOf(steps, "notice");
    assert.equal(notices.length, 2);
    assert.match(notices[1].message, /^529 overloaded, next try in/);
    const [turn] = stepsOf(steps, "turn_end");
    assert.equal(turn.status, "failed");
    assert.match(turn.reason ?? "", /^API Error: 529 Overloaded/);
  });
});

Deno.test("claude adapter: stream_event lines are streamed pieces, not stored as output (issue 33)", async () => {
  const adapter = createClaudeAdapter({ cwd: "/project", model: null });
  const lines = (await loadTranscript("claude", "two_turns")).filter(({ dir }) => dir === "out");
  const pieces = lines.filter(({ line }) => adapter.streamedPiece(line)).map(({ line }) => line);
  assert.ok(pieces.length >= 4);
  assert.ok(pieces.every((line) => JSON.parse(line).type === "stream_event"));
  assert.ok(lines.some(({ line }) => JSON.parse(line).type === "assistant"));
  assert.equal(adapter.streamedPiece('{"type":"assistant","text":"stream_event"}'), false);
  assert.equal(adapter.streamedPiece("stream_event"), false);
});
