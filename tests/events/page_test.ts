import assert from "node:assert/strict";
import { buildPage, type PageRead, resolveCursor, utf8Length } from "../../src/events/page.ts";
import { ServiceError } from "../../src/errors.ts";
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

/** A row per event, as SQLite's json_object gives them (the path for large events). */
function reader(events: EventRecord[]): PageRead {
  return (afterSeq, max) =>
    events.filter((e) => e.seq > afterSeq).slice(0, max).map((e) => ({
      seq: e.seq,
      json: encoder.encode(JSON.stringify(e)),
    }));
}

/**
 * A row per event that stops at the first row past `roomBytes` (each counted
 * with a comma), as `EventsStore.readJsonAfter` does with a room (issue 26).
 */
function roomReader(events: EventRecord[]): PageRead {
  return (afterSeq, max, roomBytes) => {
    const rows = [];
    let bytes = 0;
    for (const row of reader(events)(afterSeq, max, roomBytes)) {
      rows.push(row);
      bytes += row.json.length + 1;
      if (bytes > roomBytes) break;
    }
    return rows;
  };
}

/** The events joined into one batch when it fits, else a row each (the path for small events). */
function batchReader(events: EventRecord[]): PageRead {
  return (afterSeq, max, roomBytes) => {
    const rows = events.filter((e) => e.seq > afterSeq).slice(0, max);
    if (rows.length === 0) return [];
    const json = encoder.encode(rows.map((e) => JSON.stringify(e)).join(","));
    if (json.length + 1 <= roomBytes) return [{ seq: rows.at(-1)!.seq, json, count: rows.length }];
    return reader(events)(afterSeq, max, roomBytes);
  };
}

const encoder = new TextEncoder();
const text = (page: { body: Uint8Array }) => new TextDecoder().decode(page.body);

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
  const parsed = JSON.parse(text(first));
  assert.deepEqual(parsed.events.map((e: EventRecord) => e.seq), [1, 2]);
  assert.deepEqual(parsed.nextCursor, { afterSeq: 2 });
  assert.equal(parsed.hasMore, true);
  const last = JSON.parse(text(buildPage(reader(events), { afterSeq: 4, limit: 2 })));
  assert.deepEqual(last.events.map((e: EventRecord) => e.seq), [5]);
  assert.equal(last.hasMore, false);
  const empty = JSON.parse(text(buildPage(reader(events), { afterSeq: 9, limit: 2 })));
  assert.deepEqual(empty, { events: [], nextCursor: { afterSeq: 9 }, hasMore: false });
});

Deno.test("buildPage() without a limit returns everything after the cursor, across read chunks", () => {
  const events = log(2500, 1);
  const page = JSON.parse(text(buildPage(reader(events), { afterSeq: 100 })));
  assert.equal(page.events.length, 2400);
  assert.equal(page.events[0].seq, 101);
  assert.deepEqual(page.nextCursor, { afterSeq: 2500 });
  assert.equal(page.hasMore, false);
});

Deno.test("buildPage() keeps every body under the byte bound (D8)", () => {
  const events = log(10, 1000);
  const limited = buildPage(reader(events), { afterSeq: 0, limit: 10, maxBytes: 4000 });
  assert.ok(limited.body.length <= 4000);
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

Deno.test("buildPage() counts exactly near the bound, so a page fills to it exactly", async (t) => {
  // Multi-byte text: the bound is in UTF-8 bytes, not characters.
  const event = (seq: number): EventRecord => ({
    seq,
    id: `evt_${String(seq).padStart(3, "0")}`,
    session_id: "ses_1",
    kind: "output",
    payload_json: JSON.stringify({ stream: "stdout", data: "é".repeat(50) }),
    created_at: "2026-11-21T22:19:00.000Z",
  });
  const events = Array.from({ length: 40 }, (_, i) => event(i + 1));
  const rowBytes = events.map((e) => utf8Length(JSON.stringify(e)) + 1);
  /** The body bound that the first `count` events fill exactly, with the 128-byte allowance. */
  const fits = (count: number) => 128 + rowBytes.slice(0, count).reduce((a, b) => a + b, 0);
  await t.step("a bound that the events fill exactly", () => {
    for (const count of [1, 7, 20, 39]) {
      const page = buildPage(reader(events), { afterSeq: 0, limit: 40, maxBytes: fits(count) });
      assert.equal(page.count, count, `bound ${fits(count)}`);
      assert.equal(page.hasMore, true);
      assert.ok(page.body.length <= fits(count));
    }
  });
  await t.step("one byte short of it", () => {
    const page = buildPage(reader(events), { afterSeq: 0, limit: 40, maxBytes: fits(20) - 1 });
    assert.equal(page.count, 19);
  });
  await t.step("without a limit, exactly at the bound and just past it", () => {
    assert.equal(buildPage(reader(events), { afterSeq: 0, maxBytes: fits(40) }).count, 40);
    assert.throws(
      () => buildPage(reader(events), { afterSeq: 0, maxBytes: fits(40) - 1 }),
      (error: unknown) => error instanceof ServiceError && error.details.seq === 40,
    );
  });
  await t.step("a page of rows of mixed sizes", () => {
    const mixed = [...log(5, 10), ...events.slice(5)];
    const exact = 128 + mixed.reduce((sum, e) => sum + utf8Length(JSON.stringify(e)) + 1, 0);
    assert.equal(buildPage(reader(mixed), { afterSeq: 0, limit: 40, maxBytes: exact }).count, 40);
    assert.equal(
      buildPage(reader(mixed), { afterSeq: 0, limit: 40, maxBytes: exact - 1 }).count,
      39,
    );
  });
});

Deno.test("buildPage() gives the same page from batches and from a row per event (issue 14)", () => {
  const events = log(30, 700).map((e, i) =>
    i % 3 ? e : { ...e, payload_json: '{"data":"é\\u0001😀"}' }
  );
  for (
    const options of [
      { afterSeq: 0 },
      { afterSeq: 3, limit: 7 },
      { afterSeq: 0, limit: 30, maxBytes: 9000 },
      { afterSeq: 0, maxBytes: 9000 },
    ]
  ) {
    const run = (read: PageRead) => {
      try {
        return buildPage(read, options);
      } catch (error) {
        return (error as ServiceError).details;
      }
    };
    assert.deepEqual(run(batchReader(events)), run(reader(events)), JSON.stringify(options));
  }
  assert.deepEqual(JSON.parse(text(buildPage(batchReader([]), { afterSeq: 0 }))), {
    events: [],
    nextCursor: { afterSeq: 0 },
    hasMore: false,
  });
});

Deno.test("buildPage() refuses a batch that a reader returned beyond its room", () => {
  const events = log(5);
  const json = encoder.encode(events.map((e) => JSON.stringify(e)).join(","));
  const careless: PageRead = () => [{ seq: 5, json, count: 5 }];
  assert.throws(
    () => buildPage(careless, { afterSeq: 0, limit: 5, maxBytes: 200 }),
    /beyond its room/,
  );
});

Deno.test("buildPage() gives the same page when the rows stop at the first one past the room (issue 26)", () => {
  const events = log(60, 900).map((e, i) =>
    i % 4 ? e : { ...e, payload_json: JSON.stringify({ data: "é\n".repeat(300 + i) }) }
  );
  const rowBytes = events.map((e) => utf8Length(JSON.stringify(e)) + 1);
  const fits = (count: number) => 128 + rowBytes.slice(0, count).reduce((a, b) => a + b, 0);
  const bounds = [
    undefined,
    2000,
    fits(1),
    fits(7),
    fits(7) - 1,
    fits(7) + 1,
    fits(60),
    fits(60) - 1,
  ];
  for (const maxBytes of bounds) {
    for (
      const options of [{ afterSeq: 0 }, { afterSeq: 5, limit: 40 }, { afterSeq: 0, limit: 60 }]
    ) {
      const run = (read: PageRead) => {
        try {
          const page = buildPage(read, { ...options, ...(maxBytes ? { maxBytes } : {}) });
          return { ...page, body: text(page) };
        } catch (error) {
          return (error as ServiceError).details;
        }
      };
      assert.deepEqual(
        run(roomReader(events)),
        run(reader(events)),
        JSON.stringify({ maxBytes, options }),
      );
    }
  }
});
