import assert from "node:assert/strict";
import { DEFAULT_LIMITS, FramingError } from "../../src/transport/http1_errors.ts";
import { parseRequestHead, RequestReader, toRequest } from "../../src/transport/http1_request.ts";

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
  refused(`${head}Transfer-Encoding: gzip\r\n\r\n`, 400);
  refused(`${head}Transfer-Encoding: gzip, chunked\r\n\r\n`, 501);
  refused("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", 400);
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
  const noHost = toRequest({ ...parsed.head, host: null }, parsed.body);
  assert.equal(noHost.url, "http://localhost/api/v1/echo?q=1");
  for (const host of ["[zz]", "a%zz"]) {
    assert.throws(
      () => toRequest({ ...parsed.head, host }, parsed.body),
      (error: Error) =>
        error.message === `Host "${host}" is not a valid host` &&
        (error as { status?: number }).status === 400,
    );
  }
});

Deno.test("toRequest() hands on every served method, its fields in order and its body (issue 26)", async (t) => {
  // Each way a request is made: GET without an init, a bodiless method with one, a body with one.
  const cases: Array<[string, string, string | null]> = [
    ["GET /a HTTP/1.1\r\nHost: x\r\nAccept: */*\r\nX-A: 1\r\nX-A: 2\r\n\r\n", "GET", null],
    ["HEAD /a HTTP/1.1\r\nHost: x\r\nX-A: 1\r\n\r\n", "HEAD", null],
    ["DELETE /a HTTP/1.1\r\nHost: x\r\nX-A: 1\r\n\r\n", "DELETE", null],
    ["OPTIONS /a HTTP/1.1\r\nHost: x\r\nX-A: 1\r\n\r\n", "OPTIONS", null],
    ["POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nX-A: 1\r\n\r\n", "POST", null],
    ["PUT /a HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nX-A: 1\r\n\r\nhi", "PUT", "hi"],
    ["PATCH /a HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nX-A: 1\r\n\r\n{}", "PATCH", "{}"],
    [`${CHUNKED}2\r\nhi\r\n0\r\n\r\n`, "POST", "hi"],
  ];
  for (const [raw, method, body] of cases) {
    await t.step(raw.split("\r\n")[0], async () => {
      const parsed = readIn(raw);
      assert.ok(parsed && !(parsed instanceof FramingError));
      const request = toRequest(parsed.head, parsed.body);
      assert.equal(request.method, method);
      // The fields as they came (a repeated one joined, RFC 9110 §5.3), none added.
      const expected = new Headers(
        parsed.head.headers.filter(([name]) => name.toLowerCase() !== "transfer-encoding") as Array<
          [string, string]
        >,
      );
      if (parsed.head.chunked) expected.set("content-length", String(parsed.body.length));
      assert.deepEqual([...request.headers], [...expected]);
      assert.equal(request.headers.get("content-type"), null);
      if (body === null) assert.equal(request.body, null);
      else assert.equal(await request.text(), body);
    });
  }
  await t.step("an ISO-8859-1 field value is kept as its characters", () => {
    const reader = new RequestReader();
    reader.push(bytes("GET /a HTTP/1.1\r\nHost: x\r\nX-Name: caf"));
    reader.push(new Uint8Array([0xe9])); // é in ISO-8859-1
    reader.push(bytes("\r\n\r\n"));
    const parsed = reader.next()!;
    assert.equal(toRequest(parsed.head, parsed.body).headers.get("x-name"), "caf\u00e9");
  });
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

/** Feeds `text` to a reader in pieces of `step` bytes; the request, or the FramingError thrown. */
function readIn(text: string, step = Infinity, limits = DEFAULT_LIMITS) {
  const reader = new RequestReader(limits);
  const raw = bytes(text);
  try {
    for (let at = 0; at < raw.length; at += step) {
      reader.push(raw.slice(at, Math.min(raw.length, at + step)));
      const request = reader.next();
      if (request) return request;
    }
    return null;
  } catch (error) {
    if (error instanceof FramingError) return error;
    throw error;
  }
}

const CHUNKED = "POST /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n";

Deno.test("RequestReader decodes chunked bodies, whole or a byte at a time (issue 28 item 11)", async (t) => {
  const cases: Array<[string, string]> = [
    ["5\r\nhello\r\n0\r\n\r\n", "hello"],
    ["5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n", "hello world"],
    ["0005\r\nhello\r\n000\r\n\r\n", "hello"],
    ["a\r\n0123456789\r\n0\r\n\r\n", "0123456789"],
    ["A\r\n0123456789\r\n0\r\n\r\n", "0123456789"],
    ["5;ext\r\nhello\r\n0\r\n\r\n", "hello"],
    ['5 ; a=b ;c="q;\\"x"\r\nhello\r\n0;last\r\n\r\n', "hello"],
    ["5\r\nhello\r\n0\r\nX-Trailer: 1\r\nY: 2\r\n\r\n", "hello"],
    ["0\r\n\r\n", ""],
  ];
  for (const [body, expected] of cases) {
    await t.step(JSON.stringify(body), () => {
      for (const step of [Infinity, 1, 3]) {
        const request = readIn(CHUNKED + body, step);
        assert.ok(request && !(request instanceof FramingError), `step ${step}`);
        assert.equal(decoder.decode(request.body), expected);
        assert.equal(request.head.contentLength, expected.length);
        const built = toRequest(request.head, request.body);
        assert.equal(built.headers.get("transfer-encoding"), null);
        assert.equal(built.headers.get("content-length"), String(expected.length));
      }
    });
  }
  await t.step("the request after a chunked body is read as the next one", () => {
    const reader = new RequestReader();
    reader.push(bytes(`${CHUNKED}2\r\nhi\r\n0\r\n\r\nGET /next HTTP/1.1\r\nHost: x\r\n\r\n`));
    assert.equal(decoder.decode(reader.next()?.body), "hi");
    assert.equal(reader.next()?.head.target, "/next");
  });
});

Deno.test("RequestReader refuses malformed or oversized chunked bodies (issue 28 item 11)", async (t) => {
  const small = { ...DEFAULT_LIMITS, maxBodyBytes: 10 };
  const cases: Array<[string, string, number, typeof DEFAULT_LIMITS?]> = [
    ["no size", "\r\nhello\r\n0\r\n\r\n", 400],
    ["a size that is not hex", "zz\r\n", 400],
    ["a negative size", "-5\r\nhello\r\n0\r\n\r\n", 400],
    ["a size with a sign", "+5\r\nhello\r\n0\r\n\r\n", 400],
    ["data longer than its size", "3\r\nhello\r\n0\r\n\r\n", 400],
    ["a bare LF after the size", "5\nhello\r\n0\r\n\r\n", 400],
    ["a bare LF after the data", "5\r\nhello\n0\r\n\r\n", 400],
    ["a bare CR", "5\rhello\r\n", 400],
    ["a NUL in the size line", "5\0\r\nhello\r\n", 400],
    ["a malformed extension", "5;=x\r\nhello\r\n", 400],
    ["an unterminated quoted extension", '5;a="x\r\nhello\r\n', 400],
    ["a size line over 1 KiB", `5;${"a".repeat(2000)}\r\n`, 400],
    ["a size line over 1 KiB still arriving", `5;${"a".repeat(2000)}`, 400],
    ["a malformed trailer", "0\r\nno colon\r\n\r\n", 400],
    ["a folded trailer", "0\r\nX: a\r\n b\r\n\r\n", 400],
    ["trailers over the head bound", `0\r\nX: ${"b".repeat(17 * 1024)}\r\n\r\n`, 431],
    ["too many trailers", `0\r\n${"X: v\r\n".repeat(101)}\r\n`, 431],
    ["a body over the limit", "6\r\nhello \r\n6\r\nworld!\r\n0\r\n\r\n", 413, small],
    ["a size far over the limit", "ffffffffffffffffffff\r\n", 413],
  ];
  for (const [name, body, status, limits] of cases) {
    await t.step(name, () => {
      for (const step of [Infinity, 1]) {
        const result = readIn(CHUNKED + body, step, limits);
        assert.ok(result instanceof FramingError, `step ${step}: ${JSON.stringify(result)}`);
        assert.equal(result.status, status, `step ${step}: ${result.message}`);
      }
    });
  }
  await t.step("skipOversizedBodies hands the head on with the announced length", () => {
    const result = readIn(CHUNKED + "6\r\nhello \r\n64\r\n", Infinity, {
      ...small,
      skipOversizedBodies: true,
    });
    assert.ok(result && !(result instanceof FramingError));
    assert.equal(result.head.bodySkipped, true);
    assert.equal(result.head.keepAlive, false);
    assert.equal(result.head.contentLength, 106);
    assert.equal(toRequest(result.head, result.body).headers.get("content-length"), "106");
  });
});

Deno.test("RequestReader frames with Transfer-Encoding only as RFC 9112 §6 allows (issue 28 item 11)", () => {
  const head = "POST / HTTP/1.1\r\nHost: x\r\n";
  refused(`${head}Transfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n`, 400);
  refused(`${head}Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n`, 400);
  refused(`${head}Transfer-Encoding: chunked, gzip\r\n\r\n`, 400);
  refused(`${head}Transfer-Encoding: identity\r\n\r\n`, 400);
  refused(`${head}Transfer-Encoding: gzip, chunked\r\n\r\n`, 501, "not_implemented");
  refused(`${head}Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n`, 501);
  refused("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", 400);
  const listed = readIn(`${head}Transfer-Encoding: Chunked\r\n\r\n0\r\n\r\n`);
  assert.ok(listed && !(listed instanceof FramingError));
  assert.equal(listed.head.chunked, true);
});

Deno.test("RequestReader takes Host as host[:port] only (issue 28 item 10)", async (t) => {
  const head = (host: string) => `GET /api/v1/health HTTP/1.1\r\nHost: ${host}\r\n\r\n`;
  for (const host of ["localhost", "127.0.0.1:7000", "[::1]:80", "svc.local", "a-b_c~d", ""]) {
    await t.step(`accepts ${JSON.stringify(host)}`, () => {
      const request = readIn(head(host));
      assert.ok(request && !(request instanceof FramingError));
      assert.equal(request.head.host, host);
      const url = new URL(toRequest(request.head, request.body).url);
      assert.equal(url.pathname, "/api/v1/health");
      assert.equal(url.search, "");
    });
  }
  for (
    const host of [
      "x/api/v1/actions?",
      "x?y",
      "x#y",
      "user@x",
      "x/",
      "x\\y",
      "x:80:80",
      "x:port",
      "[::1",
      "a b",
      'x"y',
      "x<y>",
    ]
  ) {
    await t.step(`refuses ${JSON.stringify(host)}`, () => refused(head(host), 400));
  }
});

Deno.test("RequestReader serves methods case-sensitively and no TRACE (issue 28 item 12)", async (t) => {
  for (const method of ["GET", "HEAD", "POST", "DELETE", "PUT", "PATCH", "OPTIONS"]) {
    await t.step(`${method} is read`, () => {
      const request = readIn(`${method} / HTTP/1.1\r\nHost: x\r\n\r\n`);
      assert.ok(request && !(request instanceof FramingError));
      assert.equal(request.head.method, method);
    });
  }
  for (const method of ["get", "Get", "post", "TRACE", "CONNECT", "TRACK", "PROPFIND"]) {
    await t.step(
      `${method} is 501`,
      () => refused(`${method} / HTTP/1.1\r\nHost: x\r\n\r\n`, 501, "not_implemented"),
    );
  }
});

Deno.test("RequestReader reads zero-padded lengths by their value (issue 28 item 12)", () => {
  const head = "POST / HTTP/1.1\r\nHost: x\r\n";
  const padded = readIn(`${head}Content-Length: 0000000000000000000000002\r\n\r\nhi`);
  assert.ok(padded && !(padded instanceof FramingError));
  assert.equal(decoder.decode(padded.body), "hi");
  const agreeing = readIn(`${head}Content-Length: 2, 02\r\n\r\nhi`);
  assert.ok(agreeing && !(agreeing instanceof FramingError));
  refused(`${head}Content-Length: 00000000000000000000000000000001048577\r\n\r\n`, 413);
  refused(`${head}Content-Length: 2, 3\r\n\r\n`, 400);
});

Deno.test("RequestReader takes a trickled 1 MiB request in linear time (issue 28 item 1)", () => {
  // Before issue 28 each byte re-copied everything buffered: ~550 GB of copies for this.
  const size = 1024 * 1024;
  const reader = new RequestReader();
  reader.push(bytes(`POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: ${size}\r\n\r\n`));
  assert.equal(reader.next(), null);
  const one = new Uint8Array([120]);
  for (let i = 0; i < size - 1; i++) {
    reader.push(one);
    assert.equal(reader.next(), null);
  }
  reader.push(one);
  assert.equal(reader.next()?.body.length, size);
  // A head trickled a byte at a time is scanned once, not once per byte.
  const head = `GET /b HTTP/1.1\r\nHost: x\r\nX-Pad: ${"p".repeat(15_000)}\r\n\r\n`;
  const trickled = readIn(head, 1);
  assert.ok(trickled && !(trickled instanceof FramingError));
  assert.equal(trickled.head.target, "/b");
});
