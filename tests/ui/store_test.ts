/**
 * UiStore's throttle (issue 38 item 7): progress notices reach the views at
 * most every `notifyIntervalMs`, but what the user must act on — an
 * approval, a session that needs attention or ended, the connection — is
 * published at once. Time is a fake clock: nothing here waits.
 */
import assert from "node:assert/strict";
import { UiStore } from "../../src/ui/store.ts";
import { FakeClock } from "../fakes/clock.ts";
import { approval, fleetLists, iso, NOW, session } from "./fixtures.ts";

function throttledStore() {
  const clock = new FakeClock(NOW);
  const store = new UiStore({ notifyIntervalMs: 250, clock });
  let published = 0;
  store.subscribe(() => published++);
  store.synced(fleetLists());
  return { clock, store, published: () => published };
}

Deno.test("UiStore holds progress notices back for the interval, then publishes once", async () => {
  const { clock, store, published } = throttledStore();
  assert.equal(published(), 1, "the first sync at once");
  store.progress("ses_01WORKING0000000000000000", NOW);
  store.progress("ses_01IDLE00000000000000000000", NOW);
  assert.equal(published(), 1, "held back");
  await clock.advance(250);
  assert.equal(published(), 2, "both in one publication");
  assert.equal(store.snapshot().lastEventAt.size, 2);
  assert.equal(clock.pending, 0);
});

Deno.test("UiStore publishes an approval at once, with what was held back", async (t) => {
  await t.step("a new approval", () => {
    const { clock, store, published } = throttledStore();
    store.progress("ses_01WORKING0000000000000000", NOW);
    store.approvals([
      ...fleetLists().approvals,
      approval({ sessionId: "ses_01WORKING0000000000000000", requestId: "req_2" }),
    ]);
    assert.equal(published(), 2, "not after the interval: now");
    assert.equal(store.snapshot().lastEventAt.size, 1, "the held-back progress came along");
    assert.equal(clock.pending, 0, "nothing left to publish later");
  });
  await t.step("a request answered elsewhere leaves at once too", () => {
    const { store, published } = throttledStore();
    store.progress("ses_01WORKING0000000000000000", NOW);
    store.approvals([]);
    assert.equal(published(), 2);
  });
});

Deno.test("UiStore publishes attention and ended states at once, routine updates throttled", async (t) => {
  const working = session({ id: "ses_01WORKING0000000000000000" });
  await t.step("waiting for approval", () => {
    const { store, published } = throttledStore();
    store.progress(working.id, NOW);
    store.session({ ...working, activity: "waiting_approval" });
    assert.equal(published(), 2);
  });
  await t.step("a turn finished", () => {
    const { store, published } = throttledStore();
    store.progress(working.id, NOW);
    store.session({ ...working, activity: "idle", turns: 2 });
    assert.equal(published(), 2);
  });
  await t.step("ended", () => {
    const { store, published } = throttledStore();
    store.progress(working.id, NOW);
    store.session({ ...working, status: "completed", activity: null });
    assert.equal(published(), 2);
  });
  await t.step("the daemon went away", () => {
    const { store, published } = throttledStore();
    store.progress(working.id, NOW);
    store.disconnected("No daemon answers");
    assert.equal(published(), 2);
  });
  await t.step("a record that changed nothing the user acts on waits", async () => {
    const { clock, store, published } = throttledStore();
    store.progress(working.id, NOW);
    store.session({ ...working, title: "renamed", last_seq: 99 });
    store.cost(1.5);
    assert.equal(published(), 1);
    await clock.advance(250);
    assert.equal(published(), 2);
  });
});

Deno.test("UiStore.subscribeUrgent() hears what is published at once, after the views, and nothing held back", async () => {
  const { clock, store } = throttledStore();
  const heard: string[] = [];
  store.subscribe(() => heard.push("views"));
  const unsubscribe = store.subscribeUrgent(() => heard.push("urgent"));
  store.progress("ses_01WORKING0000000000000000", NOW);
  store.cost(1.5);
  await clock.advance(250);
  assert.deepEqual(heard, ["views"], "a throttled publication is not urgent");
  store.approvals([]);
  assert.deepEqual(heard, ["views", "views", "urgent"], "the views have the snapshot first");
  unsubscribe();
  store.disconnected("No daemon answers");
  assert.deepEqual(heard, ["views", "views", "urgent", "views"]);
});

Deno.test("UiStore.inboxRead() marks one result read at once (issue 38 item 12)", () => {
  const store = new UiStore({ notifyIntervalMs: 60_000 });
  store.synced(fleetLists());
  let heard = 0;
  store.subscribe(() => heard++);
  store.inboxRead("run_01UNREAD000000000000000000", "2026-11-27T12:00:00.000Z");
  assert.equal(heard, 1, "the views hear of it at once");
  assert.deepEqual(
    store.snapshot().inbox.map((entry) => entry.readAt !== null),
    [true, true],
  );
  const snapshot = store.snapshot();
  // The feed's `inbox.read` of the same mark (this UI's own `m`), and of a result not listed.
  store.inboxRead("run_01UNREAD000000000000000000", "2026-11-27T12:00:01.000Z");
  store.inboxRead("run_01NOTLISTED0000000000000000", "2026-11-27T12:00:01.000Z");
  assert.equal(heard, 1, "nothing changed, nothing published");
  assert.equal(store.snapshot(), snapshot);
});

Deno.test("UiStore restores who needs you at its first sync, only then (issue 38 item 12)", () => {
  const lists = fleetLists();
  const store = new UiStore({
    notifyIntervalMs: 0,
    restored: { savedAt: iso(3_600_000), unseen: ["ses_01IDLE00000000000000000000"] },
  });
  store.synced(lists);
  // The idle session was unseen at the last quit; the failed one failed since (1 min ago).
  assert.deepEqual([...store.snapshot().unseen].sort(), [
    "ses_01FAILED000000000000000000",
    "ses_01IDLE00000000000000000000",
  ]);
  store.focus("ses_01IDLE00000000000000000000");
  store.synced(lists);
  assert.deepEqual([...store.snapshot().unseen], ["ses_01FAILED000000000000000000"]);
});
