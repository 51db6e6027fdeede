/** The chat prompt's line editor: keys of a cbreak terminal in, lines out; pure. */
import assert from "node:assert/strict";
import { LineEditor } from "../../src/cli/line_editor.ts";

const submit = (line: string) => ({ type: "submit", line });
const change = { type: "change" };

Deno.test("LineEditor.feed() edits and submits lines", async (t) => {
  await t.step("typed text, then Enter (CR, LF or CRLF) submits it once", () => {
    const editor = new LineEditor();
    assert.deepEqual(editor.feed("hel"), [change]);
    assert.deepEqual(editor.feed("lo"), [change]);
    assert.equal(editor.text(), "hello");
    assert.deepEqual(editor.feed("\r"), [submit("hello")]);
    assert.equal(editor.text(), "");
    assert.deepEqual(editor.feed("a\r\nb\n"), [change, submit("a"), change, submit("b")]);
    assert.deepEqual(editor.feed("\r"), [submit("")]);
  });

  await t.step("Backspace, Ctrl-U and Ctrl-W delete; nothing to delete is no change", () => {
    const editor = new LineEditor();
    editor.feed("fix the tests");
    editor.feed("\x7f\x7f");
    assert.equal(editor.text(), "fix the tes");
    editor.feed("\x17");
    assert.equal(editor.text(), "fix the ");
    editor.feed("\x17");
    assert.equal(editor.text(), "fix ");
    editor.feed("\x15");
    assert.equal(editor.text(), "");
    assert.deepEqual(editor.feed("\x7f\x15\x17"), []);
  });

  await t.step("multi-byte characters are deleted whole", () => {
    const editor = new LineEditor();
    editor.feed("héllo 🙂");
    editor.feed("\x7f");
    assert.equal(editor.text(), "héllo ");
  });

  await t.step("Ctrl-D ends input on an empty line only", () => {
    const editor = new LineEditor();
    assert.deepEqual(editor.feed("\x04"), [{ type: "eof" }]);
    editor.feed("x");
    assert.deepEqual(editor.feed("\x04"), []);
    assert.equal(editor.text(), "x");
  });

  await t.step("escape sequences are skipped, even split across reads", () => {
    const editor = new LineEditor();
    editor.feed("a\x1b[A\x1b[1;5Cb\x1bOP");
    assert.equal(editor.text(), "ab");
    editor.feed("\x1b[");
    editor.feed("3~c");
    assert.equal(editor.text(), "abc");
  });

  await t.step("a bracketed paste keeps its newlines in one line", () => {
    const editor = new LineEditor();
    assert.deepEqual(editor.feed("\x1b[200~one\ntwo\r\nthree\x1b[201~"), [change]);
    assert.equal(editor.text(), "one\ntwo\nthree");
    assert.deepEqual(editor.feed("\r"), [submit("one\ntwo\nthree")]);
  });

  await t.step("other control characters are ignored; a tab is a space", () => {
    const editor = new LineEditor();
    editor.feed("a\x01\x02\tb\x85");
    assert.equal(editor.text(), "a b");
  });
});
