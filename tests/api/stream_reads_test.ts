import assert from "node:assert/strict";
import { StreamReads } from "../../src/api/stream_reads.ts";
import type { EventRecord } from "../../src/store/events_store.ts";

function record(seq: number, payloadChars = 2): EventRecord {
  return {
    seq,
    id: `evt_${seq}`,
    session_id: "ses_a",
    kind: "output",
    payload_json: "x".repeat(payloadChars),
    created_at: "2026-11-26T00:00:00.000Z",
  };
}

/** A StreamReads over a hand-moved change counter, counting the loads it makes. */
function setup() {
  let changes = 0;
  const reads = new StreamReads(() => changes);
  let loads = 0;
  const load = (rows: EventRecord[]) => () => {
    loads++;
    return rows;
  };
  return { reads, load, loads: () => loads, change: () => changes++ };
}

Deno.test("StreamReads: readers at the same cursor share one read until the log changes", () => {
  const { reads, load, loads, change } = setup();
  const leaveA = reads.join("ses_a");
  const leaveB = reads.join("ses_a");
  const first = reads.rows("ses_a", "0 128 ", load([record(1)]));
  assert.equal(reads.rows("ses_a", "0 128 ", load([record(9)])), first);
  assert.equal(loads(), 1);
  change();
  assert.deepEqual(reads.rows("ses_a", "0 128 ", load([record(1), record(2)])).length, 2);
  assert.equal(loads(), 2);
  leaveA();
  leaveB();
});

Deno.test("StreamReads: another query, another session or no stream reads its own", () => {
  const { reads, load, loads } = setup();
  const leave = reads.join("ses_a");
  reads.rows("ses_a", "0 128 ", load([record(1)]));
  assert.deepEqual(reads.rows("ses_a", "1 128 ", load([record(2)])), [record(2)]);
  assert.deepEqual(reads.rows("ses_a", "1 128 output", load([])), []);
  assert.deepEqual(reads.rows("ses_b", "0 128 ", load([record(3)])), [record(3)]);
  assert.deepEqual(reads.rows("ses_b", "0 128 ", load([record(4)])), [record(4)]);
  assert.equal(loads(), 5);
  leave();
});

Deno.test("StreamReads: a large batch is not kept", () => {
  const { reads, load, loads } = setup();
  const leave = reads.join("ses_a");
  const big = [record(1, 600_000), record(2, 600_000)];
  reads.rows("ses_a", "0 128 ", load(big));
  reads.rows("ses_a", "0 128 ", load(big));
  assert.equal(loads(), 2);
  leave();
});

Deno.test("StreamReads: liveness is shared until the log changes (a session that ends notifies)", () => {
  const { reads, change } = setup();
  const leave = reads.join("ses_a");
  let running = true;
  let asked = 0;
  const live = () => {
    asked++;
    return running;
  };
  assert.equal(reads.live("ses_a", live), true);
  running = false;
  assert.equal(reads.live("ses_a", live), true, "the same moment of the log");
  change();
  assert.equal(reads.live("ses_a", live), false);
  assert.equal(asked, 2);
  leave();
});

Deno.test("StreamReads: nothing is kept once the last stream leaves, and leaving twice counts once", () => {
  const { reads, load, loads } = setup();
  const leaveA = reads.join("ses_a");
  const leaveB = reads.join("ses_a");
  reads.rows("ses_a", "0 128 ", load([record(1)]));
  leaveA();
  leaveA();
  reads.rows("ses_a", "0 128 ", load([record(1)]));
  assert.equal(loads(), 1, "B still reads the shared rows");
  leaveB();
  reads.rows("ses_a", "0 128 ", load([record(1)]));
  reads.rows("ses_a", "0 128 ", load([record(1)]));
  assert.equal(loads(), 3);
});
