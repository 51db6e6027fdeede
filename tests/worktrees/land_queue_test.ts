import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { ServiceError } from "../../src/errors.ts";
import { silentLogger } from "../../src/log.ts";
import { LandQueueStore } from "../../src/store/land_queue_store.ts";
import { migrate } from "../../src/store/db.ts";
import { type Lander, LandQueue, type SendBack } from "../../src/worktrees/land_queue.ts";
import type { LandRequest } from "../../src/worktrees/land_types.ts";
import { FakeClock } from "../fakes/clock.ts";

/** A lander that lands by name: each session's land resolves or throws as scripted. */
function fakeLander(script: Record<string, Array<string | ServiceError>>) {
  const lands: string[] = [];
  let moved: string[] = [];
  const lander: Lander = {
    land: (sessionId: string, _request: LandRequest, hooks) => {
      lands.push(sessionId);
      const next = script[sessionId].shift()!;
      if (next instanceof ServiceError) return Promise.reject(next);
      hooks.moving?.(next);
      moved = [...moved, next];
      return Promise.resolve({
        sessionId,
        mode: "squash",
        branch: "refs/heads/main",
        previousCommit: "0",
        landedCommit: next,
        landedAt: "2025-01-01T00:00:00.000Z",
        uncommittedCommit: null,
      });
    },
    check: () => Promise.reject(new Error("not needed")),
    landedBefore: (_sessionId, attempt) => Promise.resolve(moved.includes(attempt.commit)),
  };
  return { lander, lands, moved: (commit: string) => moved.push(commit) };
}

function rig(lander: Lander, sendBack: SendBack = () => Promise.resolve()) {
  const db = new DatabaseSync(":memory:");
  migrate(db);
  const store = new LandQueueStore(db);
  const events: string[] = [];
  const queue = new LandQueue({
    store,
    lander,
    sendBack,
    sessionExists: (id) => id !== "ses_none",
    publish: (kind, data) => events.push(`${kind} ${data.sessionId}`),
    clock: new FakeClock(0),
    log: silentLogger,
  });
  return { db, store, queue, events };
}

async function settled(queue: LandQueue, done: () => boolean): Promise<void> {
  for (let turns = 0; !done(); turns++) {
    assert.ok(turns < 1000, JSON.stringify(queue.list()));
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
}

Deno.test("LandQueue lands in order and stops at a failure without sendBack (D34)", async () => {
  const conflict = new ServiceError("land_conflict", 409, "Conflict", {
    reason: "conflict",
    files: ["a.txt"],
  });
  const { lander, lands } = fakeLander({ s1: ["c1"], s2: [conflict], s3: ["c3"] });
  const { queue, events, db } = rig(lander);
  await queue.start();
  queue.enqueue({ items: ["s1", "s2", "s3"], mode: "squash" });
  await settled(queue, () => queue.list()[1].state === "failed");
  assert.deepEqual(queue.list().map((item) => item.state), ["landed", "failed", "queued"]);
  assert.deepEqual(lands, ["s1", "s2"]);
  assert.deepEqual(queue.list()[1].lastError?.files, ["a.txt"]);
  assert.deepEqual(events.slice(0, 3), ["land.queued s1", "land.queued s2", "land.queued s3"]);
  assert.throws(() => queue.enqueue({ items: ["ses_none"], mode: "squash" }), /ses_none/);
  db.close();
});

Deno.test("LandQueue at start takes an item whose commit reached the checkout as landed, never landing it again (D34)", async () => {
  const { lander, lands, moved } = fakeLander({ s1: [], s2: ["c2"] });
  const { queue, store, db } = rig(lander);
  await queue.stop();
  queue.enqueue({ items: ["s1", "s2"], mode: "squash" });
  // A crash between the checkout moving to c1 and the row saying landed.
  const [first] = store.list();
  store.update(first.id, { state: "verifying", landing_commit: "c1" });
  moved("c1");
  const restarted = new LandQueue({
    store,
    lander,
    sendBack: () => Promise.resolve(),
    sessionExists: () => true,
    publish: () => {},
    clock: new FakeClock(0),
    log: silentLogger,
  });
  await restarted.start();
  await settled(restarted, () => restarted.list().every((item) => item.state === "landed"));
  assert.deepEqual(lands, ["s2"]);
  assert.deepEqual(restarted.list().map((item) => item.landedCommit), ["c1", "c2"]);
  db.close();
});

Deno.test("LandQueue sends a conflicted item back and retries it at the end, at most maxAttempts (D34)", async () => {
  const conflict = () =>
    new ServiceError("land_conflict", 409, "Conflict", { reason: "conflict", files: ["a.txt"] });
  const { lander, lands } = fakeLander({
    s1: [conflict(), conflict(), conflict()],
    s2: ["c2"],
  });
  const turns: string[] = [];
  const { queue, db, events } = rig(lander, (sessionId: string, turn: string) => {
    turns.push(`${sessionId}: ${turn}`);
    return Promise.resolve();
  });
  await queue.start();
  queue.enqueue({ items: ["s1", "s2"], mode: "squash", sendBack: true, maxAttempts: 2 });
  await settled(queue, () => queue.list().some((item) => item.state === "failed"));
  const [second, first] = queue.list();
  assert.equal(second.sessionId, "s2");
  assert.equal(second.state, "landed");
  assert.equal(first.state, "failed");
  assert.equal(first.attempts, 2);
  assert.deepEqual(lands, ["s1", "s2", "s1", "s1"]);
  assert.equal(turns.length, 2);
  assert.match(turns[0], /^s1: svc could not land your work: Conflict\.[\s\S]*- a\.txt/);
  // Queued again after each turn: views following /stream see it waiting at the end.
  assert.deepEqual(events.filter((event) => event.endsWith(" s1")), [
    "land.queued s1",
    "land.sent_back s1",
    "land.queued s1",
    "land.sent_back s1",
    "land.queued s1",
  ]);
  db.close();
});
