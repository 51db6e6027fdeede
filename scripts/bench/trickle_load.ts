/**
 * The trickling clients of the `trickle` stage (issue 28 item 1), in their
 * own process: `CONNECTIONS` connections to the Unix socket `SOCKET` each
 * send the head of a `POST /api/v1/actions` with a body of `BODY_BYTES`,
 * all but 48 KiB of it at once, then one byte per `INTERVAL_MS` until
 * `DURATION_MS` pass. Prints `{ connections, bytesSent, refused }` as JSON.
 * Bounded in count and time.
 *
 * Usage: trickle_load.ts SOCKET BODY_BYTES CONNECTIONS DURATION_MS INTERVAL_MS
 */
const [path, bodySize, connections, durationMs, intervalMs] = Deno.args;
const count = Number(connections);
const until = Date.now() + Number(durationMs);
const bodyBytes = Number(bodySize);
const head = new TextEncoder().encode(
  `POST /api/v1/actions HTTP/1.1\r\nHost: localhost\r\n` +
    `Content-Type: application/json\r\nContent-Length: ${bodyBytes}\r\n\r\n`,
);
const bulk = new Uint8Array(bodyBytes - 48 * 1024).fill(0x20);
const one = new Uint8Array([0x20]);
let bytesSent = 0;
let refused = 0;

async function trickle(): Promise<void> {
  let conn: Deno.UnixConn;
  try {
    conn = await Deno.connect({ transport: "unix", path });
  } catch {
    refused++;
    return;
  }
  try {
    await conn.write(head);
    for (let at = 0; at < bulk.length;) at += await conn.write(bulk.subarray(at));
    bytesSent += head.length + bulk.length;
    while (Date.now() < until) {
      await conn.write(one);
      bytesSent++;
      await new Promise((resolve) => setTimeout(resolve, Number(intervalMs)));
    }
  } catch {
    refused++;
  } finally {
    try {
      conn.close();
    } catch { /* closed by the server */ }
  }
}

await Promise.all(Array.from({ length: count }, trickle));
console.log(JSON.stringify({ connections: count, bytesSent, refused }));
