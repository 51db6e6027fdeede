import assert from "node:assert/strict";
import { request as nodeRequest } from "node:http";
import { type ByteDuplex, serveHttp1Connection } from "../../src/transport/http1_connection.ts";
import { removeTree, tempHome } from "../helpers/home.ts";
import { serveOnSocket } from "../helpers/http1_socket.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const bytes = (text: string) => encoder.encode(text);

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
    "POST /x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
    "GET /after HTTP/1.1\r\nHost: x\r\n\r\n",
  ]);
  await serveHttp1Connection(conn, echoHandler);
  assert.match(conn.text, /^HTTP\/1\.1 200 OK/);
  assert.match(conn.text, /HTTP\/1\.1 400 Bad Request\r\n/);
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

Deno.test("serveHttp1Connection() puts its responseHeaders on every answer, refusals too (D5)", async () => {
  const conn = new FakeDuplex([
    "GET /one HTTP/1.1\r\nHost: x\r\n\r\nGET /two HTTP/1.1\r\nHost: x\r\n\r\nBAD\r\n\r\n",
  ]);
  await serveHttp1Connection(conn, echoHandler, { responseHeaders: { "svc-instance": "i-1" } });
  const answers = conn.text.split(/(?=HTTP\/1\.1 )/);
  assert.deepEqual(answers.map((answer) => answer.slice(0, 12)), [
    "HTTP/1.1 200",
    "HTTP/1.1 200",
    "HTTP/1.1 400",
  ]);
  for (const answer of answers) assert.match(answer, /\r\nsvc-instance: i-1\r\n/);
});

Deno.test("serveHttp1Connection() turns a throwing handler into a 500 envelope", async () => {
  const conn = new FakeDuplex(["GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"]);
  await serveHttp1Connection(conn, () => Promise.reject(new Error("secret stack")));
  assert.match(conn.text, /^HTTP\/1\.1 500 Internal Server Error/);
  assert.match(conn.text, /"code":"internal_error"/);
  assert.doesNotMatch(conn.text, /secret stack/);
  // A synchronous handler is answered without a promise of its own, and its throw is a 500 too.
  const sync = new FakeDuplex([
    "GET / HTTP/1.1\r\nHost: x\r\n\r\nGET /boom HTTP/1.1\r\nHost: x\r\n\r\n",
  ]);
  await serveHttp1Connection(sync, (req) => {
    if (req.url.endsWith("/boom")) throw new Error("secret stack");
    return new Response("fine");
  });
  assert.match(
    sync.text,
    /^HTTP\/1\.1 200 OK[\s\S]*fine[\s\S]*HTTP\/1\.1 500 Internal Server Error/,
  );
  assert.doesNotMatch(sync.text, /secret stack/);
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
