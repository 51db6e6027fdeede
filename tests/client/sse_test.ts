import assert from "node:assert/strict";
import { type SseMessage, SseMessageTooLarge, SseParser } from "../../src/client/sse.ts";

/** Feeds `chunks` to a new parser and returns every message. */
function parse(chunks: string[], parser = new SseParser()): SseMessage[] {
  return chunks.flatMap((chunk) => parser.push(chunk));
}

const STREAM = ": connected\n\n" +
  'id: 1\nevent: session.started\ndata: {"seq":1}\n\n' +
  ": keep-alive\n\n" +
  'id: 2\nevent: output\ndata: {"seq":2,"x":"a:b"}\n\n' +
  'event: end\ndata: {"lastSeq":2}\n\n';

const EXPECTED: SseMessage[] = [
  { id: "1", event: "session.started", data: '{"seq":1}' },
  { id: "2", event: "output", data: '{"seq":2,"x":"a:b"}' },
  { id: null, event: "end", data: '{"lastSeq":2}' },
];

Deno.test("SseParser.push() parses messages and skips comments", () => {
  assert.deepEqual(parse([STREAM]), EXPECTED);
});

Deno.test("SseParser.push() gives the same messages however the text is split", async (t) => {
  await t.step("one character at a time", () => {
    assert.deepEqual(parse([...STREAM]), EXPECTED);
  });
  await t.step("at every split point into two chunks", () => {
    for (let at = 0; at <= STREAM.length; at++) {
      assert.deepEqual(parse([STREAM.slice(0, at), STREAM.slice(at)]), EXPECTED, `at ${at}`);
    }
  });
  await t.step("with empty chunks in between", () => {
    assert.deepEqual(parse(["", STREAM.slice(0, 20), "", "", STREAM.slice(20), ""]), EXPECTED);
  });
});

Deno.test("SseParser.push() accepts CRLF, CR and LF line ends, also split between chunks", async (t) => {
  const crlf = STREAM.replaceAll("\n", "\r\n");
  const cr = STREAM.replaceAll("\n", "\r");
  await t.step("CRLF", () => assert.deepEqual(parse([crlf]), EXPECTED));
  await t.step("CR", () => assert.deepEqual(parse([cr]), EXPECTED));
  await t.step("CRLF split between its CR and LF at every point", () => {
    for (let at = 0; at <= crlf.length; at++) {
      assert.deepEqual(parse([crlf.slice(0, at), crlf.slice(at)]), EXPECTED, `at ${at}`);
    }
  });
  await t.step("CR at a chunk's end, then a blank line", () => {
    assert.deepEqual(parse(["data: a\r", "\r\n"]), [{ id: null, event: "message", data: "a" }]);
  });
  await t.step("a lone LF chunk after CR is that line's end, not a blank line", () => {
    const parser = new SseParser();
    assert.deepEqual(parse(["data: a\r", "\n"], parser), []);
    assert.deepEqual(parser.push("\n"), [{ id: null, event: "message", data: "a" }]);
  });
});

Deno.test("SseParser.push() joins multi-line data and follows the field rules", async (t) => {
  await t.step("data lines are joined with LF", () => {
    assert.deepEqual(parse(["data: one\ndata: two\ndata:\ndata:  four\n\n"]), [
      { id: null, event: "message", data: "one\ntwo\n\n four" },
    ]);
  });
  await t.step("no space after the colon, a field without a colon, unknown fields", () => {
    assert.deepEqual(parse(["event:tick\nretry: 10\nfoo: bar\ndata\n\n"]), [
      { id: null, event: "tick", data: "" },
    ]);
  });
  await t.step("a block without data dispatches nothing but keeps its id", () => {
    const parser = new SseParser();
    assert.deepEqual(parse(["id: 7\nevent: x\n\n", "data: y\n\n"], parser), [
      { id: null, event: "message", data: "y" },
    ]);
    assert.equal(parser.lastEventId, "7");
  });
  await t.step("an id with NUL is ignored", () => {
    assert.deepEqual(parse(["id: a\0b\ndata: z\n\n"]), [{ id: null, event: "message", data: "z" }]);
  });
  await t.step("a leading byte-order mark is dropped", () => {
    assert.deepEqual(parse(["\ufeffdata: z\n\n"]), [{ id: null, event: "message", data: "z" }]);
  });
  await t.step("a message cut off by the end of the text is not dispatched", () => {
    assert.deepEqual(parse(['id: 3\ndata: {"seq":3}\n']), []);
  });
});

Deno.test("SseParser.push() refuses a message over its bound", () => {
  const parser = new SseParser({ maxMessageLength: 100 });
  assert.deepEqual(parser.push(`data: ${"x".repeat(50)}\n\n`).length, 1);
  assert.throws(() => parser.push("x".repeat(101)), SseMessageTooLarge);
  const lines = new SseParser({ maxMessageLength: 100 });
  assert.throws(
    () => lines.push(`data: ${"x".repeat(60)}\ndata: ${"x".repeat(60)}\n`),
    SseMessageTooLarge,
  );
});
