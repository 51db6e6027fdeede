import assert from "node:assert/strict";
import fc from "fast-check";
import { truncateUtf8 } from "../../src/events/page.ts";

const utf8Length = (text: string) => new TextEncoder().encode(text).length;

/** Well-formed text mixing 1- to 4-byte characters. */
const text = fc.string({ unit: "binary", maxLength: 64 });
/** Any UTF-16, lone surrogates included. */
const anyUtf16 = fc.string({
  unit: fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)),
  maxLength: 64,
});
const maxBytes = fc.integer({ min: 0, max: 300 });

Deno.test("truncateUtf8() cuts at the byte bound on a character boundary", async (t) => {
  const cases: Array<[string, number, string]> = [
    ["abc", 3, "abc"],
    ["abc", 2, "ab"],
    ["abc", 0, ""],
    ["", 0, ""],
    ["héllo", 2, "h"],
    ["héllo", 3, "hé"],
    ["€uro", 2, ""],
    ["€uro", 3, "€"],
    ["😀a", 3, ""],
    ["😀a", 4, "😀"],
    ["a😀", 4, "a"],
    ["a😀", 5, "a😀"],
    ["😀😀", 7, "😀"],
  ];
  for (const [input, bound, expected] of cases) {
    await t.step(`${JSON.stringify(input)} to ${bound} bytes`, () => {
      assert.equal(truncateUtf8(input, bound), expected);
    });
  }
});

Deno.test("truncateUtf8() never exceeds the byte bound", () => {
  fc.assert(fc.property(anyUtf16, maxBytes, (input, bound) => {
    assert.ok(utf8Length(truncateUtf8(input, bound)) <= bound);
  }));
  fc.assert(fc.property(text, maxBytes, (input, bound) => {
    assert.ok(utf8Length(truncateUtf8(input, bound)) <= bound);
  }));
});

Deno.test("truncateUtf8() returns a prefix, whole when it fits", () => {
  fc.assert(fc.property(anyUtf16, maxBytes, (input, bound) => {
    const result = truncateUtf8(input, bound);
    assert.ok(input.startsWith(result));
    if (utf8Length(input) <= bound) assert.equal(result, input);
  }));
});

Deno.test("truncateUtf8() never splits a character and keeps the longest prefix", () => {
  fc.assert(fc.property(text, maxBytes, (input, bound) => {
    const result = truncateUtf8(input, bound);
    assert.ok(result.isWellFormed(), JSON.stringify(result));
    // Whole code points only, so the bytes are a prefix of the input's bytes.
    const bytes = new TextEncoder().encode(input);
    assert.deepEqual(new TextEncoder().encode(result), bytes.subarray(0, utf8Length(result)));
    if (result !== input) {
      const next = String.fromCodePoint(input.codePointAt(result.length)!);
      assert.ok(utf8Length(result + next) > bound, "the next character would have fitted");
    }
  }));
});
