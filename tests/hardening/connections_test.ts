/**
 * Both listeners, the TCP one and the owner's Unix socket, bound
 * connections and their time (issue 13): past 512 open connections one more
 * is refused 503 at once and the daemon stays up; a head that never ends is
 * answered 408; a request the framing cannot take is answered in the JSON
 * envelope; a flood of idle connections costs nothing once they close.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { freePort, startTestDaemon } from "../helpers/daemon.ts";
import { httpRequest, rawHttp } from "../helpers/http.ts";

async function readAll(conn: Deno.Conn, timeoutMs: number): Promise<string> {
  const chunks: string[] = [];
  const buffer = new Uint8Array(4096);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const read = await Promise.race([
      conn.read(buffer),
      new Promise<"late">((resolve) => setTimeout(() => resolve("late"), deadline - Date.now())),
    ]);
    if (read === "late" || read === null) break;
    chunks.push(new TextDecoder().decode(buffer.subarray(0, read)));
  }
  return chunks.join("");
}

/** A daemon with both listeners, and how to reach each. */
async function daemonWithBoth() {
  const port = freePort();
  const t = await startTestDaemon({ tcp: { hostname: "127.0.0.1", port } });
  const transports = {
    tcp: {
      connect: { hostname: "127.0.0.1", port } as Deno.ConnectOptions,
      host: `127.0.0.1:${port}`,
    },
    socket: {
      connect: { transport: "unix", path: join(t.home, "svc.sock") } as Deno.UnixConnectOptions,
      host: "localhost",
    },
  };
  return { t, transports };
}

function connect(options: Deno.ConnectOptions | Deno.UnixConnectOptions): Promise<Deno.Conn> {
  return "transport" in options
    ? Deno.connect(options as Deno.UnixConnectOptions)
    : Deno.connect(options as Deno.ConnectOptions);
}

for (const name of ["tcp", "socket"] as const) {
  Deno.test(`past 512 connections on the ${name} one more is refused 503 and the daemon keeps serving`, async () => {
    const { t, transports } = await daemonWithBoth();
    await using _t = t;
    const { connect: target, host } = transports[name];
    const other = transports[name === "tcp" ? "socket" : "tcp"];
    const idle: Deno.Conn[] = [];
    try {
      for (let i = 0; i < 512; i++) idle.push(await connect(target));
      await new Promise((resolve) => setTimeout(resolve, 200)); // Accepted and counted.
      const extra = await connect(target);
      const refusal = await readAll(extra, 5000);
      extra.close();
      assert.match(refusal, /^HTTP\/1\.1 503 /);
      assert.match(refusal, /"code":"too_many_connections"/);
      assert.match(refusal, /svc-instance: /i);
      // The other listener is not affected.
      const health = await rawHttp(
        other.connect,
        httpRequest("GET", "/api/v1/health", { host: other.host }),
      );
      assert.equal(health.status, 200);
    } finally {
      for (const conn of idle) conn.close();
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    const health = await rawHttp(target, httpRequest("GET", "/api/v1/health", { host }));
    assert.equal(health.status, 200, "served again once they closed");
  });

  Deno.test(`malformed requests on the ${name} are answered in the JSON envelope`, async () => {
    const { t, transports } = await daemonWithBoth();
    await using _t = t;
    const { connect: target, host } = transports[name];
    const cases: Array<[string, number, string]> = [
      ["GARBAGE\r\n\r\n", 400, "invalid_request"],
      [`GET /api/v1/health HTTP/2.0\r\nHost: ${host}\r\n\r\n`, 505, "http_version_not_supported"],
      ["GET /api/v1/health HTTP/1.1\r\n\r\n", 400, "invalid_request"],
      [`GET /api/v1/health HTTP/1.1\r\nHost: ${host}\nX: y\r\n\r\n`, 400, "invalid_request"],
      [
        `POST /api/v1/actions HTTP/1.1\r\nHost: ${host}\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n`,
        400,
        "invalid_request",
      ],
      [`GET /${"a".repeat(20_000)} HTTP/1.1\r\nHost: ${host}\r\n\r\n`, 414, "uri_too_long"],
    ];
    // In parallel: each refusal lingers up to 2 s for what the client still sends.
    await Promise.all(cases.map(async ([request, status, code]) => {
      const answer = await rawHttp(target, request);
      assert.equal(answer.status, status, request.slice(0, 60));
      assert.equal((answer.body as { error: { code: string } }).error.code, code);
      assert.ok(answer.headers.get("svc-instance"), "the refusal names the instance");
    }));
  });
}

Deno.test("a request head that never ends is answered 408 after 10 s, on both listeners", async () => {
  const { t, transports } = await daemonWithBoth();
  await using _t = t;
  await Promise.all(
    Object.values(transports).map(async ({ connect: target, host }) => {
      const conn = await connect(target);
      try {
        await conn.write(
          new TextEncoder().encode(`GET /api/v1/health HTTP/1.1\r\nHost: ${host}\r\n`),
        );
        const started = Date.now();
        const answer = await readAll(conn, 15_000);
        const waited = Date.now() - started;
        assert.match(answer, /^HTTP\/1\.1 408 /);
        assert.match(answer, /"code":"request_timeout"/);
        assert.ok(waited >= 9_000 && waited < 14_000, `${waited} ms`);
      } finally {
        conn.close();
      }
    }),
  );
});
