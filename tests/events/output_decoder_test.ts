import assert from "node:assert/strict";
import fc from "fast-check";
import {
  MAX_OUTPUT_EVENT_BYTES,
  OutputDecoder,
  splitForEvents,
} from "../../src/events/output_decoder.ts";

const encoder = new TextEncoder();
const byteLength = (text: string) => encoder.encode(text).length;

function decodeAll(reads: Uint8Array[]): string {
  const decoder = new OutputDecoder();
  return reads.map((read) => decoder.push(read)).join("") + decoder.flush();
}

Deno.test("OutputDecoder.push() joins a 4-byte emoji split at each byte boundary", () => {
  const bytes = encoder.encode("a😀b");
  for (let cut = 0; cut <= bytes.length; cut++) {
    assert.equal(decodeAll([bytes.slice(0, cut), bytes.slice(cut)]), "a😀b", `cut at ${cut}`);
  }
  assert.equal(decodeAll(Array.from(bytes, (byte) => Uint8Array.of(byte))), "a😀b");
});

Deno.test("OutputDecoder.push() holds an incomplete character until the next read", () => {
  const decoder = new OutputDecoder();
  assert.equal(decoder.push(Uint8Array.of(0x41, 0xe2, 0x82)), "A");
  assert.equal(decoder.push(Uint8Array.of(0xac)), "€");
});

Deno.test("OutputDecoder replaces invalid bytes with U+FFFD", async (t) => {
  const cases: [string, number[][], string][] = [
    ["a stray continuation byte", [[0x41, 0x80, 0x42]], "A\uFFFDB"],
    ["an impossible byte", [[0xff, 0x41]], "\uFFFDA"],
    ["an overlong encoding", [[0xc0, 0x80]], "\uFFFD\uFFFD"],
    ["an encoded surrogate", [[0xed, 0xa0, 0x80]], "\uFFFD\uFFFD\uFFFD"],
    ["an interrupted sequence", [[0xe2, 0x82], [0x41]], "\uFFFDA"],
    ["a truncated character at the end", [[0x41, 0xf0, 0x9f]], "A\uFFFD"],
  ];
  for (const [name, reads, expected] of cases) {
    await t.step(
      name,
      () => assert.equal(decodeAll(reads.map((r) => Uint8Array.from(r))), expected),
    );
  }
});

Deno.test("OutputDecoder keeps a byte order mark", () => {
  assert.equal(decodeAll([Uint8Array.of(0xef, 0xbb, 0xbf, 0x41)]), "\uFEFFA");
});

Deno.test("OutputDecoder decodes arbitrary text cut into arbitrary reads", () => {
  fc.assert(
    fc.property(fc.string({ unit: "binary" }), fc.array(fc.nat()), (text, cuts) => {
      const bytes = encoder.encode(text);
      const points = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) =>
        a - b
      );
      const reads = [0, ...points].map((from, i) =>
        bytes.slice(from, [...points, bytes.length][i])
      );
      assert.equal(decodeAll(reads), text);
    }),
  );
});

Deno.test("splitForEvents() cuts text into bounded pieces", async (t) => {
  const cases: [string, string, number, string[]][] = [
    ["empty text", "", 8, []],
    ["text that fits", "abc", 8, ["abc"]],
    ["text that fits exactly", "abcdefgh", 8, ["abcdefgh"]],
    ["ASCII over the bound", "abcdefghij", 4, ["abcd", "efgh", "ij"]],
    ["two-byte characters", "ééé", 5, ["éé", "é"]],
    ["three-byte characters", "€€€", 7, ["€€", "€"]],
    ["surrogate pairs", "😀😀😀", 6, ["😀", "😀", "😀"]],
    ["a late newline", "abcdefg\nhijk", 10, ["abcdefg\n", "hijk"]],
    ["an early newline", "ab\ncdefghijk", 10, ["ab\ncdefghi", "jk"]],
    ["a lone surrogate as three bytes", "\ud800\ud800", 4, ["\ud800", "\ud800"]],
  ];
  for (const [name, text, maxBytes, expected] of cases) {
    await t.step(name, () => assert.deepEqual(splitForEvents(text, maxBytes), expected));
  }
});

Deno.test("splitForEvents() uses MAX_OUTPUT_EVENT_BYTES by default", () => {
  assert.equal(MAX_OUTPUT_EVENT_BYTES, 65536);
  const text = "€".repeat(50_000);
  const pieces = splitForEvents(text);
  assert.equal(pieces.length, 3);
  assert.ok(pieces.every((piece) => byteLength(piece) <= MAX_OUTPUT_EVENT_BYTES));
  assert.equal(pieces.join(""), text);
});

Deno.test("splitForEvents() rejects a bound too small for a character", () => {
  assert.throws(() => splitForEvents("abc", 3), RangeError);
  assert.throws(() => splitForEvents("abc", 4.5), RangeError);
});

Deno.test("splitForEvents() never exceeds the bound and round-trips", () => {
  const anyText = fc.oneof(
    fc.string({ unit: "binary", maxLength: 300 }),
    fc.string({ unit: fc.constantFrom("a", "\n", "é", "€", "😀", "\ud800", "\udc00") }),
  );
  fc.assert(
    fc.property(anyText, fc.integer({ min: 4, max: 64 }), (text, maxBytes) => {
      const pieces = splitForEvents(text, maxBytes);
      assert.equal(pieces.join(""), text);
      for (const piece of pieces) {
        assert.ok(piece.length > 0);
        assert.ok(byteLength(piece) <= maxBytes, `${JSON.stringify(piece)} over ${maxBytes}`);
      }
      for (let i = 1; i < pieces.length; i++) {
        const splitsPair = /[\ud800-\udbff]$/.test(pieces[i - 1]) &&
          /^[\udc00-\udfff]/.test(pieces[i]);
        assert.ok(!splitsPair, "a surrogate pair was split");
      }
    }),
    { numRuns: 500 },
  );
});
