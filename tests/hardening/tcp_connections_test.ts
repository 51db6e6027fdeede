/**
 * The TCP listener bounds connections and their time (issue 13): past 512
 * open connections one more is refused 503 at once and the daemon stays up;
 * a head that never ends is answered 408; a flood of idle connections costs
 * nothing once they close.
 */
import assert from "node:assert/strict";
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

Deno.test("past 512 TCP connections one more is refused 503 and the daemon keeps serving", async () => {
  const port = freePort();
  await using t = await startTestDaemon({ tcp: { hostname: "127.0.0.1", port } });
  const idle: Deno.Conn[] = [];
  try {
    for (let i = 0; i < 512; i++) idle.push(await Deno.connect({ hostname: "127.0.0.1", port }));
    await new Promise((resolve) => setTimeout(resolve, 200)); // Accepted and counted.
    const extra = await Deno.connect({ hostname: "127.0.0.1", port });
    const refusal = await readAll(extra, 5000);
    extra.close();
    assert.match(refusal, /^HTTP\/1\.1 503 /);
    assert.match(refusal, /"code":"too_many_connections"/);
    assert.match(refusal, /svc-instance: /i);
    // The owner's socket is not affected.
    assert.equal((await t.client.get("/health")).status, 200);
  } finally {
    for (const conn of idle) conn.close();
  }
  await new Promise((resolve) => setTimeout(resolve, 200));
  const health = await rawHttp(
    { hostname: "127.0.0.1", port },
    httpRequest("GET", "/api/v1/health", { host: `127.0.0.1:${port}` }),
  );
  assert.equal(health.status, 200, "served again once they closed");
});

Deno.test("a TCP request head that never ends is answered 408 after 10 s", async () => {
  const port = freePort();
  await using _t = await startTestDaemon({ tcp: { hostname: "127.0.0.1", port } });
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    await conn.write(
      new TextEncoder().encode(`GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`),
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
});
