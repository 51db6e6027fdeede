import assert from "node:assert/strict";
import { FocusStore, MAX_FOCUS_LINES } from "../../src/ui/focus.ts";

const message = (role: string, text: string) => ({
  kind: "agent.message",
  payload_json: JSON.stringify({ role, text }),
});

Deno.test("FocusStore renders a conversation with tones, and live deltas as an open line (D29)", () => {
  const focus = new FocusStore();
  focus.reset("ses_1", "claude");
  focus.append([message("user", "hi")]);
  focus.append([{ kind: "agent.message.delta", payload_json: JSON.stringify({ text: "Hel" }) }]);
  assert.match(focus.snapshot().partial ?? "", /Hel$/);
  focus.append([{ kind: "agent.message.delta", payload_json: JSON.stringify({ text: "lo" }) }]);
  assert.match(focus.snapshot().partial ?? "", /Hello$/);
  focus.append([message("assistant", "Hello")]);
  const { lines, partial } = focus.snapshot();
  assert.equal(partial, null);
  assert.deepEqual(lines.map((line) => line.tone), ["you", "agent"]);
  assert.match(lines[1].text, /Hello/);
});

Deno.test("FocusStore cuts a raw session's output into safe lines and keeps the unfinished one", () => {
  const focus = new FocusStore();
  focus.reset("ses_1", "raw");
  const output = (data: string) => ({
    kind: "output",
    payload_json: JSON.stringify({ stream: "stdout", data }),
  });
  focus.append([output("one\ntw"), output("o\n\x1b[2Jthree")]);
  assert.deepEqual(focus.snapshot().lines.map((line) => line.text), ["one", "two"]);
  focus.ended();
  assert.deepEqual(focus.snapshot().lines.map((line) => line.text), ["one", "two", "^[[2Jthree"]);
  assert.equal(focus.snapshot().ended, true);
});

Deno.test("FocusStore keeps at most MAX_FOCUS_LINES and forgets a session when focus moves", () => {
  const focus = new FocusStore();
  focus.reset("ses_1", "raw");
  const data = Array.from({ length: MAX_FOCUS_LINES + 10 }, (_, i) => `l${i}\n`).join("");
  focus.append([{ kind: "output", payload_json: JSON.stringify({ stream: "stdout", data }) }]);
  assert.equal(focus.snapshot().lines.length, MAX_FOCUS_LINES);
  assert.equal(focus.snapshot().lines[0].text, "l10");
  focus.reset("ses_2", "claude");
  assert.equal(focus.snapshot().lines.length, 0);
  assert.equal(focus.snapshot().sessionId, "ses_2");
});

Deno.test("FocusStore.resumed() keeps the conversation and is live again (D26)", () => {
  const focus = new FocusStore();
  focus.reset("ses_1", "claude");
  focus.append([message("user", "hi")]);
  focus.ended();
  assert.equal(focus.snapshot().ended, true);
  focus.resumed();
  assert.equal(focus.snapshot().ended, false);
  focus.append([message("assistant", "again")]);
  assert.deepEqual(focus.snapshot().lines.map((line) => line.tone), ["you", "agent"]);
});
