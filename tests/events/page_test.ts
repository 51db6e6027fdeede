import assert from "node:assert/strict";
import { buildPage, resolveCursor, utf8Length } from "../../src/events/page.ts";
import { ServiceError } from "../../src/api/errors.ts";
import type { EventRecord } from "../../src/store/events_store.ts";

function log(count: number, dataBytes = 10): EventRecord[] {
  return Array.from({ length: count }, (_, i) => ({
    seq: i + 1,
    id: `evt_${i + 1}`,
    session_id: "ses_1",
    kind: "output",
    payload_json: JSON.stringify({ stream: "stdout", data: "x".repeat(dataBytes) }),
    created_at: "2026-11-21T22:19:00.000Z",
  }));
}

function reader(events: EventRecord[]) {
  return (afterSeq: number, max: number) => events.filter((e) => e.seq > afterSeq).slice(0, max);
}

Deno.test("resolveCursor() prefers afterSeq, resolves afterEventId, unknown reads from 0 (C4.2)", () => {
  const seqOf = (id: string) => (id === "evt_5" ? 5 : null);
  assert.equal(resolveCursor({ afterSeq: 2, afterEventId: "evt_5" }, seqOf), 2);
  assert.equal(resolveCursor({ afterEventId: "evt_5" }, seqOf), 5);
  assert.equal(resolveCursor({ afterEventId: "evt_x" }, seqOf), 0);
  assert.equal(resolveCursor({}, seqOf), 0);
  assert.equal(resolveCursor({ afterSeq: 0, afterEventId: "evt_5" }, seqOf), 0);
});

Deno.test("buildPage() with a limit pages and says hasMore (D8)", () => {
  const events = log(5);
  const first = buildPage(reader(events), { afterSeq: 0, limit: 2 });
  const parsed = JSON.parse(first.json);
  assert.deepEqual(parsed.events.map((e: EventRecord) => e.seq), [1, 2]);
  assert.deepEqual(parsed.nextCursor, { afterSeq: 2 });
  assert.equal(parsed.hasMore, true);
  const last = JSON.parse(buildPage(reader(events), { afterSeq: 4, limit: 2 }).json);
  assert.deepEqual(last.events.map((e: EventRecord) => e.seq), [5]);
  assert.equal(last.hasMore, false);
  const empty = JSON.parse(buildPage(reader(events), { afterSeq: 9, limit: 2 }).json);
  assert.deepEqual(empty, { events: [], nextCursor: { afterSeq: 9 }, hasMore: false });
});

Deno.test("buildPage() without a limit returns everything after the cursor, across read chunks", () => {
  const events = log(2500, 1);
  const page = JSON.parse(buildPage(reader(events), { afterSeq: 100 }).json);
  assert.equal(page.events.length, 2400);
  assert.equal(page.events[0].seq, 101);
  assert.deepEqual(page.nextCursor, { afterSeq: 2500 });
  assert.equal(page.hasMore, false);
});

Deno.test("buildPage() keeps every body under the byte bound (D8)", () => {
  const events = log(10, 1000);
  const limited = buildPage(reader(events), { afterSeq: 0, limit: 10, maxBytes: 4000 });
  assert.ok(utf8Length(limited.json) <= 4000);
  assert.equal(limited.hasMore, true, "a limited page cut at the bound says hasMore");
  assert.ok(limited.count >= 1 && limited.count < 10);
  assert.throws(
    () => buildPage(reader(events), { afterSeq: 0, maxBytes: 4000 }),
    (error: unknown) =>
      error instanceof ServiceError && error.status === 413 &&
      error.code === "event_response_too_large" && typeof error.details.seq === "number",
  );
  const fits = buildPage(reader(events), { afterSeq: 8, maxBytes: 4000 });
  assert.equal(fits.count, 2);
});

Deno.test("utf8Length() counts like TextEncoder", () => {
  for (const text of ["", "abc", "é", "€", "😀", "a😀b", "\ud800", "\udc00x", "\ud800\ud800"]) {
    assert.equal(utf8Length(text), new TextEncoder().encode(text).length, JSON.stringify(text));
  }
});
