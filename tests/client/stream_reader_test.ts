/** The client's stream readers (D19) against a real in-process daemon, on every transport. */
import assert from "node:assert/strict";
import { StreamRefused, SvcClient } from "../../src/client/client.ts";
import { readFeed, readSessionEvents, type StreamOpener } from "../../src/client/stream_reader.ts";
import type { EventRecord } from "../../src/store/events_store.ts";
import {
  allEvents,
  fixtureHarnesses,
  freePort,
  restartTestDaemon,
  startTestDaemon,
  type TestDaemon,
  waitForEnd,
} from "../helpers/daemon.ts";
import { removeTree, tempHome } from "../helpers/home.ts";

/** Every read of a test ends by this deadline. */
const DEADLINE_MS = 30_000;

async function launch(client: SvcClient, project: string, prompt: string): Promise<string> {
  const response = await client.post<{ id: string }>("/sessions", {
    projectRoot: project,
    harness: "fixture",
    prompt,
  });
  assert.equal(response.status, 201);
  return response.body.id;
}

async function collect(events: AsyncIterable<EventRecord>): Promise<EventRecord[]> {
  const records: EventRecord[] = [];
  for await (const record of events) records.push(record);
  return records;
}

/** The whole log as pages give it (`GET /sessions/{id}/events`). */
async function pageRead(client: SvcClient, sessionId: string): Promise<EventRecord[]> {
  const page = await client.get<{ events: EventRecord[] }>(`/sessions/${sessionId}/events`);
  return page.body.events;
}

async function until(condition: () => boolean, message: string): Promise<void> {
  const deadline = Date.now() + DEADLINE_MS;
  while (!condition()) {
    assert.ok(Date.now() < deadline, message);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function withDaemon(
  fn: (t: TestDaemon, project: string) => Promise<void>,
  options: { tcpPort?: number } = {},
): Promise<void> {
  await using t = await startTestDaemon({
    configJson: { harnesses: fixtureHarnesses() },
    ...(options.tcpPort ? { tcp: { hostname: "127.0.0.1", port: options.tcpPort } } : {}),
  });
  const project = await Deno.realPath(await tempHome());
  try {
    await fn(t, project);
  } finally {
    await removeTree(project);
  }
}

/** A body that fails like a reset connection after `limit` bytes (mid-message, mid-character). */
function cutAfter(
  body: ReadableStream<Uint8Array>,
  limit: number,
  onCut: () => void,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let sent = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) return controller.close();
      if (sent + value.byteLength < limit) {
        sent += value.byteLength;
        return controller.enqueue(value);
      }
      controller.enqueue(value.subarray(0, limit - sent));
      onCut();
      await reader.cancel();
      controller.error(new TypeError("connection reset (simulated)"));
    },
    cancel: (reason) => reader.cancel(reason),
  });
}

Deno.test("streamSessionEvents() reads a whole session, live and ended, equal to a page read", async () => {
  await withDaemon(async (t, project) => {
    const id = await launch(t.client, project, "flood 500; exit 0");
    const signal = AbortSignal.timeout(DEADLINE_MS);
    const live = await collect(t.client.streamSessionEvents(id, { signal }));
    const page = await pageRead(t.client, id);
    assert.deepEqual(live, page);
    assert.equal(live.at(-1)!.kind, "session.ended");
    assert.deepEqual(await collect(t.client.streamSessionEvents(id, { signal })), page);
    const after = await collect(t.client.streamSessionEvents(id, { afterSeq: 400, signal }));
    assert.deepEqual(after, page.slice(400));
    const kinds = await collect(
      t.client.streamSessionEvents(id, { kinds: ["session.started", "session.ended"], signal }),
    );
    assert.deepEqual(kinds.map((e) => e.kind), ["session.started", "session.ended"]);
  });
});

Deno.test("streamSessionEvents() resumes dropped connections with Last-Event-ID, without gap or repeat", async () => {
  await withDaemon(async (t, project) => {
    const id = await launch(t.client, project, "flood 500; sleep 200; flood 300; exit 0");
    // Cut connections at byte offsets: before the first message ends, mid-message, later.
    const cuts = [10, 2_000, 777, 5_000, 1, 999, 3_000];
    let drops = 0;
    const lastEventIds: string[] = [];
    const received: EventRecord[] = [];
    const opener: StreamOpener = {
      async openStream(path, init) {
        lastEventIds.push(init.headers?.["last-event-id"] ?? "");
        // The reader reopens only after handing out every event it got: the last one here.
        assert.equal(init.headers?.["last-event-id"], String(received.at(-1)?.seq ?? 0));
        const opening = await t.client.openStream(path, init);
        const cut = cuts.shift();
        return opening.ok && cut !== undefined
          ? { ...opening, body: cutAfter(opening.body, cut, () => drops++) }
          : opening;
      },
    };
    const signal = AbortSignal.timeout(DEADLINE_MS);
    for await (
      const record of readSessionEvents(opener, id, { signal, reconnect: { initialDelayMs: 5 } })
    ) {
      received.push(record);
    }
    assert.equal(drops, 7, "every cut happened before the end of the stream");
    assert.equal(lastEventIds.length, 8, "seven drops, eight connections");
    const log = await allEvents(t.client, id);
    assert.deepEqual(received.map((e) => e.seq), log.map((e) => e.seq), "no gap, no repeat");
    assert.deepEqual(received, await pageRead(t.client, id));
  });
});

Deno.test("streamSessionEvents() resumes on a restarted daemon (a new instance) after negotiating again", async () => {
  const home = await tempHome();
  const project = await Deno.realPath(await tempHome());
  const configJson = { harnesses: fixtureHarnesses() };
  let first: TestDaemon | null = await startTestDaemon({ home, configJson });
  let second: TestDaemon | null = null;
  const client = new SvcClient({ socketPath: first.socket });
  try {
    const id = await launch(client, project, "out before; sleep 60000");
    const firstInstance = (await client.negotiate()).instanceId;
    const signal = AbortSignal.timeout(DEADLINE_MS);
    const received: EventRecord[] = [];
    // The first reconnect waits long enough for the new daemon to answer it.
    const reconnect = { initialDelayMs: 1500, maxDelayMs: 1500 };
    for await (const record of client.streamSessionEvents(id, { signal, reconnect })) {
      received.push(record);
      if (record.kind === "output" && first !== null) {
        // Stop ends the stream (the session ends `killed`); a new daemon opens the same home.
        const stopping = first;
        first = null;
        await stopping.daemon.stop();
        stopping.client.close();
        second = await restartTestDaemon({ home, configJson });
      }
    }
    assert.ok(second);
    assert.deepEqual(received, await pageRead(client, id));
    assert.equal(received.at(-1)!.kind, "session.ended");
    assert.equal(JSON.parse(received.at(-1)!.payload_json).status, "killed");
    assert.equal(client.negotiated?.instanceId, second.daemon.instanceId);
    assert.notEqual(firstInstance, second.daemon.instanceId);
  } finally {
    client.close();
    if (first) {
      first.client.close();
      await first.daemon.stop();
    }
    if (second) {
      second.client.close();
      await second.daemon.stop();
    }
    await removeTree(home);
    await removeTree(project);
  }
});

Deno.test("streamSessionEvents() refuses an unknown session and stops when aborted", async () => {
  await withDaemon(async (t, project) => {
    await assert.rejects(
      () => collect(t.client.streamSessionEvents("ses_none")),
      (error: unknown) => {
        assert.ok(error instanceof StreamRefused);
        assert.equal(error.status, 404);
        assert.equal(error.code, "session_not_found");
        return true;
      },
    );
    const id = await launch(t.client, project, "out ready; sleep 60000");
    const controller = new AbortController();
    const reason = new Error("stop reading");
    const seen: string[] = [];
    const deadline = setTimeout(() => controller.abort(new Error("deadline")), DEADLINE_MS);
    try {
      await assert.rejects(async () => {
        for await (
          const record of t.client.streamSessionEvents(id, { signal: controller.signal })
        ) {
          seen.push(record.kind);
          if (record.kind === "output") controller.abort(reason);
        }
      }, (error: unknown) => error === reason);
    } finally {
      clearTimeout(deadline);
    }
    assert.deepEqual(seen, ["session.started", "output"]);
    await t.client.post(`/sessions/${id}/kill`, {});
    await waitForEnd(t.client, id);
  });
});

Deno.test("streamSessionEvents() streams over TCP and over the node:http path transport (the Windows pipe client)", async () => {
  const port = freePort();
  await withDaemon(async (t, project) => {
    const id = await launch(t.client, project, "out first; sleep 300; flood 200; exit 0");
    const idle = await launch(t.client, project, "out ready; sleep 60000");
    for (const target of [{ tcp: `127.0.0.1:${port}` }, { pipe: t.socket }] as const) {
      const client = new SvcClient(target);
      try {
        const signal = AbortSignal.timeout(DEADLINE_MS);
        const records: EventRecord[] = [];
        for await (const record of client.streamSessionEvents(id, { signal })) {
          records.push(record);
        }
        assert.deepEqual(records, await pageRead(t.client, id), JSON.stringify(target));
        // Leaving a live stream early (break) closes it: the daemon stops waiting for it.
        for await (const record of client.streamSessionEvents(idle, { signal })) {
          if (record.kind !== "output") continue;
          await until(() => t.daemon.events.waiting === 1, "the stream waits for events");
          break;
        }
        await until(() => t.daemon.events.waiting === 0, "the closed stream still waits");
      } finally {
        client.close();
      }
    }
    await t.client.post(`/sessions/${idle}/kill`, {});
    await waitForEnd(t.client, idle);
  }, { tcpPort: port });
});

Deno.test("streamFeed() announces the connection, tells of sessions, and reconnects to a restarted daemon", async () => {
  const home = await tempHome();
  const project = await Deno.realPath(await tempHome());
  const configJson = { harnesses: fixtureHarnesses() };
  const first = await startTestDaemon({ home, configJson });
  let second: TestDaemon | null = null;
  const client = new SvcClient({ socketPath: first.socket });
  const controller = new AbortController();
  const deadline = setTimeout(() => controller.abort(new Error("deadline")), DEADLINE_MS);
  try {
    const feed = client.streamFeed({
      signal: controller.signal,
      reconnect: { initialDelayMs: 50, maxDelayMs: 200 },
    })[Symbol.asyncIterator]();
    const next = async () => {
      const { done, value } = await feed.next();
      assert.ok(!done);
      return value;
    };
    assert.deepEqual(await next(), {
      type: "connected",
      instanceId: first.daemon.instanceId,
      reconnected: false,
    });
    const id = await launch(client, project, "exit 0");
    assert.deepEqual(await next(), {
      type: "notice",
      kind: "session.created",
      data: { sessionId: id, harness: "fixture", status: "running", activity: null },
    });
    await waitForEnd(client, id);
    await first.daemon.stop();
    first.client.close();
    second = await restartTestDaemon({ home, configJson });
    let item = await next();
    while (item.type === "notice") item = await next(); // session.updated of the ended session
    assert.equal(item.type, "disconnected");
    item = await next();
    assert.deepEqual(item, {
      type: "connected",
      instanceId: second.daemon.instanceId,
      reconnected: true,
    });
    const again = await launch(client, project, "exit 0");
    item = await next();
    assert.equal(item.type === "notice" && item.data.sessionId, again);
    await feed.return?.();
    await waitForEnd(client, again);
  } finally {
    clearTimeout(deadline);
    controller.abort();
    client.close();
    if (second) {
      second.client.close();
      await second.daemon.stop();
    } else {
      first.client.close();
      await first.daemon.stop();
    }
    await removeTree(home);
    await removeTree(project);
  }
});

Deno.test("readSessionEvents() and readFeed() stop at an abort while a body that ignores it is quiet", async () => {
  // A fetch's body stops following the caller's signal once the request is
  // collected (issue 27 item 1): this body never ends and never sees the abort.
  const keepAlive = new TextEncoder().encode(": keep-alive\n\n");
  const opener: StreamOpener = {
    openStream: () =>
      Promise.resolve({
        ok: true,
        status: 200,
        instanceId: null,
        body: new ReadableStream<Uint8Array>({
          start(stream) {
            stream.enqueue(keepAlive);
          },
        }),
      }),
  };
  for (
    const read of [
      (signal: AbortSignal) => readSessionEvents(opener, "ses_quiet", { signal }),
      (signal: AbortSignal) => readFeed(opener, { signal }),
    ]
  ) {
    const controller = new AbortController();
    const reason = new Error("interrupted");
    setTimeout(() => controller.abort(reason), 50);
    const started = Date.now();
    await assert.rejects(async () => {
      for await (const _ of read(controller.signal)) { /* the feed's "connected" item */ }
    }, (error: unknown) => error === reason);
    assert.ok(Date.now() - started < 1_000, "the abort ends the wait at once");
  }
});

Deno.test("readSessionEvents() decodes a character whose bytes arrive in separate chunks", async () => {
  const text = "é ✓ 😀";
  const message = `id: 1\nevent: event\ndata: ${
    JSON.stringify({ seq: 1, kind: "agent.message", payload_json: JSON.stringify({ text }) })
  }\n\nevent: end\ndata: {}\n\n`;
  const bytes = new TextEncoder().encode(message);
  const opener: StreamOpener = {
    openStream: () =>
      Promise.resolve({
        ok: true,
        status: 200,
        instanceId: null,
        // One byte a chunk: every multi-byte character is split across chunks.
        body: new ReadableStream<Uint8Array>({
          start(stream) {
            for (const byte of bytes) stream.enqueue(Uint8Array.of(byte));
            stream.close();
          },
        }),
      }),
  };
  const records = await collect(readSessionEvents(opener, "ses_split"));
  assert.equal(records.length, 1);
  assert.equal(JSON.parse(records[0].payload_json).text, text);
});
