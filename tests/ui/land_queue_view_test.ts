import assert from "node:assert/strict";
import {
  coalescedReads,
  failureText,
  isLandNotice,
  type LandQueueItem,
  landRows,
} from "../../src/ui/land_queue_view.ts";
import { UiStore } from "../../src/ui/store.ts";
import { fleetLists, session } from "./fixtures.ts";

function item(fields: Partial<LandQueueItem> & { itemId: string }): LandQueueItem {
  return {
    sessionId: `ses_${fields.itemId}`,
    position: 0,
    state: "queued",
    attempts: 0,
    maxAttempts: 2,
    lastError: null,
    landedCommit: null,
    ...fields,
  };
}

const conflict = {
  code: "land_conflict",
  message: "Conflict",
  reason: "conflict",
  files: ["a.txt", "b.txt"],
};

Deno.test("landRows() lists items in queue order with their state, tries and why (D34)", () => {
  const sessions = new Map([["ses_one", session({ id: "ses_one", title: "first\x1b]0;x\x07" })]]);
  const rows = landRows([
    item({ itemId: "three", position: 5, state: "queued", attempts: 1, lastError: conflict }),
    item({
      itemId: "one",
      sessionId: "ses_one",
      position: 1,
      state: "landed",
      landedCommit: "c".repeat(40),
    }),
    item({ itemId: "two", position: 2, state: "failed", lastError: conflict }),
    item({ itemId: "four", position: 6 }),
  ], sessions);
  assert.deepEqual(rows.map((row) => row.itemId), ["one", "two", "three", "four"]);
  assert.deepEqual(rows.map((row) => row.label), [
    "✓ landed",
    "✗ failed",
    "… queued",
    "… queued",
  ]);
  assert.equal(rows[0].detail, `as ${"c".repeat(12)}`);
  assert.equal(rows[0].title, "first^[]0;x^G", "a title never reaches the terminal raw");
  assert.equal(rows[1].detail, "conflict: a.txt, b.txt");
  assert.equal(rows[2].detail, "conflict: a.txt, b.txt", "queued again: why it was sent back");
  assert.equal(rows[2].tries, "1/2");
  assert.equal(rows[3].detail, "");
});

Deno.test("failureText() names the verify's last line, or the code and message", () => {
  assert.equal(
    failureText({
      code: "verify_failed",
      message: "Verify failed",
      command: ["deno", "test"],
      tail: "ok 1\nFAILED: 2 tests\n\n",
    }),
    "verify failed: FAILED: 2 tests",
  );
  assert.equal(failureText({ code: "verify_failed", message: "Verify failed" }), "verify failed");
  assert.equal(
    failureText({
      code: "land_conflict",
      message: "The checkout has uncommitted changes",
      reason: "dirty",
    }),
    "land_conflict: The checkout has uncommitted changes",
  );
  assert.ok(isLandNotice("land.sent_back"));
  assert.ok(!isLandNotice("session.updated"));
});

Deno.test("coalescedReads() never reads twice at once and reads once more after a notice mid-read", async () => {
  let reads = 0;
  let release = () => {};
  const read = coalescedReads(() => {
    reads++;
    return new Promise<void>((resolve) => release = resolve);
  });
  const first = read();
  void read();
  void read();
  assert.equal(reads, 1);
  release();
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal(reads, 2, "the notices during the first read: one more read");
  release();
  await first;
  assert.equal(reads, 2);
});

Deno.test("UiStore.landQueue() publishes at once and a resync keeps the queue", () => {
  const store = new UiStore({ notifyIntervalMs: 60_000 });
  let heard = 0;
  store.subscribe(() => heard++);
  store.landQueue([item({ itemId: "one" })]);
  assert.equal(heard, 1);
  assert.equal(store.snapshot().landQueue.length, 1);
  store.synced(fleetLists());
  assert.equal(store.snapshot().landQueue.length, 1, "read again after the resync, not dropped");
});
