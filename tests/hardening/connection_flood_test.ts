/**
 * The Done-when of issue 13 for connections, against a real `svc serve`:
 * 2,000 idle connections on the owner's socket, a slowloris and an
 * unfinished body. Beyond 512 connections the rest are refused at once; the
 * ones that never send are closed after 10 s, the slowloris is answered 408,
 * /health answers again, and `svc stop` exits 0 within its deadline while
 * the unfinished body is still open.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { removeTree, tempHome } from "../helpers/home.ts";
import { httpRequest, rawHttp } from "../helpers/http.ts";
import { runSvc, startServe } from "../helpers/process.ts";

const encoder = new TextEncoder();

/** Reads until the peer closes (or `ms` pass): what it sent, and whether it closed. */
async function readUntilClosed(
  conn: Deno.Conn,
  ms: number,
): Promise<{ text: string; closed: boolean }> {
  const buffer = new Uint8Array(4096);
  let text = "";
  const deadline = Date.now() + ms;
  for (;;) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const read = await Promise.race([
      conn.read(buffer).catch(() => null),
      new Promise<"late">((resolve) =>
        timer = setTimeout(() => resolve("late"), deadline - Date.now())
      ),
    ]);
    clearTimeout(timer);
    if (read === "late") return { text, closed: false };
    if (read === null) return { text, closed: true };
    text += new TextDecoder().decode(buffer.subarray(0, read));
  }
}

/**
 * Connects, retrying while the listen backlog is full (a Unix socket's connect fails at once with
 * EAGAIN then, rather than waiting, when the daemon's accept loop is behind on a busy machine).
 */
async function connect(options: Deno.UnixConnectOptions): Promise<Deno.Conn> {
  for (let attempt = 0;; attempt++) {
    try {
      return await Deno.connect(options);
    } catch (error) {
      if (attempt >= 200) throw error;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
}

Deno.test("2,000 idle connections, a slowloris and an unfinished body: refused, timed out, stop exits 0", async () => {
  const home = await tempHome();
  const serve = await startServe(home);
  const socket = { transport: "unix", path: join(home, "svc.sock") } as const;
  const conns: Deno.Conn[] = [];
  try {
    const slowloris = await connect(socket);
    const unfinished = await connect(socket);
    for (let i = 0; i < 2000; i++) conns.push(await connect(socket));
    await unfinished.write(encoder.encode(
      "POST /api/v1/sessions HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n" +
        'Content-Length: 100\r\n\r\n{"project',
    ));
    const drip = (async () => {
      for (const byte of encoder.encode("GET /api/v1/health HTTP/1.1\r\nHost: localhost\r\n")) {
        if (await slowloris.write(new Uint8Array([byte])).then(() => false, () => true)) return;
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    })();

    // Beyond 512 the connections were refused at once, in the envelope.
    const refused = await Promise.all(conns.slice(1500).map((conn) => readUntilClosed(conn, 5000)));
    assert.ok(refused.every((r) => r.closed && /"code":"too_many_connections"/.test(r.text)));

    // Within ~10 s the ones that never sent are closed, silently; the slowloris gets its 408.
    const idle = await Promise.all(conns.slice(0, 10).map((conn) => readUntilClosed(conn, 15_000)));
    assert.ok(idle.every((r) => r.closed && r.text === ""), JSON.stringify(idle[0]));
    const cut = await readUntilClosed(slowloris, 5000);
    assert.match(cut.text, /^HTTP\/1\.1 408 /);
    await drip;

    const health = await rawHttp(socket, httpRequest("GET", "/api/v1/health"));
    assert.equal(health.status, 200, "answers again");

    const started = Date.now();
    const stop = await runSvc(["stop", "--home", home]);
    const status = await serve.stop("SIGCONT"); // Waits for the exit without signalling it.
    assert.equal(stop.code, 0, stop.stderr);
    assert.equal(status.code, 0, serve.stderr());
    assert.ok(Date.now() - started < 20_000, "the stop deadline held");
    unfinished.close();
  } finally {
    for (const conn of conns) {
      try {
        conn.close();
      } catch { /* closed by the daemon */ }
    }
    await serve.stop().catch(() => {});
    await removeTree(home);
  }
});
