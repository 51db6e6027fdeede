import assert from "node:assert/strict";
import type { Key } from "ink";
import { edit, keyName, splitKey } from "../../src/ui/key_input.ts";

const NO_KEY = {
  upArrow: false,
  downArrow: false,
  leftArrow: false,
  rightArrow: false,
  pageUp: false,
  pageDown: false,
  home: false,
  end: false,
  return: false,
  escape: false,
  ctrl: false,
  shift: false,
  tab: false,
  backspace: false,
  delete: false,
  meta: false,
} as Key;

Deno.test("keyName() names Ink's keys as the keymap does", () => {
  assert.equal(keyName("", { ...NO_KEY, pageUp: true }), "<pageup>");
  assert.equal(keyName("c", { ...NO_KEY, ctrl: true }), "<ctrl-c>");
  assert.equal(keyName("G", NO_KEY), "G");
});

Deno.test("splitKey() makes Enter, Tab, Backspace and Esc in a typed-ahead chunk keys", () => {
  assert.equal(splitKey("\r", NO_KEY).key.return, true);
  assert.equal(splitKey("\t", NO_KEY).key.tab, true);
  assert.equal(splitKey("\x7f", NO_KEY).key.backspace, true);
  assert.equal(splitKey("\x1b", NO_KEY).key.escape, true);
  assert.deepEqual(splitKey("x", NO_KEY), { text: "x", key: NO_KEY });
});

Deno.test("edit() appends typed text without controls; Backspace deletes a character", () => {
  assert.equal(edit("ab", "c\x1b[2J\x9b", NO_KEY), "abc[2J");
  assert.equal(edit("a😀", "", { ...NO_KEY, backspace: true }), "a");
  assert.equal(edit("ab", "x", { ...NO_KEY, ctrl: true }), "ab");
});
