import assert from "node:assert/strict";
import { pageReader } from "../../src/api/events.ts";
import { buildPage, MAX_PAGE_BYTES, type PageRead } from "../../src/events/page.ts";
import { openDatabase } from "../../src/store/db.ts";
import { type EventRecord, EventsStore, type JsonBatch } from "../../src/store/events_store.ts";
import { SessionsStore } from "../../src/store/sessions_store.ts";
import { runningSessionRow } from "../helpers/rows.ts";

/** An EventsStore that remembers every batch it joined. */
class CountingStore extends EventsStore {
  readonly batches: JsonBatch[] = [];
  override readJsonBatch(
    sessionId: string,
    afterSeq: number,
    limit: number,
    kinds?: readonly string[],
    largeBytes?: number,
  ): JsonBatch {
    const batch = super.readJsonBatch(sessionId, afterSeq, limit, kinds, largeBytes);
    this.batches.push(batch);
    return batch;
  }
}

function storeWith(sessionId: string, payloads: string[]): CountingStore {
  const db = openDatabase(":memory:");
  new SessionsStore(db).insert(runningSessionRow(sessionId));
  const store = new CountingStore(db);
  const records: EventRecord[] = payloads.map((data, i) => ({
    seq: i + 1,
    id: `evt_${i + 1}`,
    session_id: sessionId,
    kind: i % 3 === 0 ? "agent.message" : "output",
    payload_json: JSON.stringify({ stream: "stdout", data }),
    created_at: "2026-11-27T00:00:00.000Z",
  }));
  store.appendBatch(records);
  return store;
}

/** The same page read a row per event: what every path must give. */
function rowsOnly(store: EventsStore, sessionId: string, kinds?: string[]): PageRead {
  return (after, max, room) => store.readJsonAfter(sessionId, after, max, kinds, room);
}

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

Deno.test("small events then large ones: no batch is joined beyond the page's room (issue 26)", () => {
  const large = "x".repeat(60_000);
  const store = storeWith("ses_m", [
    ...Array.from({ length: 4 }, (_, i) => `small ${i}`),
    ...Array.from({ length: 300 }, () => large),
  ]);
  for (const kinds of [undefined, ["output"]]) {
    store.batches.length = 0;
    const page = buildPage(pageReader(store, "ses_m", 0, kinds), { afterSeq: 0, limit: 1000 });
    const expected = buildPage(rowsOnly(store, "ses_m", kinds), { afterSeq: 0, limit: 1000 });
    assert.equal(text(page.body), text(expected.body));
    assert.equal(page.hasMore, true);
    assert.ok(page.body.length <= MAX_PAGE_BYTES);
    // Before: one batch of all 304 events' JSON, 18 MB, for a 4 MiB page. Now the large ones are
    // counted, not made.
    // (Filtered to output, the first events sampled are already large: no batch is tried.)
    assert.equal(store.batches.length, kinds === undefined ? 1 : 0);
    for (const batch of store.batches) {
      assert.ok(batch.large > 0);
      assert.ok(batch.json.length < 1000, `${batch.json.length} bytes`);
    }
  }
});

Deno.test("small events whose page would pass the room are read a row each, to the byte (issue 14)", () => {
  // 1000 payloads of 4079 B (under the large-event size): 4.2 MB of JSON, more than a page holds.
  const store = storeWith(
    "ses_n",
    Array.from({ length: 1000 }, (_, i) => `${i}`.padEnd(4050, "y")),
  );
  const page = buildPage(pageReader(store, "ses_n", 0, undefined), { afterSeq: 0, limit: 1000 });
  const expected = buildPage(rowsOnly(store, "ses_n"), { afterSeq: 0, limit: 1000 });
  assert.equal(text(page.body), text(expected.body));
  assert.equal(page.hasMore, true);
  assert.ok(page.count < 1000);
});

Deno.test("a page of small events is still one batch joined by SQLite (issue 14)", () => {
  const store = storeWith("ses_s", Array.from({ length: 1500 }, (_, i) => `line ${i}\n`));
  const page = buildPage(pageReader(store, "ses_s", 10, undefined), { afterSeq: 10, limit: 1000 });
  const expected = buildPage(rowsOnly(store, "ses_s"), { afterSeq: 10, limit: 1000 });
  assert.equal(text(page.body), text(expected.body));
  assert.deepEqual(store.batches.map((b) => [b.count, b.seq, b.large]), [[1000, 1010, 0]]);
  const last = buildPage(pageReader(store, "ses_s", 1500, undefined), {
    afterSeq: 1500,
    limit: 10,
  });
  assert.deepEqual([last.count, last.hasMore], [0, false]);
});
