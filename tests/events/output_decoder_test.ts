import assert from "node:assert/strict";
import fc from "fast-check";
import {
  MAX_OUTPUT_EVENT_BYTES,
  OutputDecoder,
  splitBytesForEvents,
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

/** Bytes that decide UTF-8 decoding: ASCII, each continuation range, each kind of lead, invalid. */
const decodingByte = fc.oneof(
  fc.constantFrom(0x0a, 0x41, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf),
  fc.constantFrom(0xe0, 0xe1, 0xed, 0xef, 0xf0, 0xf1, 0xf4, 0xf5, 0xff),
  fc.integer({ min: 0, max: 255 }),
);

function cutAt(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
  return [0, ...points].map((from, i) => bytes.slice(from, [...points, bytes.length][i]));
}

Deno.test("OutputDecoder gives, read by read, what a streaming TextDecoder gives", () => {
  const bytes = fc.oneof(
    fc.array(decodingByte, { maxLength: 40, size: "max" }),
    fc.array(
      fc.oneof(
        fc.string({ unit: "binary", maxLength: 8 }).map((text) => [...encoder.encode(text)]),
        fc.array(decodingByte, { maxLength: 3 }),
      ),
      { maxLength: 12, size: "max" },
    ).map((parts) => parts.flat()),
  ).map((values) => Uint8Array.from(values));
  fc.assert(
    fc.property(bytes, fc.array(fc.nat(), { maxLength: 12 }), (input, cuts) => {
      const reads = cutAt(input, cuts);
      const streaming = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });
      const expected = [...reads.map((read) => streaming.decode(read, { stream: true }))];
      expected.push(streaming.decode());
      const decoder = new OutputDecoder();
      for (let round = 0; round < 2; round++) {
        // A second round checks that flush() leaves the decoder as new.
        const actual = [...reads.map((read) => decoder.push(read)), decoder.flush()];
        assert.deepEqual(actual, expected);
      }
    }),
    { numRuns: 3000 },
  );
});

Deno.test("OutputDecoder holds a character whose bytes come one read at a time", () => {
  const decoder = new OutputDecoder();
  assert.equal(decoder.push(Uint8Array.of(0xf0)), "");
  assert.equal(decoder.push(Uint8Array.of(0x9f)), "");
  assert.equal(decoder.push(Uint8Array.of(0x98)), "");
  assert.equal(decoder.push(Uint8Array.of(0x80, 0x41)), "😀A");
  assert.equal(decoder.push(Uint8Array.of(0xe2, 0x82)), "");
  assert.equal(decoder.push(Uint8Array.of(0x41)), "\uFFFDA", "a byte that cannot continue it");
  assert.equal(decoder.push(Uint8Array.of(0xed)), "");
  assert.equal(decoder.push(Uint8Array.of(0xa0)), "\uFFFD\uFFFD", "an encoded surrogate");
  assert.equal(decoder.push(Uint8Array.of(0xef)), "");
  assert.equal(decoder.push(Uint8Array.of(0xbb, 0xbf, 0x42)), "\uFEFFB", "a byte order mark");
  assert.equal(decoder.push(Uint8Array.of(0xc3)), "");
  assert.equal(decoder.flush(), "\uFFFD");
  assert.equal(decoder.push(Uint8Array.of(0x41)), "A", "after flush(), as new");
});

/** The cut rule of splitForEvents(), counted character by character: the model it must match. */
function splitByCount(text: string, maxBytes: number): string[] {
  const pieces: string[] = [];
  let start = 0;
  let bytes = 0;
  let newlineCut = -1;
  let bytesBeforeNewlineCut = 0;
  for (let index = 0; index < text.length;) {
    const codePoint = text.codePointAt(index)!;
    const size = codePoint < 0x80 ? 1 : codePoint < 0x800 ? 2 : codePoint < 0x10000 ? 3 : 4;
    if (bytes + size > maxBytes) {
      const atNewline = newlineCut > start && bytesBeforeNewlineCut >= maxBytes * 0.75;
      const cut = atNewline ? newlineCut : index;
      pieces.push(text.slice(start, cut));
      start = cut;
      bytes = atNewline ? bytes - bytesBeforeNewlineCut : 0;
      newlineCut = -1;
      continue;
    }
    bytes += size;
    index += codePoint > 0xffff ? 2 : 1;
    if (codePoint === 0x0a) {
      newlineCut = index;
      bytesBeforeNewlineCut = bytes;
    }
  }
  if (start < text.length) pieces.push(text.slice(start));
  return pieces;
}

/** Long text of `unit`s, lines, a long run of ASCII and one of three-byte characters. */
function longMixedText(unit: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc.array(
    fc.oneof(
      fc.string({ unit, maxLength: 2000 }),
      fc.constant("a line of output\n"),
      fc.constant("x".repeat(30_000)),
      fc.constant("€".repeat(10_000)),
    ),
    { maxLength: 30, size: "max" },
  ).map((parts) => parts.join(""));
}

Deno.test("splitForEvents() cuts where counting character by character cuts", async (t) => {
  const unit = fc.constantFrom("a", "\n", "é", "€", "😀", "\ud800", "\udc00");
  await t.step("small bounds", () => {
    const anyText = fc.oneof(
      fc.string({ unit: "binary", maxLength: 300, size: "max" }),
      fc.string({ unit, maxLength: 300, size: "max" }),
    );
    fc.assert(
      fc.property(anyText, fc.integer({ min: 4, max: 100 }), (text, maxBytes) => {
        assert.deepEqual(splitForEvents(text, maxBytes), splitByCount(text, maxBytes));
      }),
      { numRuns: 2000 },
    );
  });
  await t.step("the default bound, on long mixed text", () => {
    const long = longMixedText(unit);
    fc.assert(
      fc.property(long, (text) => {
        assert.deepEqual(splitForEvents(text), splitByCount(text, MAX_OUTPUT_EVENT_BYTES));
      }),
      { numRuns: 50 },
    );
  });
});

Deno.test("splitBytesForEvents() cuts valid UTF-8 where splitForEvents() cuts its text", async (t) => {
  const unit = fc.constantFrom("a", "\n", "é", "€", "😀");
  const decoder = new TextDecoder();
  const check = (text: string, maxBytes: number) => {
    const pieces = splitBytesForEvents(encoder.encode(text), maxBytes);
    assert.deepEqual(pieces.map((piece) => decoder.decode(piece)), splitForEvents(text, maxBytes));
  };
  await t.step("small bounds", () => {
    fc.assert(
      fc.property(
        fc.string({ unit, maxLength: 300, size: "max" }),
        fc.integer({ min: 4, max: 100 }),
        check,
      ),
      { numRuns: 2000 },
    );
  });
  await t.step("the default bound, on long mixed text", () => {
    const long = longMixedText(unit);
    fc.assert(fc.property(long, (text) => check(text, MAX_OUTPUT_EVENT_BYTES)), { numRuns: 50 });
  });
  await t.step(
    "no bytes, no pieces",
    () => assert.deepEqual(splitBytesForEvents(new Uint8Array(0)), []),
  );
});

Deno.test("OutputDecoder.takeHeld() hands over an incomplete character and starts anew", () => {
  const decoder = new OutputDecoder();
  assert.equal(decoder.takeHeld(), null);
  assert.equal(decoder.push(Uint8Array.of(0x41, 0xe2, 0x82)), "A");
  assert.deepEqual(decoder.takeHeld(), Uint8Array.of(0xe2, 0x82));
  assert.equal(decoder.push(Uint8Array.of(0xac)), "\ufffd", "no longer joined");
  assert.equal(decoder.flush(), "");
});
