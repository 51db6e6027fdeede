import assert from "node:assert/strict";
import {
  conversationRoom,
  readOn,
  requestPanel,
  requestRoom,
  revealed,
} from "../../src/ui/request_panel.ts";
import { TranscriptWindow } from "../../src/ui/transcript_window.ts";
import { approval, NOW } from "./fixtures.ts";

Deno.test("revealed() shows what a terminal would draw as nothing or a plain space", () => {
  assert.equal(
    revealed("a\u200bb\u00a0c\u2060d\ufeffe\u00adf"),
    "a<U+200B>b<U+00A0>c<U+2060>d<U+FEFF>e<U+00AD>f",
  );
  assert.equal(revealed("\x1b[2J\u202e x\ttab"), "^[[2J<U+202E> x^Itab");
  assert.equal(revealed("tag\u{e0041}"), "tag<U+E0041>");
  assert.equal(revealed("two\nlines 漢字 😀"), "two\nlines 漢字 😀");
});

Deno.test("requestPanel() shows a request whole when it fits, names its tool once", () => {
  const window = new TranscriptWindow();
  const panel = requestPanel(approval({ sessionId: "s", summary: "Bash: npm test" }), {
    width: 80,
    room: 5,
    reading: null,
    window,
    nowMs: NOW,
  });
  assert.deepEqual(panel.rows, ["? Bash: npm test"]);
  assert.equal(panel.whole, true);
  assert.equal(panel.keys, "y allow · n deny · a always · 9:30 left");
  const titled = requestPanel(approval({ sessionId: "s", tool: "Edit", summary: "Edit a.ts" }), {
    width: 80,
    room: 5,
    reading: null,
    window,
    nowMs: NOW,
  });
  assert.deepEqual(titled.rows, ["? Edit: Edit a.ts"]);
});

Deno.test("requestPanel() pages a long request; y and a only once the end was on screen", () => {
  const window = new TranscriptWindow();
  const request = approval({ sessionId: "s", summary: `Bash: ${"word ".repeat(100)}end` });
  const view = { width: 20, room: 10, window, nowMs: NOW };
  let panel = requestPanel(request, { ...view, reading: null });
  assert.equal(panel.whole, false);
  assert.equal(panel.rows.length, 10);
  assert.match(panel.keys, /^v more \(rows 1–10 of \d+\) · y and a after the end/);
  const seen = [...panel.rows];
  while (!panel.whole) {
    panel = requestPanel(request, { ...view, reading: readOn(panel) });
    seen.push(...panel.rows);
  }
  assert.match(panel.rows.at(-1) ?? "", / end$/);
  assert.ok(seen.length >= panel.total, "every row was on screen");
  const other = approval({ sessionId: "s", requestId: "req_2", summary: request.summary });
  assert.equal(requestPanel(other, { ...view, reading: readOn(panel) }).from, 0);
});

Deno.test("requestRoom() and conversationRoom() share the session view's rows", () => {
  assert.equal(requestRoom("session", { height: 20, listed: 1, reserved: 0 }), 14);
  assert.equal(requestRoom("approvals", { height: 20, listed: 1, reserved: 0 }), 14);
  assert.equal(requestRoom("approvals", { height: 20, listed: 9, reserved: 0 }), 12);
  assert.equal(conversationRoom(20, { request: null, reserved: 1 }), 17);
});
