import assert from "node:assert/strict";
import {
  age,
  basename,
  countdown,
  money,
  safeLine,
  tokens,
  uniquePrefixLength,
} from "../../src/ui/format.ts";

Deno.test("age() and countdown() read like a clock", () => {
  assert.equal(age(0, 42_000), "42s");
  assert.equal(age(0, 5 * 60_000), "5m");
  assert.equal(age(0, 3 * 3_600_000), "3h");
  assert.equal(age(0, 2 * 86_400_000), "2d");
  assert.equal(age(10_000, 0), "0s", "never negative");
  assert.equal(countdown(570_000, 0), "9:30");
  assert.equal(countdown(0, 5000), "0:00");
});

Deno.test("tokens(), money() and basename()", () => {
  assert.equal(tokens(null), "-");
  assert.equal(tokens(950), "950");
  assert.equal(tokens(1500), "1.5k");
  assert.equal(tokens(45_000), "45k");
  assert.equal(tokens(4_500_000), "4.5M");
  assert.equal(money(undefined), "-");
  assert.equal(money(0.0125), "$0.0125");
  assert.equal(money(12.5), "$12.50");
  assert.equal(basename("/home/me/project/"), "project");
  assert.equal(basename("C:\\\\work\\\\repo"), "repo");
});

Deno.test("uniquePrefixLength() tells ids made in the same second apart", () => {
  assert.equal(uniquePrefixLength([]), 12);
  assert.equal(uniquePrefixLength(["ses_01AAAAAAAA", "ses_01BBBBBBBB"]), 12);
  assert.equal(uniquePrefixLength(["ses_01M8DPTA90XYZ", "ses_01M8DPTA91XYZ"]), 14);
  assert.equal(uniquePrefixLength(["ses_01M8DPTA90BSBF8VASQ", "ses_01M8DPTA90BSBF8VASR"]), 20);
});

Deno.test("safeLine() flattens newlines and shows controls", () => {
  assert.equal(safeLine("a\nb\r\nc"), "a b c");
  assert.equal(safeLine("\x1b]0;x\x07"), "^[]0;x^G");
  assert.equal(safeLine(null), "");
});
