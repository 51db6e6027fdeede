/**
 * Issue 28, the HTTP layer through the real daemon: TCP streams have their
 * own pool (item 2), a TCP mutation is refused from its head before its body
 * (item 3, D23), the Host field cannot pick the route (item 10), chunked
 * bodies are read (item 11), and HEAD, method case, TRACE and zero-padded
 * lengths answer as RFC 9110/9112 say (item 12).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { tcpStreamLimit } from "../../src/api/streams.ts";
import { freePort, startTestDaemon } from "../helpers/daemon.ts";
import { httpRequest, rawHttp } from "../helpers/http.ts";

async function daemonWithTcp(configJson?: unknown) {
  const port = freePort();
  const t = await startTestDaemon({ tcp: { hostname: "127.0.0.1", port }, configJson });
  return {
    t,
    tcp: { hostname: "127.0.0.1", port } as Deno.ConnectOptions,
    tcpHost: `127.0.0.1:${port}`,
    socket: { transport: "unix", path: join(t.home, "svc.sock") } as Deno.UnixConnectOptions,
  };
}

/** Reads what arrives on `conn` until it closes or `ms` pass without a byte. */
async function readUntilQuiet(conn: Deno.Conn, ms: number): Promise<string> {
  const buffer = new Uint8Array(65536);
  let text = "";
  for (;;) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const read = await Promise.race([
      conn.read(buffer).catch(() => null),
      new Promise<"quiet">((resolve) => timer = setTimeout(() => resolve("quiet"), ms)),
    ]);
    clearTimeout(timer);
    if (read === "quiet" || read === null) return text;
    text += new TextDecoder().decode(buffer.subarray(0, read));
  }
}

async function send(conn: Deno.Conn, text: string): Promise<void> {
  const bytes = new TextEncoder().encode(text);
  for (let at = 0; at < bytes.length;) at += await conn.write(bytes.subarray(at));
}

Deno.test("issue 28 item 3: a TCP mutation is answered 403 from its head, its body never read (D23)", async (t) => {
  const { t: daemon, tcp, tcpHost } = await daemonWithTcp();
  await using _d = daemon;
  for (
    const [what, head] of [
      ["a withheld body", `POST /api/v1/sessions HTTP/1.1\r\nHost: ${tcpHost}\r\n`],
      ["a body behind Expect", `POST /api/v1/shutdown HTTP/1.1\r\nHost: ${tcpHost}\r\n`],
    ] as const
  ) {
    await t.step(what, async () => {
      const conn = await Deno.connect(tcp);
      try {
        const expect = what === "a body behind Expect" ? "Expect: 100-continue\r\n" : "";
        await send(
          conn,
          `${head}${expect}Content-Type: application/json\r\nContent-Length: 1000000\r\n\r\n`,
        );
        // Nothing more is sent: before issue 28 this waited 60 s for the body, then 408.
        const answer = await readUntilQuiet(conn, 2500);
        assert.match(answer, /^HTTP\/1\.1 403 Forbidden\r\n/);
        assert.doesNotMatch(answer, /100 Continue/);
        assert.match(answer, /"code":"forbidden"/);
        assert.match(answer, /connection: close/i);
      } finally {
        conn.close();
      }
    });
  }
  await t.step("a body over 64 KiB to the action router is 413 in the action's shape", async () => {
    const answer = await rawHttp(
      tcp,
      `POST /api/v1/actions HTTP/1.1\r\nHost: ${tcpHost}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${64 * 1024 + 1}\r\n\r\n`,
    );
    assert.equal(answer.status, 413);
    const body = answer.body as { error: { code: string }; status: string };
    assert.equal(body.error.code, "payload_too_large");
    assert.equal(body.status, "rejected");
  });
  await t.step("the diagnostics stay open over TCP", async () => {
    const body = JSON.stringify({ action: "svc.sessions.approvals" });
    const answer = await rawHttp(
      tcp,
      httpRequest("POST", "/api/v1/actions", {
        host: tcpHost,
        headers: { "Content-Type": "application/json" },
        body,
      }),
    );
    assert.equal(answer.status, 200, answer.text);
  });
});

Deno.test("issue 28 item 2: TCP streams have their own pool; the owner's socket always has room", async () => {
  const maxStreams = 16;
  const { t: daemon, tcp, tcpHost, socket } = await daemonWithTcp({ maxStreams });
  await using _d = daemon;
  const open: Deno.Conn[] = [];
  try {
    const limit = tcpStreamLimit(maxStreams);
    for (let i = 0; i < limit; i++) {
      const conn = await Deno.connect(tcp);
      open.push(conn);
      await send(conn, `GET /api/v1/stream HTTP/1.1\r\nHost: ${tcpHost}\r\n\r\n`);
      assert.match(await readUntilQuiet(conn, 300), /^HTTP\/1\.1 200 OK/);
    }
    const refused = await rawHttp(tcp, httpRequest("GET", "/api/v1/stream", { host: tcpHost }));
    assert.equal(refused.status, 503);
    assert.equal((refused.body as { error: { code: string } }).error.code, "too_many_streams");
    // The owner's streams are counted apart: all of maxStreams are there.
    for (let i = 0; i < maxStreams; i++) {
      const conn = await Deno.connect(socket);
      open.push(conn);
      await send(conn, "GET /api/v1/stream HTTP/1.1\r\nHost: localhost\r\n\r\n");
      assert.match(await readUntilQuiet(conn, 300), /^HTTP\/1\.1 200 OK/, `owner stream ${i}`);
    }
  } finally {
    for (const conn of open) conn.close();
  }
});

Deno.test("issue 28 item 10: the Host field cannot pick the route on the owner's socket", async () => {
  const { t: daemon, socket } = await daemonWithTcp();
  await using _d = daemon;
  for (const host of ["x/api/v1/actions?", "x?y", "x#y", "user@x", "x/"]) {
    const answer = await rawHttp(
      socket,
      `POST /api/v1/health HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\n` +
        `Content-Length: 37\r\n\r\n{"action":"svc.automations.health"}\r\n`,
    );
    assert.equal(answer.status, 400, host);
    assert.equal((answer.body as { error: { code: string } }).error.code, "invalid_request");
  }
});

Deno.test("issue 28 item 11: chunked request bodies are read, bounded and never smuggled", async (t) => {
  const { t: daemon, socket } = await daemonWithTcp();
  await using _d = daemon;
  const head = "POST /api/v1/actions HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n" +
    "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n";
  await t.step("a body in chunks, with extensions and trailers", async () => {
    const body = JSON.stringify({ action: "svc.sessions.approvals" });
    const chunks = [body.slice(0, 10), body.slice(10)].map((part) =>
      `${part.length.toString(16)};name="v"\r\n${part}\r\n`
    ).join("");
    const answer = await rawHttp(socket, `${head}${chunks}0\r\nX-Trailer: 1\r\n\r\n`);
    assert.equal(answer.status, 200, answer.text);
  });
  await t.step("over 1 MiB → 413 payload_too_large", async () => {
    const answer = await rawHttp(socket, `${head}100001\r\n`);
    assert.equal(answer.status, 413);
    assert.equal((answer.body as { error: { code: string } }).error.code, "payload_too_large");
  });
  await t.step("Content-Length with Transfer-Encoding → 400", async () => {
    const answer = await rawHttp(
      socket,
      head.replace("\r\n\r\n", "\r\nContent-Length: 5\r\n\r\n") + "0\r\n\r\n",
    );
    assert.equal(answer.status, 400);
  });
  await t.step("a bad chunk size → 400, and no second request is read from it", async () => {
    const answer = await rawHttp(
      socket,
      `${head}zz\r\nGET /api/v1/health HTTP/1.1\r\nHost: localhost\r\n\r\n`,
    );
    assert.equal(answer.status, 400);
    assert.doesNotMatch(answer.text, /"ok":true/);
  });
});

Deno.test("issue 28 item 12: HEAD lengths, method case, TRACE and zero-padded lengths", async (t) => {
  const { t: daemon, socket } = await daemonWithTcp();
  await using _d = daemon;
  await t.step("HEAD states the GET answer's length", async () => {
    const get = await rawHttp(socket, httpRequest("GET", "/api/v1/openapi.json"));
    const head = await rawHttp(socket, httpRequest("HEAD", "/api/v1/openapi.json"));
    assert.equal(get.status, 200);
    assert.equal(head.status, 200);
    assert.equal(head.text, "");
    assert.equal(
      head.headers.get("content-length"),
      String(new TextEncoder().encode(get.text).length),
    );
  });
  await t.step("methods are case-sensitive: get is not GET", async () => {
    const answer = await rawHttp(socket, httpRequest("get", "/api/v1/health"));
    assert.equal(answer.status, 501);
    assert.equal((answer.body as { error: { code: string } }).error.code, "not_implemented");
  });
  await t.step("TRACE is not served", async () => {
    const answer = await rawHttp(socket, httpRequest("TRACE", "/api/v1/health"));
    assert.equal(answer.status, 501);
  });
  await t.step("Content-Length: 000…02 is 2", async () => {
    const answer = await rawHttp(
      socket,
      "POST /api/v1/actions HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n" +
        "Content-Type: application/json\r\nContent-Length: 0000000000000000000000002\r\n\r\n{}",
    );
    assert.equal(answer.status, 400);
    assert.match(answer.text, /action/i, "the body was read and the action is missing");
  });
});
