/** The terminal sanitizer (issue 28 item 6): what a terminal could act on is shown, never sent. */
import assert from "node:assert/strict";
import { terminalSafe } from "../../src/cli/terminal_text.ts";

/** Every character that would reach a terminal as a control: C0 but LF, DEL, C1. */
// deno-lint-ignore no-control-regex
const CONTROL = /[\x00-\x09\x0b-\x1f\x7f-\x9f]/;

Deno.test("terminalSafe() shows escape sequences and controls visibly", async (t) => {
  const cases: Array<[string, string, string]> = [
    ["OSC 0 title change", "\x1b]0;pwned\x07", "^[]0;pwned^G"],
    ["OSC 52 clipboard write", "\x1b]52;c;SGVsbG8=\x07", "^[]52;c;SGVsbG8=^G"],
    ["OSC 8 hyperlink ended by ST", "\x1b]8;;http://x\x1b\\link", "^[]8;;http://x^[\\link"],
    ["CSI 2J clear screen", "\x1b[2J", "^[[2J"],
    ["SGR colour", "\x1b[31mred\x1b[0m", "^[[31mred^[[0m"],
    ["BEL", "bell\x07", "bell^G"],
    ["NUL and backspace", "a\x00b\x08c", "a^@b^Hc"],
    ["carriage return overwrite", "safe\rrm -rf /", "safe^Mrm -rf /"],
    ["DEL", "a\x7fb", "a^?b"],
    ["C1 CSI", "\x9b31m", "<U+009B>31m"],
    ["C1 OSC and ST", "\x9d0;t\x9c", "<U+009D>0;t<U+009C>"],
    ["C1 NEL", "a\x85b", "a<U+0085>b"],
    ["right-to-left override", "txt.\u202Eexe", "txt.<U+202E>exe"],
    ["isolates", "\u2066a\u2069\u2067b\u2068", "<U+2066>a<U+2069><U+2067>b<U+2068>"],
    ["marks", "\u200Ea\u200F\u061C", "<U+200E>a<U+200F><U+061C>"],
    ["lone surrogates", "a\uD800b\uDC00", "a<U+D800>b<U+DC00>"],
    ["tab without keepTabs", "a\tb", "a^Ib"],
  ];
  for (const [name, input, expected] of cases) {
    await t.step(name, () => assert.equal(terminalSafe(input), expected));
  }
});

Deno.test("terminalSafe() keeps text, newlines and, when asked, tabs", async (t) => {
  const cases: Array<[string, string, string]> = [
    ["plain ASCII", "Fix the tests: `deno test` ~ 100%", "Fix the tests: `deno test` ~ 100%"],
    ["emoji (surrogate pairs)", "done 🎉👍🏽", "done 🎉👍🏽"],
    ["CJK and accents", "修正する · café · 한국어", "修正する · café · 한국어"],
    ["Latin-1 above C1", "\xa0\xe9\xff", "\xa0\xe9\xff"],
    ["newlines", "one\ntwo\n", "one\ntwo\n"],
    ["CRLF becomes LF", "a\r\nb", "a\nb"],
    ["a caret text stays", "^[ is caret notation", "^[ is caret notation"],
  ];
  for (const [name, input, expected] of cases) {
    await t.step(name, () => assert.equal(terminalSafe(input), expected));
  }
  await t.step("tabs kept with keepTabs", () => {
    assert.equal(terminalSafe("a\tb\x1b", { keepTabs: true }), "a\tb^[");
  });
});

Deno.test("terminalSafe() leaves no control byte for any code unit, and is idempotent", () => {
  for (let code = 0; code <= 0xffff; code++) {
    const text = `a${String.fromCharCode(code)}b`;
    const safe = terminalSafe(text);
    if (code !== 0x0a) assert.ok(!CONTROL.test(safe), `U+${code.toString(16)}: ${safe}`);
    assert.equal(terminalSafe(safe), safe);
  }
});
