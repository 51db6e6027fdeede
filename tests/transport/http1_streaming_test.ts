/**
 * Event streams (D19) through the HTTP/1.1 framing of the Windows pipe
 * listener, and the whole pipe path on Linux: the daemon's handler served by
 * `serveHttp1Connection` on a Unix socket, read by the client's node:http
 * transport (`{ pipe }`), as on Windows minus the FFI pipe itself.
 */
import assert from "node:assert/strict";
import { SvcClient } from "../../src/client/client.ts";
import { PIPE_PEER } from "../../src/policy/peer.ts";
import type { EventRecord } from "../../src/store/events_store.ts";
import { writeResponse } from "../../src/transport/http1_response.ts";
import { fixtureHarnesses, startTestDaemon, waitForEnd } from "../helpers/daemon.ts";
import { removeTree, tempHome } from "../helpers/home.ts";
import { serveOnSocket } from "../helpers/http1_socket.ts";

const DEADLINE_MS = 30_000;
const encoder = new TextEncoder();
const decoder = new TextDecoder();
const SSE = { "content-type": "text/event-stream; charset=utf-8" };

async function until(condition: () => boolean, message: string): Promise<void> {
  const deadline = Date.now() + DEADLINE_MS;
  while (!condition()) {
    assert.ok(Date.now() < deadline, message);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

Deno.test("writeResponse() sends an event stream's head and each chunk as it comes", async () => {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) });
  controller.enqueue(encoder.encode(": connected\n\n"));
  const writes: string[] = [];
  const writing = writeResponse(
    new Response(body, { headers: SSE }),
    { method: "GET", version: "1.1", keepAlive: true },
    (bytes) => {
      writes.push(decoder.decode(bytes));
      return Promise.resolve();
    },
  );
  await until(() => writes.join("").includes(": connected"), "the first chunk waited");
  assert.match(writes[0], /^HTTP\/1\.1 200 OK\r\n[^]*transfer-encoding: chunked\r\n/);
  controller.enqueue(encoder.encode("event: x\ndata: {}\n\n"));
  await until(() => writes.join("").includes("event: x"), "the second chunk waited");
  controller.close();
  assert.equal(await writing, true);
  assert.ok(writes.join("").endsWith("\r\n0\r\n\r\n"));
});

Deno.test("writeResponse() cancels the body when the peer is gone", async () => {
  let cancelled: unknown = null;
  const body = new ReadableStream<Uint8Array>({
    start: (c) => c.enqueue(encoder.encode(": connected\n\n")),
    cancel: (reason) => void (cancelled = reason),
  });
  let writes = 0;
  const gone = new Error("broken pipe");
  await assert.rejects(
    () =>
      writeResponse(
        new Response(body, { headers: SSE }),
        { method: "GET", version: "1.1", keepAlive: true },
        () => ++writes > 1 ? Promise.reject(gone) : Promise.resolve(),
      ),
    (error: unknown) => error === gone,
  );
  assert.equal(cancelled, gone);
});

Deno.test("the pipe path streams a live session and the feed (serveHttp1Connection + node:http)", async () => {
  await using t = await startTestDaemon({ configJson: { harnesses: fixtureHarnesses() } });
  const dir = await tempHome();
  const project = await Deno.realPath(await tempHome());
  const path = `${dir}/pipe-like.sock`;
  const server = serveOnSocket(path, async (req) => await t.daemon.handler(req, PIPE_PEER));
  const client = new SvcClient({ pipe: path });
  const controller = new AbortController();
  const deadline = setTimeout(() => controller.abort(new Error("deadline")), DEADLINE_MS);
  const { signal } = controller;
  try {
    const feed = client.streamFeed({ signal })[Symbol.asyncIterator]();
    // The feed's first bytes are a comment: its head must not wait for 64 KiB of notices.
    assert.equal((await feed.next()).value?.type, "connected");
    const launched = await client.post<{ id: string }>("/sessions", {
      projectRoot: project,
      harness: "fixture",
      prompt: "out first; sleep 60000",
    });
    const id = launched.body.id;
    assert.equal((await feed.next()).value?.type, "notice");
    const seen: EventRecord[] = [];
    for await (const record of client.streamSessionEvents(id, { signal })) {
      seen.push(record);
      // A few bytes of a live session arrive while it still runs.
      if (record.kind === "output") break;
    }
    assert.deepEqual(seen.map((e) => e.kind), ["session.started", "output"]);
    await feed.return?.();
    await client.post(`/sessions/${id}/kill`, {});
    await waitForEnd(client, id);
  } finally {
    clearTimeout(deadline);
    controller.abort();
    client.close();
    await t.daemon.stop(); // Ends every stream, so no connection is left to wait for.
    await server.close();
    await removeTree(dir);
    await removeTree(project);
  }
});
