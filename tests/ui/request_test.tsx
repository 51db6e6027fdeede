/**
 * Issue 38 item 1: a pending request is shown whole, wrapped, with hidden
 * characters made visible, before the keys that answer it; one longer than
 * the screen offers `y` and `a` only once all of it has been on screen.
 */
import assert from "node:assert/strict";
import { approval, fleetLists } from "./fixtures.ts";
import { KEY, renderApp } from "./render_app.tsx";

const WAITING = "ses_01WAITING0000000000000000";
const PADDING = "padding ".repeat(40);
const COMMAND = `echo ${PADDING}&& rm -rf /home/me/precious`;

function withRequest(summary: string) {
  const lists = fleetLists();
  lists.approvals = [approval({ sessionId: WAITING, summary, command: summary.slice(6) })];
  return lists;
}

/** The screen's text with its wrapping undone. */
function flat(frame: string): string {
  return frame.replace(/\s+/g, " ");
}

Deno.test("svc ui shows a long request whole before its keys, in the session and approvals views", async () => {
  const app = renderApp(withRequest(`Bash: ${COMMAND}`));
  for (const keys of [["3"], [KEY.enter]]) {
    await app.press(...keys);
    const frame = app.frame();
    assert.ok(flat(frame).includes(flat(`Bash: ${COMMAND}`)), frame);
    assert.doesNotMatch(frame, /Bash: Bash:/);
    const tail = frame.indexOf("rm -rf /home/me/precious");
    const keysAt = frame.search(/y allow · n deny · a always/);
    assert.ok(tail >= 0 && keysAt > tail, `the keys after the whole request:\n${frame}`);
  }
  app.unmount();
});

Deno.test("svc ui shows the invisible characters of a request as escapes", async () => {
  const hidden = "echo ok\u200b\u00a0\u202e;\u2066rm -rf ~\u2069\nrm -rf /\u3164";
  const app = renderApp(withRequest(`Bash: ${hidden}`));
  await app.press("3", KEY.enter);
  const frame = app.frame();
  assert.match(frame, /echo ok<U\+200B><U\+00A0><U\+202E>;<U\+2066>rm -rf ~<U\+2069>/);
  assert.match(frame, /\nrm -rf \/<U\+3164>/, "a newline starts a row of its own");
  app.unmount();
});

Deno.test("svc ui offers y and a for a request longer than the screen only once all of it was shown", async () => {
  const long = Array.from({ length: 60 }, (_, i) => `step${i}`).join(" && ");
  const app = renderApp(withRequest(`Bash: ${long.repeat(3)}`));
  await app.press("3", KEY.enter);
  assert.doesNotMatch(app.frame(), /y allow/);
  assert.match(app.frame(), /v more \(rows 1–\d+ of \d+\)/);
  await app.press("y");
  assert.match(app.frame(), /Read the whole request first: v shows the rest/);
  assert.equal(app.calls.length, 0, "nothing allowed unseen");
  await app.press("a");
  assert.doesNotMatch(app.frame(), /Always allow/);
  for (let i = 0; i < 20 && !/y allow/.test(app.frame()); i++) await app.press("v");
  assert.match(app.frame(), /step59/);
  assert.match(app.frame(), /y allow · n deny · a always/);
  await app.press("y");
  assert.equal(app.calls.at(-1)?.body.decision, "allow");
  app.unmount();
});
