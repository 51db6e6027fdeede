import assert from "node:assert/strict";
import { PROGRESS_INTERVAL_MS, ProgressNotices } from "../../src/events/progress_notices.ts";

function notices() {
  let now = 1_000_000;
  const published: Array<{ sessionId: string; lastSeq: number; at: string }> = [];
  const progress = new ProgressNotices({
    clock: { now: () => now },
    publish: (data) => published.push(data),
  });
  return { progress, published, advance: (ms: number) => now += ms };
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

Deno.test("ProgressNotices announces a session's first commit at once (D25)", () => {
  const { progress, published } = notices();
  progress.committed(new Map([["ses_a", 3], ["ses_b", 7]]));
  assert.deepEqual(published.map((n) => [n.sessionId, n.lastSeq]), [["ses_a", 3], ["ses_b", 7]]);
  assert.equal(published[0].at, new Date(1_000_000).toISOString());
  progress.stop();
});

Deno.test("ProgressNotices throttles a busy session and never loses its last seq", async () => {
  const { progress, published, advance } = notices();
  progress.committed(new Map([["ses_a", 1]]));
  for (let seq = 2; seq <= 50; seq++) progress.committed(new Map([["ses_a", seq]]));
  assert.equal(published.length, 1, "later commits wait for the interval");
  advance(PROGRESS_INTERVAL_MS);
  await wait(PROGRESS_INTERVAL_MS + 50);
  assert.equal(published.length, 2, "one trailing notice");
  assert.equal(published[1].lastSeq, 50);
  progress.stop();
});

Deno.test("ProgressNotices says nothing after stop", async () => {
  const { progress, published } = notices();
  progress.committed(new Map([["ses_a", 1]]));
  progress.committed(new Map([["ses_a", 2]]));
  progress.stop();
  progress.committed(new Map([["ses_b", 1]]));
  await wait(PROGRESS_INTERVAL_MS + 50);
  assert.equal(published.length, 1);
});
