/** The readers' reconnect rules (stream_reader.ts) against a scripted opener: no daemon, no sleeps. */
import assert from "node:assert/strict";
import { ClientError, StreamRefused } from "../../src/client/client_error.ts";
import {
  type FeedItem,
  readFeed,
  readSessionEvents,
  type StreamOpener,
  type StreamOpening,
} from "../../src/client/stream_reader.ts";

const encoder = new TextEncoder();
const FAST = { initialDelayMs: 1, maxDelayMs: 4 };

/** One scripted answer: SSE text that then closes, fails or stays open, or an error thrown. */
type Answer = { sse: string; then?: "close" | "fail" | "hang" } | { throws: Error } | {
  refused: number;
  code: string;
};

/** An opener that answers from `script` and records the `Last-Event-ID` of each open. */
function scripted(script: Answer[]): StreamOpener & { lastEventIds: string[]; opens: number } {
  const state = {
    lastEventIds: [] as string[],
    opens: 0,
    openStream(
      _path: string,
      init: { headers?: Record<string, string> },
    ): Promise<StreamOpening> {
      state.opens++;
      state.lastEventIds.push(init.headers?.["last-event-id"] ?? "");
      const answer = script.shift();
      if (answer === undefined) return Promise.reject(new Error("The script has no more answers"));
      if ("throws" in answer) return Promise.reject(answer.throws);
      if ("refused" in answer) {
        return Promise.resolve({
          ok: false,
          status: answer.refused,
          body: { error: { code: answer.code, message: `Refused: ${answer.code}`, details: {} } },
        });
      }
      let sent = false;
      const body = new ReadableStream<Uint8Array>({
        // The text is read first; then the body closes, fails or stays open.
        pull(controller) {
          if (!sent) {
            sent = true;
            return controller.enqueue(encoder.encode(answer.sse));
          }
          if (answer.then === "fail") controller.error(new TypeError("connection reset"));
          else if (answer.then !== "hang") controller.close();
        },
      }, { highWaterMark: 0 });
      return Promise.resolve({ ok: true, status: 200, instanceId: "i1", body });
    },
  };
  return state;
}

function event(seq: number, kind = "output"): string {
  const record = { seq, id: `evt_${seq}`, session_id: "ses_1", kind, payload_json: "{}" };
  return `id: ${seq}\nevent: ${kind}\ndata: ${JSON.stringify(record)}\n\n`;
}

const END = (lastSeq: number) => `event: end\ndata: {"lastSeq":${lastSeq}}\n\n`;
const unreachable = () => new ClientError("unreachable", "svc is not running");

async function seqs(opener: StreamOpener, options = {}): Promise<number[]> {
  const out: number[] = [];
  for await (const record of readSessionEvents(opener, "ses_1", { reconnect: FAST, ...options })) {
    out.push(record.seq);
  }
  return out;
}

Deno.test("readSessionEvents() reopens after the last seq received and never yields a seq twice", async () => {
  const opener = scripted([
    { sse: event(1) + event(2) + 'id: 3\nevent: output\ndata: {"seq":3', then: "fail" },
    { sse: event(2) + event(3), then: "close" },
    { sse: event(3) + event(4) + END(4) },
  ]);
  assert.deepEqual(await seqs(opener, { afterSeq: 0 }), [1, 2, 3, 4]);
  assert.deepEqual(opener.lastEventIds, ["0", "2", "3"]);
});

Deno.test("readSessionEvents() fails the first open at once, as any call", async () => {
  const opener = scripted([{ throws: unreachable() }, { sse: END(0) }]);
  await assert.rejects(() => seqs(opener), { code: "unreachable" });
  assert.equal(opener.opens, 1);
  const refused = scripted([{ refused: 503, code: "too_many_streams" }]);
  await assert.rejects(() => seqs(refused), (error: unknown) => {
    assert.ok(error instanceof StreamRefused);
    assert.equal(error.code, "too_many_streams");
    return true;
  });
});

Deno.test("readSessionEvents() retries a reopen with backoff, then gives up with the last error", async (t) => {
  await t.step("no daemon for a while, a slot not yet free, then the stream", async () => {
    const opener = scripted([
      { sse: event(1), then: "close" },
      { throws: unreachable() },
      { refused: 503, code: "too_many_streams" },
      { throws: unreachable() },
      { sse: event(2) + END(2) },
    ]);
    assert.deepEqual(await seqs(opener), [1, 2]);
    assert.deepEqual(opener.lastEventIds, ["0", "1", "1", "1", "1"]);
  });
  await t.step("past `attempts` failures in a row", async () => {
    const opener = scripted([
      { sse: event(1), then: "fail" },
      { throws: unreachable() },
      { throws: unreachable() },
      { throws: unreachable() },
    ]);
    await assert.rejects(
      () => seqs(opener, { reconnect: { ...FAST, attempts: 3 } }),
      { code: "unreachable" },
    );
    assert.equal(opener.opens, 4);
  });
  await t.step("a refusal other than too_many_streams ends it at once", async () => {
    const opener = scripted([
      { sse: event(1), then: "close" },
      { refused: 404, code: "session_not_found" },
    ]);
    await assert.rejects(() => seqs(opener), { code: "session_not_found" });
  });
});

Deno.test("readSessionEvents() reopens at once after an instance change (the client negotiates again)", async () => {
  const opener = scripted([
    { sse: event(1), then: "close" },
    { throws: new ClientError("instance_changed", "replaced") },
    { sse: event(2) + END(2) },
  ]);
  // With one attempt allowed, only a reopen that costs no attempt can succeed.
  const once = { ...FAST, attempts: 1 };
  assert.deepEqual(await seqs(opener, { reconnect: once }), [1, 2]);
  const twice = scripted([
    { sse: event(1), then: "close" },
    { throws: new ClientError("instance_changed", "replaced") },
    { throws: new ClientError("instance_changed", "replaced again") },
    { sse: event(2) + END(2) },
  ]);
  assert.deepEqual(await seqs(twice), [1, 2], "a second change waits like other failures");
  const flapping = scripted([
    { sse: event(1), then: "close" },
    { throws: new ClientError("instance_changed", "replaced") },
    { throws: new ClientError("instance_changed", "replaced again") },
  ]);
  await assert.rejects(() => seqs(flapping, { reconnect: once }), { code: "instance_changed" });
});

Deno.test("readSessionEvents() reopens a connection silent past the idle timeout", async () => {
  const opener = scripted([
    { sse: event(1) + ": keep-alive\n\n", then: "hang" },
    { sse: event(2) + END(2) },
  ]);
  assert.deepEqual(await seqs(opener, { reconnect: { ...FAST, idleTimeoutMs: 30 } }), [1, 2]);
});

Deno.test("readSessionEvents() rejects data that is not an event record", async () => {
  const opener = scripted([{ sse: "id: 1\nevent: output\ndata: [1]\n\n" }]);
  await assert.rejects(() => seqs(opener), { code: "bad_response" });
});

Deno.test("readSessionEvents() ends with the abort reason when its signal aborts", async () => {
  const controller = new AbortController();
  const reason = new Error("enough");
  const opener = scripted([{ sse: event(1), then: "close" }, { sse: event(2), then: "close" }]);
  await assert.rejects(async () => {
    for await (
      const _ of readSessionEvents(opener, "ses_1", {
        signal: controller.signal,
        reconnect: { initialDelayMs: 60_000 },
      })
    ) {
      setTimeout(() => controller.abort(reason), 5); // Aborts the backoff wait.
    }
  }, (error: unknown) => error === reason);
  assert.equal(opener.opens, 1);
});

Deno.test("readFeed() yields connected, notices, and on overflow or a drop disconnected then connected", async () => {
  const opener = scripted([
    { sse: ': connected\n\nevent: session.created\ndata: {"sessionId":"ses_1"}\n\n' },
    { throws: unreachable() },
    { sse: ": connected\n\nevent: overflow\ndata: {}\n\n", then: "hang" },
    { sse: 'event: run.ended\ndata: {"runId":"run_1"}\n\n', then: "hang" },
  ]);
  const controller = new AbortController();
  const items: FeedItem[] = [];
  for await (const item of readFeed(opener, { signal: controller.signal, reconnect: FAST })) {
    items.push(item);
    if (item.type === "notice" && item.kind === "run.ended") break;
  }
  controller.abort();
  assert.deepEqual(items.map((item) => item.type === "notice" ? item.kind : item.type), [
    "connected",
    "session.created",
    "disconnected",
    "connected",
    "disconnected",
    "connected",
    "run.ended",
  ]);
  assert.deepEqual(items[0], { type: "connected", instanceId: "i1", reconnected: false });
  assert.deepEqual(items[1], {
    type: "notice",
    kind: "session.created",
    data: { sessionId: "ses_1" },
  });
  assert.match((items[4] as { reason: string }).reason, /overflow/);
  assert.equal((items[5] as { reconnected: boolean }).reconnected, true);
});
