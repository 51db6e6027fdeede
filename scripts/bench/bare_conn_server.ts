/**
 * The floor of the `/health` figure's HTTP layer (issue 26): a Deno program
 * that reads each connection with `Deno.Conn.read` and, for every request
 * head it finds (`\r\n\r\n`), writes one prebuilt answer with the daemon's
 * `/health` JSON. No parsing, no `Request`, no `Response`: what any HTTP
 * server written in JavaScript on Deno's sockets pays at least (one read and
 * one write per request on keep-alive connections).
 *
 *   deno run -A scripts/bench/bare_conn_server.ts SOCKET BODY_FILE
 */
const [socket, bodyFile] = Deno.args;
const encoder = new TextEncoder();
const body = encoder.encode(Deno.readTextFileSync(bodyFile));
const answer = new Uint8Array([
  ...encoder.encode(
    "HTTP/1.1 200 OK\r\ncontent-type: application/json; charset=utf-8\r\n" +
      `content-length: ${body.length}\r\n\r\n`,
  ),
  ...body,
]);

/** Counts the request heads that end in `bytes`, carrying a split terminator over. */
function headEnds(bytes: Uint8Array, matched: { n: number }): number {
  let heads = 0;
  for (const byte of bytes) {
    const expected = matched.n % 2 === 0 ? 13 : 10;
    matched.n = byte === expected ? matched.n + 1 : byte === 13 ? 1 : 0;
    if (matched.n === 4) {
      heads++;
      matched.n = 0;
    }
  }
  return heads;
}

async function serve(conn: Deno.Conn): Promise<void> {
  const buffer = new Uint8Array(64 * 1024);
  const matched = { n: 0 };
  try {
    for (;;) {
      const count = await conn.read(buffer);
      if (count === null) return;
      for (let heads = headEnds(buffer.subarray(0, count), matched); heads > 0; heads--) {
        for (let written = 0; written < answer.length;) {
          written += await conn.write(answer.subarray(written));
        }
      }
    }
  } catch {
    /* the client left */
  } finally {
    try {
      conn.close();
    } catch { /* closed */ }
  }
}

const listener = Deno.listen({ transport: "unix", path: socket });
const stop = () => listener.close();
Deno.addSignalListener("SIGTERM", stop);
Deno.addSignalListener("SIGINT", stop);
try {
  for await (const conn of listener) serve(conn);
} catch { /* closed */ }
Deno.exit(0);
