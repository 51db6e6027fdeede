import assert from "node:assert/strict";
import {
  attentionItems,
  EMPTY_SNAPSHOT,
  fleetRows,
  fleetState,
  nextAttention,
  nextRoutineDue,
  pendingSession,
  projectOf,
} from "../../src/ui/model.ts";
import { UiStore } from "../../src/ui/store.ts";
import { fleetLists, iso, NOW, routine, session } from "./fixtures.ts";

const STALLED = 120_000;

Deno.test("fleetState() names each state; working with no event for the threshold is stalled", () => {
  const at = (activity: "working" | "idle" | "waiting_approval" | "starting" | null) =>
    fleetState(session({ id: "s", activity }), NOW - 1000, NOW, STALLED);
  assert.equal(at("working"), "working");
  assert.equal(at("idle"), "idle");
  assert.equal(at("waiting_approval"), "waiting");
  assert.equal(at("starting"), "starting");
  assert.equal(at(null), "working");
  const quiet = session({ id: "s", activity: "working" });
  assert.equal(fleetState(quiet, NOW - STALLED + 1, NOW, STALLED), "working");
  assert.equal(fleetState(quiet, NOW - STALLED, NOW, STALLED), "stalled");
  assert.equal(
    fleetState(session({ id: "s", activity: "idle" }), NOW - 10 * STALLED, NOW, STALLED),
    "idle",
    "an idle agent waits for the user: not stalled",
  );
  for (const status of ["completed", "failed", "killed", "orphaned"]) {
    assert.equal(fleetState(session({ id: "s", status }), NOW, NOW, STALLED), status);
  }
  assert.equal(fleetState(session({ id: "s", status: "weird" }), NOW, NOW, STALLED), "ended");
});

Deno.test("fleetRows() puts live sessions first, then the newest event; filter matches fields", () => {
  const store = new UiStore({ notifyIntervalMs: 0 });
  store.synced(fleetLists());
  const snapshot = store.snapshot();
  const options = { nowMs: NOW, stalledAfterMs: STALLED, showEnded: true, filter: "" };
  const ids = fleetRows(snapshot, options).map((row) => row.session.id.slice(6, 10));
  assert.deepEqual(ids, ["WORK", "WAIT", "IDLE", "STAL", "FAIL", "DONE"]);
  assert.equal(fleetRows(snapshot, { ...options, showEnded: false }).length, 4);
  assert.deepEqual(
    fleetRows(snapshot, { ...options, filter: "CODEX" }).map((row) => row.session.harness),
    ["codex"],
  );
  // session.progress moves a session up and un-stalls it.
  store.progress("ses_01STALLED00000000000000000", NOW);
  const moved = fleetRows(store.snapshot(), options);
  assert.equal(moved[0].session.id, "ses_01STALLED00000000000000000");
  assert.equal(moved[0].state, "working");
});

Deno.test("projectOf() is an isolated session's repository; / finds it by that (issue 38 item 11)", () => {
  const isolated = session({
    id: "ses_01TREE00000000000000000000",
    project_root: "/home/me/.svc/worktrees/ses_01TREE00000000000000000000",
    worktree: {
      path: "/home/me/.svc/worktrees/ses_01TREE00000000000000000000",
      branch: "svc/session/ses_01TREE00000000000000000000",
      repository: "/home/me/proj",
    },
  });
  assert.equal(projectOf(isolated), "/home/me/proj");
  assert.equal(projectOf(session({ id: "s", project_root: "/home/me/other" })), "/home/me/other");
  const store = new UiStore({ notifyIntervalMs: 0 });
  store.synced({
    ...fleetLists(),
    sessions: [isolated, session({ id: "ses_01PLAIN", project_root: "/home/me/other" })],
  });
  const options = { nowMs: NOW, stalledAfterMs: STALLED, showEnded: true, filter: "proj" };
  assert.deepEqual(
    fleetRows(store.snapshot(), options).map((row) => row.session.id),
    ["ses_01TREE00000000000000000000"],
  );
});

Deno.test("attentionItems() orders approval, failed/stalled, finished turns; nextAttention wraps", () => {
  const store = new UiStore({ notifyIntervalMs: 0 });
  store.synced(fleetLists());
  // Changes seen live while the user looks elsewhere: a failure and a finished turn.
  store.session(session({ id: "ses_01WORKING0000000000000000", activity: "idle", turns: 2 }));
  store.session(
    session({ id: "ses_01IDLE00000000000000000000", status: "failed", activity: null }),
  );
  const items = attentionItems(store.snapshot(), { nowMs: NOW, stalledAfterMs: STALLED });
  assert.deepEqual(items.map((item) => [item.session.id.slice(6, 10), item.reason]), [
    ["WAIT", "approval"],
    ["STAL", "stalled"],
    ["IDLE", "failed"],
    ["WORK", "turn finished"],
  ]);
  assert.equal(nextAttention(items, null), "ses_01WAITING0000000000000000");
  assert.equal(
    nextAttention(items, "ses_01WORKING0000000000000000"),
    "ses_01WAITING0000000000000000",
  );
  assert.equal(nextAttention([], null), null);
  // Looking at a session makes its finished turn seen.
  store.focus("ses_01WORKING0000000000000000");
  const after = attentionItems(store.snapshot(), { nowMs: NOW, stalledAfterMs: STALLED });
  assert.ok(!after.some((item) => item.reason === "turn finished"));
});

Deno.test("nextRoutineDue() takes the earliest ACTIVE routine", () => {
  assert.equal(nextRoutineDue([]), null);
  const soon = routine({ id: "soon", nextDueAt: iso(-60_000) });
  const paused = routine({ id: "paused", status: "PAUSED", nextDueAt: iso(-1000) });
  const later = routine({ id: "later", nextDueAt: iso(-3_600_000) });
  assert.deepEqual(nextRoutineDue([later, paused, soon]), { id: "soon", at: NOW + 60_000 });
});

Deno.test("UiStore keeps what it knows when the daemon goes away and says so; a restart is a banner", () => {
  const store = new UiStore({ notifyIntervalMs: 0 });
  assert.equal(store.snapshot(), EMPTY_SNAPSHOT);
  store.synced(fleetLists());
  store.disconnected("No daemon answers");
  assert.equal(store.snapshot().connection, "disconnected");
  assert.equal(store.snapshot().banner, "No daemon answers");
  assert.equal(store.snapshot().sessions.size, 6);
  const restarted = fleetLists();
  restarted.daemon = { ...restarted.daemon, instanceId: "inst_2" };
  store.synced(restarted);
  assert.equal(store.snapshot().connection, "connected");
  assert.match(store.snapshot().banner ?? "", /restarted/);
  store.synced(restarted);
  assert.equal(store.snapshot().banner, null);
});

Deno.test("UiStore counts new approvals once (the bell)", () => {
  const store = new UiStore({ notifyIntervalMs: 0 });
  const lists = fleetLists();
  store.synced(lists);
  assert.equal(store.takeNewApprovals(), 1);
  assert.equal(store.takeNewApprovals(), 0);
  store.approvals(lists.approvals);
  assert.equal(store.takeNewApprovals(), 0);
  store.approvals([...lists.approvals, { ...lists.approvals[0], requestId: "req_2" }]);
  assert.equal(store.takeNewApprovals(), 1);
});

Deno.test("pendingSession() is a live session known only by its id", () => {
  const record = pendingSession("ses_1", "2026-11-27T12:00:00.000Z");
  assert.equal(record.status, "running");
  assert.equal(record.activity, "starting");
  assert.equal(record.updated_at, "2026-11-27T12:00:00.000Z");
});
