import assert from "node:assert/strict";
import { commandFor, KEYMAP, VIEWS } from "../../../src/ui/keymap.ts";
import {
  backRoute,
  keymapView,
  pageCommand,
  scrollOf,
  viewKeyRoute,
} from "../../../src/web/app/keyboard.ts";

const KEY = { ctrlKey: false, altKey: false, metaKey: false };
const PAGE = { typing: false, onControl: false, selectedText: false };

Deno.test("pageCommand() is svc ui's commandFor() for every key of the keymap in every view (D30)", () => {
  // The web face's keys are the keymap itself: no second table to drift.
  const browserKey: Record<string, string> = {
    "<up>": "ArrowUp",
    "<down>": "ArrowDown",
    "<left>": "ArrowLeft",
    "<right>": "ArrowRight",
    "<pageup>": "PageUp",
    "<pagedown>": "PageDown",
    "<return>": "Enter",
    "<escape>": "Escape",
  };
  for (const view of VIEWS) {
    for (const binding of KEYMAP) {
      if (binding.key === "<tab>" || binding.key === "<ctrl-c>" || binding.key === "q") continue;
      const key = browserKey[binding.key] ?? binding.key;
      assert.equal(pageCommand({ ...KEY, key }, view, PAGE), commandFor(binding.key, view), key);
    }
  }
  assert.equal(pageCommand({ ...KEY, key: "y" }, "approvals", PAGE), "allow");
  assert.equal(pageCommand({ ...KEY, key: "a" }, "fleet", PAGE), "toggle-ended");
  assert.equal(pageCommand({ ...KEY, key: "X" }, "land", PAGE), "cancel-land");
  assert.equal(pageCommand({ ...KEY, key: "c", ctrlKey: true }, "session", PAGE), "interrupt");
});

Deno.test("pageCommand() leaves the browser its keys: fields, Tab, Enter on a link, copy, q", () => {
  assert.equal(pageCommand({ ...KEY, key: "1" }, "session", { ...PAGE, typing: true }), null);
  assert.equal(pageCommand({ ...KEY, key: "Tab" }, "fleet", PAGE), null);
  assert.equal(pageCommand({ ...KEY, key: "Enter" }, "fleet", { ...PAGE, onControl: true }), null);
  assert.equal(pageCommand({ ...KEY, key: "j" }, "fleet", { ...PAGE, onControl: true }), "down");
  const copy = { ...KEY, key: "c", ctrlKey: true };
  assert.equal(pageCommand(copy, "session", { ...PAGE, selectedText: true }), null);
  assert.equal(pageCommand(copy, "fleet", PAGE), null, "Ctrl-C quits svc ui; a page stays");
  assert.equal(pageCommand({ ...KEY, key: "q" }, "fleet", PAGE), null);
  assert.equal(pageCommand({ ...KEY, key: "r", ctrlKey: true }, "session", PAGE), null);
  assert.equal(pageCommand({ ...KEY, key: "1" }, null, PAGE), null, "no keys while pairing");
});

Deno.test("keymapView(), viewKeyRoute() and backRoute() map the pages onto svc ui's views", () => {
  assert.equal(keymapView({ view: "diff", sessionId: "s" }), "session");
  assert.equal(keymapView({ view: "pair", code: null }), null);
  assert.equal(keymapView({ view: "land" }), "land");
  assert.deepEqual(viewKeyRoute("view-land", null), { view: "land" });
  assert.deepEqual(viewKeyRoute("view-session", "s"), { view: "session", sessionId: "s" });
  assert.equal(viewKeyRoute("view-session", null), null);
  assert.deepEqual(backRoute({ view: "session", sessionId: "s" }), { view: "fleet" });
  assert.deepEqual(backRoute({ view: "diff", sessionId: "s" }), {
    view: "session",
    sessionId: "s",
  });
  assert.deepEqual(backRoute({ view: "inbox", runId: "r" }), { view: "inbox", runId: null });
  assert.deepEqual(backRoute({ view: "new" }), { view: "fleet" });
  assert.equal(keymapView({ view: "new" }), "new");
  assert.equal(backRoute({ view: "fleet" }), null);
});

Deno.test("scrollOf() scrolls a page by the moving keys", () => {
  assert.deepEqual(scrollOf("up", { height: 500, line: 40 }), { by: -40 });
  assert.deepEqual(scrollOf("page-down", { height: 500, line: 40 }), { by: 450 });
  assert.deepEqual(scrollOf("bottom", { height: 500, line: 40 }), { to: "bottom" });
});
