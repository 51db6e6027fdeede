/** The focus registry (D31's turn.finished): a session is in focus while a face's stream holds it. */
import assert from "node:assert/strict";
import { FocusRegistry } from "../../src/notify/focus.ts";

Deno.test("FocusRegistry holds a session while any face holds it", () => {
  const focus = new FocusRegistry();
  assert.equal(focus.has("ses_1"), false);
  const ui = focus.hold("ses_1");
  const web = focus.hold("ses_1");
  assert.equal(focus.has("ses_1"), true);
  assert.equal(focus.has("ses_2"), false);
  ui();
  assert.equal(focus.has("ses_1"), true, "the web page still shows it");
  web();
  assert.equal(focus.has("ses_1"), false);
});

Deno.test("FocusRegistry's release counts once, however often it runs", () => {
  const focus = new FocusRegistry();
  const first = focus.hold("ses_1");
  const second = focus.hold("ses_1");
  first();
  first();
  first();
  assert.equal(focus.has("ses_1"), true, "a repeated release does not release another face's hold");
  second();
  assert.equal(focus.has("ses_1"), false);
  second();
  const again = focus.hold("ses_1");
  assert.equal(focus.has("ses_1"), true, "no count went below zero");
  again();
  assert.equal(focus.has("ses_1"), false);
});
