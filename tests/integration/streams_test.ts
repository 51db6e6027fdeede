/** Server-Sent Events through the real socket (issue 11, D19). */
import assert from "node:assert/strict";
import {
  allEvents,
  fixtureHarnesses,
  startTestDaemon,
  type TestDaemon,
  waitForEnd,
} from "../helpers/daemon.ts";
import { removeTree, tempHome } from "../helpers/home.ts";
import { openSse, type SseMessage } from "../helpers/sse.ts";

type Json = Record<string, unknown>;

async function withDaemon(
  extra: Json,
  fn: (t: TestDaemon, project: string) => Promise<void>,
): Promise<void> {
  await using t = await startTestDaemon({
    configJson: { harnesses: fixtureHarnesses(), ...extra },
  });
  const project = await Deno.realPath(await tempHome());
  try {
    await fn(t, project);
  } finally {
    await removeTree(project);
  }
}

async function launch(t: TestDaemon, project: string, prompt: string): Promise<string> {
  const response = await t.client.post<Json>("/sessions", {
    projectRoot: project,
    harness: "fixture",
    prompt,
  });
  assert.equal(response.status, 201);
  return response.body.id as string;
}

/** Reads messages until `event: end`; returns the events before it and the end's data. */
async function readToEnd(next: () => Promise<SseMessage | null>) {
  const events: SseMessage[] = [];
  for (;;) {
    const message = await next();
    assert.ok(message, "the stream ended without event: end");
    if (message.event === "end") return { events, end: JSON.parse(message.data) };
    events.push(message);
  }
}

Deno.test("a reader connecting mid-session gets every event once, in order, then end (D19)", async () => {
  await withDaemon({}, async (t, project) => {
    const id = await launch(t, project, "flood 500; sleep 300; flood 500; exit 0");
    const stream = await openSse(t.socket, `/sessions/${id}/events/stream`);
    assert.equal(stream.status, 200);
    assert.match(stream.headers.get("content-type")!, /^text\/event-stream/);
    const { events, end } = await readToEnd(stream.next);
    await stream.close();
    const log = await allEvents(t.client, id);
    assert.deepEqual(events.map((e) => Number(e.id)), log.map((e) => e.seq));
    assert.deepEqual(events.map((e) => e.event), log.map((e) => e.kind));
    assert.deepEqual(JSON.parse(events[0].data).id, log[0].id, "data is the event record");
    assert.equal(events.at(-1)!.event, "session.ended");
    assert.deepEqual(end, { lastSeq: log.length });
  });
});

Deno.test("20 disconnects at random points, resumed with Last-Event-ID, reassemble the log (D19)", async () => {
  await withDaemon({}, async (t, project) => {
    const id = await launch(t, project, "flood 2000; exit 0");
    const seen: number[] = [];
    let last: string | null = null;
    for (let round = 0; round < 20; round++) {
      const stream = await openSse(
        t.socket,
        `/events/stream?sessionId=${id}`,
        last === null ? {} : { "last-event-id": last },
      );
      const take = 1 + Math.floor(Math.random() * 150);
      for (let i = 0; i < take; i++) {
        const message = await stream.next();
        if (!message || message.event === "end") break;
        seen.push(Number(message.id));
        last = message.id;
      }
      await stream.close();
    }
    const rest = await openSse(t.socket, `/events/stream?sessionId=${id}`, {
      "last-event-id": last!,
    });
    seen.push(...(await readToEnd(rest.next)).events.map((e) => Number(e.id)));
    await rest.close();
    const log = await allEvents(t.client, id);
    assert.deepEqual(seen, log.map((e) => e.seq), "no gap, no repeat");
  });
});

Deno.test("30 readers of one session, some filtered, joining at different times, each get their events in order (D19)", async () => {
  // Readers at the same cursor share one read until the next commit: the shared rows must never
  // reach a reader at another cursor, of other kinds, or after the log moved on.
  await withDaemon({}, async (t, project) => {
    const id = await launch(
      t,
      project,
      "flood 300; sleep 200; flood 300; sleep 200; flood 300; exit 0",
    );
    const readers = [];
    for (let i = 0; i < 30; i++) {
      const kinds = i % 3 === 2 ? "?kinds=session.started,session.ended" : "";
      readers.push(openSse(t.socket, `/sessions/${id}/events/stream${kinds}`));
      if (i % 10 === 9) await new Promise((resolve) => setTimeout(resolve, 150));
    }
    const results = await Promise.all(readers.map(async (opening) => {
      const stream = await opening;
      try {
        return await readToEnd(stream.next);
      } finally {
        await stream.close();
      }
    }));
    const log = await allEvents(t.client, id);
    const ended = log.filter((e) => e.kind === "session.started" || e.kind === "session.ended");
    results.forEach(({ events, end }, i) => {
      const expected = i % 3 === 2 ? ended : log;
      assert.deepEqual(events.map((e) => Number(e.id)), expected.map((e) => e.seq), `reader ${i}`);
      const records = events.map((e) => {
        const { seq, id, kind, payload_json } = JSON.parse(e.data);
        return { seq, id, kind, payload: JSON.parse(payload_json) };
      });
      assert.deepEqual(records, expected, `reader ${i}`);
      assert.equal(end.lastSeq, log.at(-1)!.seq);
    });
  });
});

Deno.test("kinds filters a stream; afterSeq starts it; bad input is refused before it starts (D19)", async () => {
  await withDaemon({}, async (t, project) => {
    const id = await launch(t, project, "out a; out b; exit 0");
    await waitForEnd(t.client, id);
    const filtered = await openSse(
      t.socket,
      `/sessions/${id}/events/stream?kinds=session.started,session.ended`,
    );
    const { events } = await readToEnd(filtered.next);
    await filtered.close();
    assert.deepEqual(events.map((e) => e.event), ["session.started", "session.ended"]);
    const after = await openSse(t.socket, `/sessions/${id}/events/stream?afterSeq=1`);
    assert.equal((await after.next())!.id, "2");
    await after.close();

    for (
      const [path, headers, status] of [
        ["/sessions/ses_none/events/stream", {}, 404],
        ["/events/stream", {}, 400],
        [`/sessions/${id}/events/stream?kinds=A`, {}, 400],
        [`/sessions/${id}/events/stream`, { "last-event-id": "x1" }, 400],
      ] as const
    ) {
      const refused = await openSse(t.socket, path, headers);
      assert.equal(refused.status, status, path);
      assert.match(refused.headers.get("content-type")!, /json/);
      await refused.close();
    }
  });
});

Deno.test("maxStreams caps open streams with 503; a closed stream gives its slot back (D19)", async () => {
  await withDaemon({ maxStreams: 3 }, async (t, project) => {
    const id = await launch(t, project, "sleep 60000");
    const open = await Promise.all(
      [1, 2, 3].map(() => openSse(t.socket, `/sessions/${id}/events/stream`)),
    );
    for (const stream of open) assert.equal(stream.status, 200);
    const refused = await openSse(t.socket, `/stream`);
    assert.equal(refused.status, 503);
    await refused.close();
    await open[0].close();
    for (let attempt = 0;; attempt++) {
      const again = await openSse(t.socket, `/sessions/${id}/events/stream`);
      await again.close();
      if (again.status === 200) break;
      assert.ok(attempt < 100, "the closed stream never released its slot");
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await Promise.all(open.slice(1).map((stream) => stream.close()));
    await t.client.post(`/sessions/${id}/kill`, {});
    await waitForEnd(t.client, id);
  });
});

Deno.test("the daemon-wide feed tells of sessions; daemon stop ends every stream (D19)", async () => {
  const t = await startTestDaemon({ configJson: { harnesses: fixtureHarnesses() } });
  const project = await Deno.realPath(await tempHome());
  try {
    const feed = await openSse(t.socket, "/stream");
    assert.equal(feed.status, 200);
    const id = await launch(t, project, "sleep 60000");
    const session = await openSse(t.socket, `/sessions/${id}/events/stream`);
    const created = await feed.next();
    assert.equal(created!.event, "session.created");
    assert.equal(JSON.parse(created!.data).sessionId, id);
    await t.client.post(`/sessions/${id}/kill`, {});
    let updated = await feed.next();
    // The log growing (session.progress, D25) may come first: the change of status follows.
    while (updated?.event === "session.progress") updated = await feed.next();
    assert.equal(updated!.event, "session.updated");
    assert.deepEqual(JSON.parse(updated!.data), {
      sessionId: id,
      status: "killed",
      activity: null,
    });
    await t.daemon.stop();
    assert.equal(await feed.next(), null, "the feed ended at daemon stop");
    for (;;) {
      const message = await session.next();
      if (message === null || message.event === "end") break;
    }
    await feed.close();
    await session.close();
  } finally {
    t.client.close();
    await t.daemon.stop();
    await removeTree(t.home);
    await removeTree(project);
  }
});

Deno.test("300 streams against the default cap: 256 open, the rest 503; disconnects leave no waiter (D19)", async () => {
  await withDaemon({}, async (t, project) => {
    const id = await launch(t, project, "sleep 60000");
    const streams = await Promise.all(
      Array.from({ length: 300 }, () => openSse(t.socket, `/sessions/${id}/events/stream`)),
    );
    const statuses = streams.map((stream) => stream.status);
    assert.equal(statuses.filter((status) => status === 200).length, 256);
    assert.equal(statuses.filter((status) => status === 503).length, 44);
    const open = streams.filter((stream) => stream.status === 200);
    await Promise.all(open.map(async (stream) => assert.equal((await stream.next())!.id, "1")));
    const deadline = Date.now() + 20_000;
    while (t.daemon.events.waiting < 256) {
      assert.ok(Date.now() < deadline, `only ${t.daemon.events.waiting} readers wait`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await Promise.all(streams.map((stream) => stream.close()));
    while (t.daemon.events.waiting > 0) {
      assert.ok(Date.now() < deadline, `${t.daemon.events.waiting} waiters left behind`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const again = await openSse(t.socket, `/sessions/${id}/events/stream`);
    assert.equal(again.status, 200, "every slot was released");
    await again.close();
    await t.client.post(`/sessions/${id}/kill`, {});
    await waitForEnd(t.client, id);
  });
});
