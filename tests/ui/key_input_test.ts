import assert from "node:assert/strict";
import type { Key } from "ink";
import { browserKeyName, edit, keyName, splitKey } from "../../src/ui/key_input.ts";
import { KEYMAP } from "../../src/ui/keymap.ts";

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

const PLAIN = { ctrlKey: false, altKey: false, metaKey: false };

Deno.test("browserKeyName() names a browser's keys as the keymap does (D30)", () => {
  assert.equal(browserKeyName({ ...PLAIN, key: "ArrowDown" }), "<down>");
  assert.equal(browserKeyName({ ...PLAIN, key: "Enter" }), "<return>");
  assert.equal(browserKeyName({ ...PLAIN, key: "G" }), "G");
  assert.equal(browserKeyName({ ...PLAIN, key: "?" }), "?");
  assert.equal(browserKeyName({ ...PLAIN, key: " " }), " ");
  assert.equal(browserKeyName({ ...PLAIN, key: "c", ctrlKey: true }), "<ctrl-c>");
  // Keys and chords the keymap never names stay the browser's.
  for (
    const event of [
      { ...PLAIN, key: "Shift" },
      { ...PLAIN, key: "F5" },
      { ...PLAIN, key: "r", ctrlKey: true },
      { ...PLAIN, key: "1", altKey: true },
      { ...PLAIN, key: "c", metaKey: true },
    ]
  ) {
    assert.equal(browserKeyName(event), null, event.key);
  }
});

Deno.test("browserKeyName(): a browser can press every key of the keymap", () => {
  const names = new Set(
    [
      ..."abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789?!/ ",
      "ArrowUp",
      "ArrowDown",
      "ArrowLeft",
      "ArrowRight",
      "PageUp",
      "PageDown",
      "Enter",
      "Escape",
      "Tab",
    ].map((key) => browserKeyName({ ...PLAIN, key })),
  );
  names.add(browserKeyName({ ...PLAIN, key: "c", ctrlKey: true }));
  for (const binding of KEYMAP) assert.ok(names.has(binding.key), binding.key);
});
