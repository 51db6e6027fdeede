import assert from "node:assert/strict";
import { request as nodeRequest } from "node:http";
import {
  type ByteDuplex,
  DEFAULT_LIMITS,
  encodeChunk,
  FramingError,
  framingErrorResponse,
  LAST_CHUNK,
  parseRequestHead,
  RequestReader,
  serializeResponseHead,
  serveHttp1Connection,
  toRequest,
  writeResponse,
} from "../../src/transport/http1_framing.ts";
import { textResponse } from "../../src/transport/text_body.ts";
import { removeTree, tempHome } from "../helpers/home.ts";
import { serveOnSocket } from "../helpers/http1_socket.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const bytes = (text: string) => encoder.encode(text);

function refused(text: string, status: number, code?: string): void {
  assert.throws(
    () => {
      const reader = new RequestReader();
      reader.push(bytes(text));
      reader.next();
    },
    (error: unknown) =>
      error instanceof FramingError && error.status === status &&
      (code === undefined || error.code === code),
    `expected ${status} for ${JSON.stringify(text.slice(0, 60))}`,
  );
}

Deno.test("parseRequestHead() reads the request line and fields", () => {
  const text = "\r\nGET /api/v1/health?x=1 HTTP/1.1\r\nHost: localhost\r\nX-A:  b \r\n\r\nrest";
  const parsed = parseRequestHead(bytes(text));
  assert.ok(parsed);
  assert.equal(parsed.head.method, "GET");
  assert.equal(parsed.head.target, "/api/v1/health?x=1");
  assert.equal(parsed.head.version, "1.1");
  assert.deepEqual(parsed.head.headers, [["Host", "localhost"], ["X-A", "b"]]);
  assert.equal(parsed.head.keepAlive, true);
  assert.equal(parsed.head.contentLength, 0);
  assert.equal(parsed.headLength, text.indexOf("rest"));
  assert.equal(parseRequestHead(bytes("GET / HTTP/1.1\r\nHost: x\r\n")), null);
});

Deno.test("RequestReader handles requests split across reads", async (t) => {
  const text = "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n\r\nhello world";
  await t.step("one byte at a time", () => {
    const reader = new RequestReader();
    const raw = bytes(text);
    for (let i = 0; i < raw.length - 1; i++) {
      reader.push(raw.subarray(i, i + 1));
      assert.equal(reader.next(), null);
    }
    reader.push(raw.subarray(raw.length - 1));
    const request = reader.next();
    assert.ok(request);
    assert.equal(decoder.decode(request.body), "hello world");
    assert.equal(reader.buffered, 0);
  });
  await t.step("the head complete, the body pending", () => {
    const reader = new RequestReader();
    reader.push(bytes(text.slice(0, text.length - 5)));
    assert.equal(reader.next(), null);
    assert.equal(reader.pendingHead?.contentLength, 11);
    reader.push(bytes(text.slice(text.length - 5)));
    assert.equal(decoder.decode(reader.next()?.body), "hello world");
    assert.equal(reader.pendingHead, null);
  });
});

Deno.test("RequestReader returns pipelined requests in order", () => {
  const reader = new RequestReader();
  reader.push(bytes(
    "GET /a HTTP/1.1\r\nHost: x\r\n\r\n" +
      "POST /b HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc" +
      "GET /c HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\nGET /d",
  ));
  assert.equal(reader.next()?.head.target, "/a");
  const b = reader.next();
  assert.equal(b?.head.target, "/b");
  assert.equal(decoder.decode(b?.body), "abc");
  const c = reader.next();
  assert.equal(c?.head.target, "/c");
  assert.equal(c?.head.keepAlive, false);
  assert.equal(reader.next(), null);
  assert.equal(reader.buffered, 6);
});

Deno.test("RequestReader uses a whole chunk in place, and copies what is left before a reread", () => {
  // The connection loop reads into one buffer again once next() returns null.
  const chunk = bytes(
    "POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nhiGET /b HTTP/1.1\r\nHo",
  );
  const reader = new RequestReader();
  reader.push(chunk);
  const a = reader.next();
  assert.equal(a?.head.target, "/a");
  assert.equal(reader.next(), null);
  chunk.fill(0); // The caller reuses its buffer.
  assert.equal(decoder.decode(a?.body), "hi", "a body is the request's own copy");
  reader.push(bytes("st: x\r\n\r\n"));
  assert.equal(reader.next()?.head.target, "/b");
});

Deno.test("RequestReader reads a header with bytes beyond ASCII as ISO-8859-1", () => {
  const reader = new RequestReader();
  reader.push(
    new Uint8Array([
      ...bytes("GET / HTTP/1.1\r\nHost: x\r\nX-Name: "),
      0x80,
      0xe9,
      ...bytes("\r\n\r\n"),
    ]),
  );
  const request = reader.next();
  assert.equal(request?.head.headers[1][1], "\u0080\u00e9");
});

Deno.test("RequestReader reads a POST without Content-Length as an empty body", () => {
  const reader = new RequestReader();
  reader.push(bytes("POST /x HTTP/1.1\r\nHost: x\r\n\r\nGET /y HTTP/1.1\r\nHost: x\r\n\r\n"));
  const post = reader.next();
  assert.equal(post?.body.length, 0);
  assert.equal(reader.next()?.head.target, "/y");
});

Deno.test("RequestReader consumes a GET body so it is not read as the next request", () => {
  const reader = new RequestReader();
  reader.push(
    bytes("GET /x HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\nJUNKGET /y HTTP/1.1\r\n"),
  );
  assert.equal(reader.next()?.head.target, "/x");
  assert.equal(reader.next(), null);
  assert.equal(reader.buffered, bytes("GET /y HTTP/1.1\r\n").length);
});

Deno.test("RequestReader refuses bad request lines with 400 or 505", () => {
  refused("GET /\r\nHost: x\r\n\r\n", 400, "invalid_request");
  refused("GET  / HTTP/1.1\r\nHost: x\r\n\r\n", 400);
  refused("G(T / HTTP/1.1\r\nHost: x\r\n\r\n", 400);
  refused("GET / HTTX/1.1\r\nHost: x\r\n\r\n", 400);
  refused("GET / HTTP/2.0\r\nHost: x\r\n\r\n", 505, "http_version_not_supported");
  refused("GET * HTTP/1.1\r\nHost: x\r\n\r\n", 400);
  refused("GET /caf\u00e9 HTTP/1.1\r\nHost: x\r\n\r\n", 400);
  refused("GET / HTTP/1.1\nHost: x\n\n", 400);
  refused("GET / HTTP/1.1\rHost: x\r\n\r\n", 400);
});

Deno.test("RequestReader accepts an absolute-form target as its path", () => {
  const reader = new RequestReader();
  reader.push(bytes("GET http://localhost/api/v1/health?a=b HTTP/1.1\r\nHost: localhost\r\n\r\n"));
  assert.equal(reader.next()?.head.target, "/api/v1/health?a=b");
});

Deno.test("RequestReader refuses malformed fields with 400", () => {
  refused("GET / HTTP/1.1\r\n\r\n", 400); // no Host in 1.1
  refused("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400);
  refused("GET / HTTP/1.1\r\nHost: x\r\nX-A: 1\r\n  folded\r\n\r\n", 400);
  refused("GET / HTTP/1.1\r\nHost : x\r\n\r\n", 400);
  refused("GET / HTTP/1.1\r\nHost: x\r\nX-A: a\u0001b\r\n\r\n", 400);
  refused("GET / HTTP/1.1\r\nHost: x\r\nX-A: a\0b\r\n\r\n", 400);
  refused("GET / HTTP/1.1\r\nHost: x\r\nno colon\r\n\r\n", 400);
  const http10 = new RequestReader();
  http10.push(bytes("GET / HTTP/1.0\r\n\r\n"));
  assert.equal(http10.next()?.head.version, "1.0");
});

Deno.test("RequestReader bounds the head: 414 for the request line, 431 for the fields", () => {
  refused(
    `GET /${"a".repeat(DEFAULT_LIMITS.maxRequestLineBytes)} HTTP/1.1\r\n`,
    414,
    "uri_too_long",
  );
  refused(`GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${"b".repeat(17 * 1024)}`, 431, "headers_too_large");
  const many = Array.from({ length: 101 }, (_, i) => `X-${i}: v\r\n`).join("");
  refused(`GET / HTTP/1.1\r\nHost: x\r\n${many}\r\n`, 431, "headers_too_large");
  refused("\r\n".repeat(9000), 431);
});

Deno.test("RequestReader checks Content-Length and Transfer-Encoding", () => {
  const head = "POST / HTTP/1.1\r\nHost: x\r\n";
  refused(`${head}Content-Length: abc\r\n\r\n`, 400);
  refused(`${head}Content-Length: -1\r\n\r\n`, 400);
  refused(`${head}Content-Length: 3\r\nContent-Length: 4\r\n\r\n`, 400);
  refused(`${head}Content-Length: ${1024 * 1024 + 1}\r\n\r\n`, 413, "payload_too_large");
  refused(`${head}Content-Length: 99999999999999999999\r\n\r\n`, 413);
  refused(`${head}Transfer-Encoding: chunked\r\n\r\n`, 411, "length_required");
  refused(`${head}Transfer-Encoding: gzip\r\n\r\n`, 501);
  refused(`${head}Transfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n`, 400);
  const same = new RequestReader();
  same.push(bytes(`${head}Content-Length: 3, 3\r\nContent-Length: 3\r\n\r\nabc`));
  assert.equal(decoder.decode(same.next()?.body), "abc");
});

Deno.test("RequestReader reads Connection and Expect", () => {
  const read = (text: string) => parseRequestHead(bytes(text))?.head;
  assert.equal(read("GET / HTTP/1.1\r\nHost: x\r\n\r\n")?.keepAlive, true);
  assert.equal(read("GET / HTTP/1.1\r\nHost: x\r\nConnection: Close\r\n\r\n")?.keepAlive, false);
  assert.equal(read("GET / HTTP/1.0\r\n\r\n")?.keepAlive, false);
  assert.equal(read("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")?.keepAlive, true);
  assert.equal(
    read("POST / HTTP/1.1\r\nHost: x\r\nExpect: 100-Continue\r\n\r\n")?.expectContinue,
    true,
  );
  refused("POST / HTTP/1.1\r\nHost: x\r\nExpect: magic\r\n\r\n", 417);
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

Deno.test("toRequest() builds the URL on Host (or an absolute target) and drops GET bodies", async () => {
  const reader = new RequestReader();
  reader.push(
    bytes(
      "POST /api/v1/echo?q=1 HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}",
    ),
  );
  const parsed = reader.next()!;
  const request = toRequest(parsed.head, parsed.body);
  assert.equal(request.url, "http://x/api/v1/echo?q=1");
  assert.equal(request.headers.get("content-type"), "application/json");
  assert.equal(await request.text(), "{}");
  const get = toRequest({ ...parsed.head, method: "GET" }, parsed.body);
  assert.equal(get.body, null);
  const absolute = toRequest({ ...parsed.head, authority: "evil.example:80" }, parsed.body);
  assert.equal(absolute.url, "http://evil.example/api/v1/echo?q=1");
  const noHost = toRequest({ ...parsed.head, headers: [] }, parsed.body);
  assert.equal(noHost.url, "http://localhost/api/v1/echo?q=1");
  assert.throws(() => toRequest({ ...parsed.head, headers: [["Host", "a b"]] }, parsed.body));
});

Deno.test("RequestReader skips an oversized body when asked, so the route refuses it (issue 13)", () => {
  const reader = new RequestReader({
    ...DEFAULT_LIMITS,
    maxBodyBytes: 10,
    skipOversizedBodies: true,
  });
  reader.push(bytes("POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 50\r\n\r\n0123456789"));
  const parsed = reader.next()!;
  assert.equal(parsed.head.bodySkipped, true);
  assert.equal(parsed.head.keepAlive, false);
  assert.equal(parsed.body.length, 0);
  assert.equal(reader.buffered, 0);
});

/** An in-memory connection: `incoming` chunks are read in order, then end of stream. */
class FakeDuplex implements ByteDuplex {
  readonly out: Uint8Array[] = [];
  readonly #incoming: Array<Uint8Array | "pause">;
  #pendingRead: ((value: number | null) => void) | null = null;
  cancelled = 0;

  constructor(incoming: Array<string | "pause">) {
    this.#incoming = incoming.map((chunk) => chunk === "pause" ? chunk : bytes(chunk));
  }

  read(into: Uint8Array): Promise<number | null> {
    const next = this.#incoming.shift();
    if (next === undefined) return Promise.resolve(null);
    if (next === "pause") return new Promise((resolve) => this.#pendingRead = resolve);
    into.set(next);
    return Promise.resolve(next.length);
  }

  write(chunk: Uint8Array): Promise<void> {
    this.out.push(chunk.slice());
    return Promise.resolve();
  }

  cancelRead(): void {
    this.cancelled++;
    this.#pendingRead?.(null);
    this.#pendingRead = null;
  }

  get text(): string {
    return this.out.map((p) => decoder.decode(p)).join("");
  }
}

const echoHandler = async (req: Request) =>
  Response.json({ method: req.method, path: new URL(req.url).pathname, body: await req.text() });

Deno.test("serveHttp1Connection() answers pipelined requests in order", async () => {
  const conn = new FakeDuplex([
    "GET /one HTTP/1.1\r\nHost: x\r\n\r\nPOST /two HTTP/1.1\r\nHo",
    "st: x\r\nContent-Length: 2\r\n\r\nhi",
    "GET /three HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\nGET /never HTTP/1.1\r\n",
  ]);
  await serveHttp1Connection(conn, echoHandler);
  const text = conn.text;
  const paths = [...text.matchAll(/"path":"([^"]+)"/g)].map((m) => m[1]);
  assert.deepEqual(paths, ["/one", "/two", "/three"]);
  assert.match(text, /"body":"hi"/);
  assert.equal(text.match(/connection: close/g)?.length, 1);
});

Deno.test("serveHttp1Connection() answers an unframeable request, then closes", async () => {
  const conn = new FakeDuplex([
    "GET /ok HTTP/1.1\r\nHost: x\r\n\r\n",
    "POST /x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
    "GET /after HTTP/1.1\r\nHost: x\r\n\r\n",
  ]);
  await serveHttp1Connection(conn, echoHandler);
  assert.match(conn.text, /^HTTP\/1\.1 200 OK/);
  assert.match(conn.text, /HTTP\/1\.1 411 Length Required\r\n/);
  assert.doesNotMatch(conn.text, /\/after/);
});

Deno.test("serveHttp1Connection() sends 100 Continue before reading an expected body", async () => {
  const conn = new FakeDuplex([
    "POST /up HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n",
    "he",
    "llo",
  ]);
  await serveHttp1Connection(conn, echoHandler);
  assert.ok(conn.text.startsWith("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n"));
  assert.equal(conn.text.match(/100 Continue/g)?.length, 1);
  assert.match(conn.text, /"body":"hello"/);
});

Deno.test("serveHttp1Connection() turns a throwing handler into a 500 envelope", async () => {
  const conn = new FakeDuplex(["GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"]);
  await serveHttp1Connection(conn, () => Promise.reject(new Error("secret stack")));
  assert.match(conn.text, /^HTTP\/1\.1 500 Internal Server Error/);
  assert.match(conn.text, /"code":"internal_error"/);
  assert.doesNotMatch(conn.text, /secret stack/);
});

const SHORT = { headerMs: 30, bodyMs: 30, idleMs: 20 };

Deno.test("serveHttp1Connection() ends an idle connection after the idle timeout, silently", async () => {
  const conn = new FakeDuplex(["GET / HTTP/1.1\r\nHost: x\r\n\r\n", "pause"]);
  await serveHttp1Connection(conn, echoHandler, { timeouts: SHORT });
  assert.equal(conn.cancelled, 1);
  assert.match(conn.text, /^HTTP\/1\.1 200 OK/);
  assert.doesNotMatch(conn.text, /408/);
});

Deno.test("serveHttp1Connection() closes a connection that sends nothing after the head timeout", async () => {
  const conn = new FakeDuplex(["pause"]);
  const started = Date.now();
  await serveHttp1Connection(conn, echoHandler, { timeouts: { ...SHORT, idleMs: 60_000 } });
  assert.ok(Date.now() - started < 5_000, "not the idle timeout");
  assert.equal(conn.cancelled, 1);
  assert.equal(conn.text, "", "silently");
});

Deno.test("serveHttp1Connection() answers 408 to a head or body that stalls (issue 13)", async () => {
  const head = new FakeDuplex(["GET / HTTP/1.1\r\nHo", "pause"]);
  await serveHttp1Connection(head, echoHandler, { timeouts: SHORT });
  assert.match(head.text, /^HTTP\/1\.1 408 Request Timeout/);
  assert.match(head.text, /"code":"request_timeout"/);
  assert.match(head.text, /head did not arrive within 30 ms/);
  const body = new FakeDuplex([
    "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 9\r\n\r\nabc",
    "pause",
  ]);
  await serveHttp1Connection(body, echoHandler, { timeouts: SHORT });
  assert.match(body.text, /^HTTP\/1\.1 408 Request Timeout/);
  assert.match(body.text, /body did not arrive within 30 ms/);
});

Deno.test("serveHttp1Connection() bounds a head by its total time, not per read (slowloris)", async () => {
  // One byte every 10 ms never lets a single read time out; the head's deadline still holds.
  const drip = Array.from("GET / HTTP/1.1\r\nHost: x\r\nX-Slow: " + "a".repeat(200), (c) => c);
  const conn = new FakeDuplex(drip);
  const slowed: ByteDuplex = {
    read: async (into) => {
      await new Promise((resolve) => setTimeout(resolve, 10));
      return conn.read(into);
    },
    write: (bytes) => conn.write(bytes),
    cancelRead: () => conn.cancelRead(),
  };
  const started = Date.now();
  await serveHttp1Connection(slowed, echoHandler, { timeouts: { ...SHORT, headerMs: 100 } });
  assert.ok(Date.now() - started < 1000, "the drip was cut");
  assert.match(conn.text, /^HTTP\/1\.1 408 Request Timeout/);
});

Deno.test("serveHttp1Connection() never bounds a handler's own time, only reads", async () => {
  const conn = new FakeDuplex([
    "GET /slow HTTP/1.1\r\nHost: x\r\n\r\n",
    "GET /next HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
  ]);
  await serveHttp1Connection(conn, async (req) => {
    // Longer than every timeout: a long-poll must not be cut.
    if (req.url.endsWith("/slow")) await new Promise((resolve) => setTimeout(resolve, 120));
    return echoHandler(req);
  }, { timeouts: SHORT });
  const paths = [...conn.text.matchAll(/"path":"([^"]+)"/g)].map((m) => m[1]);
  assert.deepEqual(paths, ["/slow", "/next"]);
  assert.doesNotMatch(conn.text, /408/);
});

Deno.test("serveHttp1Connection() closes after the current response when stopping", async () => {
  let stopping = false;
  const conn = new FakeDuplex([
    "GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n",
  ]);
  await serveHttp1Connection(conn, (req) => {
    stopping = true;
    return echoHandler(req);
  }, { isStopping: () => stopping });
  assert.match(conn.text, /connection: close/);
  assert.doesNotMatch(conn.text, /"\/b"/);
});

Deno.test("serveHttp1Connection() interoperates with Deno's fetch and node:http clients", async () => {
  const dir = await tempHome();
  const path = `${dir}/framing.sock`;
  const big = "é".repeat(150_000);
  const server = serveOnSocket(path, async (req) => {
    const url = new URL(req.url);
    if (url.pathname === "/big") return new Response(big);
    return Response.json({ method: req.method, body: await req.text() });
  });
  const client = Deno.createHttpClient({ proxy: { transport: "unix", path } });
  try {
    for (let i = 0; i < 3; i++) {
      const response = await fetch("http://localhost/echo", {
        client,
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ i }),
      });
      assert.deepEqual(await response.json(), { method: "POST", body: `{"i":${i}}` });
    }
    const large = await fetch("http://localhost/big", { client });
    assert.equal(await large.text(), big);
    const viaNode = await new Promise<string>((resolve, reject) => {
      const req = nodeRequest(
        { socketPath: path, path: "/echo", method: "PUT", agent: false },
        (res) => {
          let text = "";
          res.setEncoding("utf8");
          res.on("data", (chunk) => text += chunk);
          res.on("end", () => resolve(text));
        },
      );
      req.on("error", reject);
      req.end("from node");
    });
    assert.deepEqual(JSON.parse(viaNode), { method: "PUT", body: "from node" });
  } finally {
    client.close();
    await server.close();
    await removeTree(dir);
  }
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
