import assert from "node:assert/strict";
import type { DatabaseSync } from "node:sqlite";
import { openDatabase } from "../../src/store/db.ts";
import { type EventRecord, EventsStore } from "../../src/store/events_store.ts";
import { SessionsStore } from "../../src/store/sessions_store.ts";
import { runningSessionRow } from "../helpers/rows.ts";

function withStore(fn: (store: EventsStore, db: DatabaseSync, prepared: () => number) => void) {
  const db = openDatabase(":memory:");
  try {
    const sessions = new SessionsStore(db);
    for (const id of ["ses_a", "ses_b"]) {
      sessions.insert(runningSessionRow(id));
    }
    let count = 0;
    const prepare = db.prepare.bind(db);
    db.prepare = (sql: string) => {
      count++;
      return prepare(sql);
    };
    fn(new EventsStore(db), db, () => count);
  } finally {
    db.close();
  }
}

function record(sessionId: string, seq: number): EventRecord {
  return {
    seq,
    id: `evt_${sessionId}_${seq}`,
    session_id: sessionId,
    kind: "output",
    payload_json: JSON.stringify({ stream: "stdout", data: `line ${seq}\n` }),
    created_at: `2026-11-22T00:00:${String(seq % 60).padStart(2, "0")}.000Z`,
  };
}

Deno.test("EventsStore appends, reads by cursor and finds seqs, preparing its statements once", () => {
  withStore((store, db, prepared) => {
    const afterConstruction = prepared();
    for (let batch = 0; batch < 5; batch++) {
      store.appendBatch([
        record("ses_a", batch * 2 + 1),
        record("ses_b", batch + 1),
        record("ses_a", batch * 2 + 2),
      ]);
    }
    assert.deepEqual(
      store.readAfter("ses_a", 0, 100).map((e) => e.seq),
      Array.from({ length: 10 }, (_, i) => i + 1),
    );
    assert.deepEqual(
      store.readAfter("ses_a", 7, 2).map((row) => ({ ...row })),
      [record("ses_a", 8), record("ses_a", 9)],
    );
    assert.deepEqual(store.readAfter("ses_b", 5, 10), []);
    assert.equal(store.seqOf("ses_b", "evt_ses_b_3"), 3);
    assert.equal(store.seqOf("ses_a", "evt_ses_b_3"), null, "an event of another session");
    assert.equal(store.seqOf("ses_a", "evt_unknown"), null);
    store.appendBatch([]);
    const lastSeqs = db.prepare("SELECT id, last_seq FROM sessions ORDER BY id").all();
    assert.deepEqual(lastSeqs.map((row) => ({ ...row })), [
      { id: "ses_a", last_seq: 10 },
      { id: "ses_b", last_seq: 5 },
    ]);
    assert.equal(prepared() - 1, afterConstruction, "only the query above prepared a statement");
  });
});

Deno.test("EventsStore.appendBatch() keeps nothing of a batch that fails", () => {
  withStore((store) => {
    store.appendBatch([record("ses_a", 1)]);
    assert.throws(() => store.appendBatch([record("ses_a", 2), record("ses_a", 1)]));
    assert.deepEqual(store.readAfter("ses_a", 0, 10).map((e) => e.seq), [1]);
    store.appendBatch([record("ses_a", 2)]);
    assert.deepEqual(store.readAfter("ses_a", 0, 10).map((e) => e.seq), [1, 2]);
  });
});

Deno.test("readJsonAfter() gives each record's JSON, as JSON.stringify gives it (issue 14)", () => {
  const db = openDatabase(":memory:");
  new SessionsStore(db).insert(runningSessionRow("ses_j"));
  const store = new EventsStore(db);
  const texts = [
    "plain",
    'quote " back \\ slash',
    "ctl \u0000\u0001\u001f\b\f\n\r\t del \u007f",
    "é € 😀 \u2028\u2029",
    "</script>",
    "x".repeat(70_000),
  ];
  const records = texts.map((data, i) => ({
    seq: i + 1,
    id: `evt_${i}`,
    session_id: "ses_j",
    kind: i % 2 ? "output" : "agent.message",
    payload_json: JSON.stringify({ stream: "stdout", data }),
    created_at: "2026-11-23T00:00:00.000Z",
  }));
  store.appendBatch(records);
  const rows = store.readJsonAfter("ses_j", 0, 100);
  assert.deepEqual(rows.map((row) => row.seq), [1, 2, 3, 4, 5, 6]);
  for (const [index, row] of rows.entries()) {
    const text = new TextDecoder().decode(row.json);
    assert.deepEqual(JSON.parse(text), records[index]);
    assert.equal(text, JSON.stringify(records[index]), texts[index].slice(0, 20));
  }
  assert.deepEqual(store.readJsonAfter("ses_j", 1, 100, ["output"]).map((r) => r.seq), [2, 4, 6]);

  // The same records joined into one batch, in seq order, filtered and limited alike.
  const joined = (list: typeof records) => list.map((r) => JSON.stringify(r)).join(",");
  const batch = store.readJsonBatch("ses_j", 0, 100);
  assert.equal(batch.count, 6);
  assert.equal(batch.seq, 6);
  assert.equal(new TextDecoder().decode(batch.json), joined(records));
  const some = store.readJsonBatch("ses_j", 1, 2, ["output"]);
  assert.deepEqual([some.count, some.seq], [2, 4]);
  assert.equal(new TextDecoder().decode(some.json), joined([records[1], records[3]]));
  const none = store.readJsonBatch("ses_j", 6, 100);
  assert.deepEqual([none.count, none.json.length, none.large], [0, 0, 0]);
  assert.equal(batch.large, 0);

  // Payloads of `largeBytes` or more are counted, and their JSON is not made (issue 26).
  const sizes = records.map((r) => new TextEncoder().encode(r.payload_json).length);
  const bound = sizes[5]; // the 70 000-character one
  const cut = store.readJsonBatch("ses_j", 0, 100, undefined, bound);
  assert.deepEqual([cut.count, cut.seq, cut.large], [6, 6, 1]);
  assert.equal(new TextDecoder().decode(cut.json), joined(records.slice(0, 5)));
  const under = store.readJsonBatch("ses_j", 0, 100, undefined, bound + 1);
  assert.deepEqual([under.large, under.json.length], [0, batch.json.length]);
  const filtered = store.readJsonBatch("ses_j", 0, 100, ["output"], sizes[1]);
  assert.equal(filtered.large, sizes.filter((n, i) => i % 2 === 1 && n >= sizes[1]).length);
  db.close();
});

Deno.test("readJsonAfter() with a room stops at the first row past it, that row included (issue 26)", () => {
  const db = openDatabase(":memory:");
  new SessionsStore(db).insert(runningSessionRow("ses_r"));
  const store = new EventsStore(db);
  store.appendBatch(
    Array.from({ length: 20 }, (_, i) => ({
      seq: i + 1,
      id: `evt_${i + 1}`,
      session_id: "ses_r",
      kind: i % 2 ? "output" : "agent.message",
      payload_json: JSON.stringify({ stream: "stdout", data: "0a1b\n".repeat(10 * (i + 1)) }),
      created_at: "2026-11-23T00:00:00.000Z",
    })),
  );
  const all = store.readJsonAfter("ses_r", 0, 100);
  const sizes = all.map((row) => row.json.length + 1);
  const upTo = (count: number) => sizes.slice(0, count).reduce((a, b) => a + b, 0);
  const seqs = (rows: { seq: number }[]) => rows.map((row) => row.seq);
  // Exactly full: the next row is the first past the room.
  assert.deepEqual(seqs(store.readJsonAfter("ses_r", 0, 100, undefined, upTo(5))), [
    1,
    2,
    3,
    4,
    5,
    6,
  ]);
  assert.deepEqual(seqs(store.readJsonAfter("ses_r", 0, 100, undefined, upTo(5) - 1)), [
    1,
    2,
    3,
    4,
    5,
  ]);
  assert.deepEqual(seqs(store.readJsonAfter("ses_r", 0, 100, undefined, 0)), [1]);
  assert.deepEqual(seqs(store.readJsonAfter("ses_r", 0, 3, undefined, upTo(10))), [1, 2, 3]);
  assert.deepEqual(seqs(store.readJsonAfter("ses_r", 17, 100, undefined, upTo(20))), [18, 19, 20]);
  const outputs = store.readJsonAfter("ses_r", 0, 100, ["output"]);
  const room = outputs[0].json.length + 1 + outputs[1].json.length + 1;
  assert.deepEqual(seqs(store.readJsonAfter("ses_r", 0, 100, ["output"], room)), [2, 4, 6]);
  // The same bytes as the unbounded read, and a stopped read leaves the statement usable.
  const some = store.readJsonAfter("ses_r", 2, 100, undefined, upTo(4));
  assert.deepEqual(
    some.map((row) => [...row.json]),
    all.slice(2, some.length + 2).map((r) => [...r.json]),
  );
  assert.deepEqual(seqs(store.readJsonAfter("ses_r", 0, 100)), seqs(all));
  db.close();
});

Deno.test("readJsonAfter() leaves no read open after a room stops it (issue 26)", () => {
  const dir = Deno.makeTempDirSync();
  try {
    const db = openDatabase(`${dir}/svc.db`);
    new SessionsStore(db).insert(runningSessionRow("ses_w"));
    const store = new EventsStore(db);
    store.appendBatch([1, 2, 3].map((seq) => ({ ...record("ses_a", seq), session_id: "ses_w" })));
    assert.equal(store.readJsonAfter("ses_w", 0, 100, undefined, 0).length, 1);
    const other = openDatabase(`${dir}/svc.db`);
    store.appendBatch([{ ...record("ses_a", 4), session_id: "ses_w" }]);
    const checkpoint = other.prepare("PRAGMA wal_checkpoint(TRUNCATE)").get() as { busy: number };
    assert.equal(checkpoint.busy, 0, "a checkpoint is not held back by the stopped read");
    other.close();
    db.close();
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("appendBatch() stores an output event's payload as JSON.stringify would write it (issue 14)", () => {
  const db = openDatabase(":memory:");
  new SessionsStore(db).insert(runningSessionRow("ses_o"));
  const store = new EventsStore(db);
  const texts = [
    "plain\n",
    'quote " back \\ slash',
    "ctl \u0000\u0001\u001f\b\f\n\r\t del \u007f",
    "é € 😀 \u2028\u2029 \ufffd",
    "x".repeat(70_000),
  ];
  store.appendBatch(texts.map((data, i) => ({
    seq: i + 1,
    id: `evt_${i}`,
    session_id: "ses_o",
    kind: "output" as const,
    stream: i % 2 ? "stderr" : "stdout",
    data,
    created_at: "2026-11-24T00:00:00.000Z",
  })));
  const stored = store.readAfter("ses_o", 0, 10);
  assert.deepEqual(stored.map((event) => event.kind), texts.map(() => "output"));
  for (const [i, event] of stored.entries()) {
    assert.equal(
      event.payload_json,
      JSON.stringify({ stream: i % 2 ? "stderr" : "stdout", data: texts[i] }),
      texts[i].slice(0, 20),
    );
  }
  assert.equal(store.lastSeq("ses_o"), 5);
  db.close();
});
