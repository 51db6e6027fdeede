import assert from "node:assert/strict";
import { FramingError } from "../../src/transport/http1_errors.ts";
import {
  encodeChunk,
  framingErrorResponse,
  LAST_CHUNK,
  newResponseScratch,
  serializeResponseHead,
  writeResponse,
} from "../../src/transport/http1_response.ts";
import { textResponse } from "../../src/transport/text_body.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const bytes = (text: string) => encoder.encode(text);

Deno.test("serializeResponseHead() adds the server's fields a handler did not set (D5)", () => {
  const fields = { "svc-instance": "inst-1" };
  const head = (headers: Headers) =>
    decoder.decode(
      serializeResponseHead(200, headers, { kind: "length", length: 0 }, { close: false, fields }),
    );
  assert.equal(
    head(new Headers({ "content-type": "application/json" })),
    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nsvc-instance: inst-1\r\n" +
      "content-length: 0\r\n\r\n",
  );
  // A handler's own value is the one sent, once.
  const own = head(new Headers({ "Svc-Instance": "other" }));
  assert.equal(own.match(/svc-instance/g)?.length, 1);
  assert.match(own, /svc-instance: other\r\n/);
});

Deno.test("serializeResponseHead() owns framing and connection fields", () => {
  const headers = new Headers({
    "content-type": "application/json",
    "content-length": "999",
    "transfer-encoding": "gzip",
    connection: "upgrade",
    "svc-instance": "abc",
  });
  const text = decoder.decode(
    serializeResponseHead(200, headers, { kind: "length", length: 2 }, {
      close: false,
      date: "Sun, 06 Nov 1994 08:49:37 GMT",
    }),
  );
  assert.equal(
    text,
    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nsvc-instance: abc\r\n" +
      "date: Sun, 06 Nov 1994 08:49:37 GMT\r\ncontent-length: 2\r\n\r\n",
  );
  const chunked = decoder.decode(
    serializeResponseHead(404, new Headers(), { kind: "chunked" }, { close: true }),
  );
  assert.equal(
    chunked,
    "HTTP/1.1 404 Not Found\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n",
  );
  const kept10 = decoder.decode(
    serializeResponseHead(599, new Headers(), { kind: "none" }, {
      close: false,
      keepAlive10: true,
    }),
  );
  assert.equal(kept10, "HTTP/1.1 599 \r\nconnection: keep-alive\r\n\r\n");
});

Deno.test("encodeChunk() frames data with its hex size", () => {
  assert.equal(decoder.decode(encodeChunk(bytes("x".repeat(26)))), `1a\r\n${"x".repeat(26)}\r\n`);
  assert.equal(decoder.decode(LAST_CHUNK), "0\r\n\r\n");
  assert.throws(() => encodeChunk(new Uint8Array(0)), RangeError);
});

async function written(
  response: Response,
  request: { method?: string; version?: "1.0" | "1.1"; keepAlive?: boolean } = {},
): Promise<{ text: string; writes: number; reusable: boolean }> {
  const parts: Uint8Array[] = [];
  const reusable = await writeResponse(
    response,
    { method: "GET", version: "1.1", keepAlive: true, ...request },
    (chunk) => {
      parts.push(chunk.slice());
      return Promise.resolve();
    },
  );
  return { text: parts.map((p) => decoder.decode(p)).join(""), writes: parts.length, reusable };
}

/** The bytes `writeResponse` writes for `response`, with or without a connection's scratch. */
async function wire(
  response: () => Response,
  scratch: Uint8Array | null,
  method = "GET",
): Promise<string> {
  const parts: string[] = [];
  await writeResponse(
    response(),
    { method, version: "1.1", keepAlive: true },
    async (chunk) => {
      const before = decoder.decode(chunk);
      await new Promise((resolve) => setTimeout(resolve, 1));
      // The bytes are left alone until the write settles (the scratch is reused after it).
      assert.equal(decoder.decode(chunk), before);
      parts.push(before);
    },
    { date: "Sun, 06 Nov 1994 08:49:37 GMT", scratch: scratch ? () => scratch : undefined },
  );
  return parts.join("");
}

Deno.test("writeResponse() builds small text answers in the connection's scratch, byte for byte the same (issue 26)", async () => {
  const scratch = newResponseScratch();
  const json = { "content-type": "application/json" };
  const cases: Array<[string, () => Response, string?]> = [
    ["ASCII", () => textResponse('{"ok":true}', { headers: json })],
    ["multi-byte", () => textResponse(`{"t":"${"é😀".repeat(400)}"}`, { headers: json })],
    ["at the scratch's text bound", () => textResponse("€".repeat(4096), { headers: json })],
    ["above it", () => textResponse("x".repeat(4097), { headers: json })],
    [
      "a head larger than its room",
      () => textResponse("{}", { headers: { ...json, "x-large": "v".repeat(5000) } }),
    ],
    ["a HEAD answer", () => textResponse('{"ok":true}', { headers: json }), "HEAD"],
    ["an empty body", () => textResponse("", { status: 200, headers: json })],
  ];
  for (const [name, response, method] of cases) {
    const general = await wire(response, null, method);
    assert.equal(await wire(response, scratch, method), general, name);
    // Reused: a second, different answer after a first one leaves nothing of it behind.
    assert.equal(await wire(response, scratch, method), general, `${name}, reused`);
  }
  const multi = await wire(cases[1][1], scratch);
  assert.match(multi, /content-length: 2408\r\n/);
  assert.ok(multi.endsWith(`{"t":"${"é😀".repeat(400)}"}`));
});

function streamOf(chunks: string[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(bytes(chunk));
      controller.close();
    },
  });
}

Deno.test("writeResponse() frames bodies by length, chunks or close", async (t) => {
  await t.step("a small body gets Content-Length, in one write", async () => {
    const out = await written(Response.json({ ok: true }));
    assert.match(out.text, /^HTTP\/1\.1 200 OK\r\n/);
    assert.match(out.text, /content-length: 11\r\n/);
    assert.ok(out.text.endsWith('\r\n\r\n{"ok":true}'));
    assert.equal(out.writes, 1);
    assert.equal(out.reusable, true);
  });
  await t.step("a long stream is chunked and ends with the last chunk", async () => {
    const piece = "y".repeat(40_000);
    const out = await written(new Response(streamOf([piece, piece, piece])));
    assert.match(out.text, /transfer-encoding: chunked\r\n/);
    assert.doesNotMatch(out.text, /content-length/);
    assert.ok(out.text.endsWith("\r\n0\r\n\r\n"));
    const body = out.text.slice(out.text.indexOf("\r\n\r\n") + 4);
    assert.equal(dechunk(body), piece.repeat(3));
    assert.equal(out.reusable, true);
  });
  await t.step("HTTP/1.0 gets a close-delimited stream", async () => {
    const piece = "z".repeat(70_000);
    const out = await written(new Response(streamOf([piece, piece])), { version: "1.0" });
    assert.match(out.text, /connection: close\r\n/);
    assert.ok(out.text.endsWith(piece + piece));
    assert.equal(out.reusable, false);
  });
  await t.step("HEAD gets the length and no body", async () => {
    const out = await written(new Response("hello"), { method: "HEAD" });
    assert.match(out.text, /content-length: 5\r\n\r\n$/);
  });
  await t.step("a body built by textResponse is sent without reading its stream", async () => {
    const response = textResponse('{"é":1}', { headers: { "content-type": "application/json" } });
    const out = await written(response);
    assert.match(out.text, /content-length: 8\r\n/);
    assert.ok(out.text.endsWith('\r\n\r\n{"é":1}'));
    assert.equal(out.writes, 1);
    assert.equal(response.bodyUsed, false);
    const head = await written(textResponse("hello", {}), { method: "HEAD" });
    assert.match(head.text, /content-length: 5\r\n\r\n$/);
  });
  await t.step(
    "a declared length is sent as is, chunk by chunk, without chunk framing",
    async () => {
      const piece = "d".repeat(70_000);
      const out = await written(
        new Response(streamOf([piece, "", piece]), { headers: { "content-length": "140000" } }),
      );
      assert.match(out.text, /content-length: 140000\r\n/);
      assert.doesNotMatch(out.text, /transfer-encoding/);
      assert.ok(out.text.endsWith("\r\n\r\n" + piece + piece));
      assert.equal(out.writes, 2, "the head rides with the first chunk");
      assert.equal(out.reusable, true);
    },
  );
  await t.step(
    "a body longer or shorter than declared fails the write (the connection closes)",
    async () => {
      for (const length of ["5", "50"]) {
        const response = new Response(streamOf(["0123456789"]), {
          headers: { "content-length": length },
        });
        await assert.rejects(written(response), /content-length/);
      }
    },
  );
  await t.step("HEAD keeps a declared length", async () => {
    const out = await written(new Response(null, { headers: { "content-length": "1234" } }), {
      method: "HEAD",
    });
    assert.match(out.text, /content-length: 1234\r\n\r\n$/);
  });
  await t.step("204 has neither body nor length", async () => {
    const out = await written(new Response(null, { status: 204 }), { keepAlive: false });
    assert.equal(out.text, "HTTP/1.1 204 No Content\r\nconnection: close\r\n\r\n");
    assert.equal(out.reusable, false);
  });
  await t.step("an empty response says content-length: 0", async () => {
    const out = await written(new Response(null, { status: 200 }));
    assert.match(out.text, /content-length: 0\r\n\r\n$/);
  });
});

Deno.test("framingErrorResponse() carries the D6 envelope and closes", () => {
  const text = decoder.decode(framingErrorResponse(new FramingError(411, "length_required", "No")));
  assert.match(text, /^HTTP\/1\.1 411 Length Required\r\n/);
  assert.match(text, /connection: close\r\n/);
  const body = JSON.parse(text.slice(text.indexOf("\r\n\r\n") + 4));
  assert.deepEqual(body, { error: { code: "length_required", message: "No", details: {} } });
});

function dechunk(body: string): string {
  let out = "";
  let rest = body;
  for (;;) {
    const lineEnd = rest.indexOf("\r\n");
    const size = parseInt(rest.slice(0, lineEnd), 16);
    if (size === 0) return out;
    out += rest.slice(lineEnd + 2, lineEnd + 2 + size);
    rest = rest.slice(lineEnd + 2 + size + 2);
  }
}
