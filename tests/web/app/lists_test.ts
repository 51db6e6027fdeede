import assert from "node:assert/strict";
import { EMPTY_SNAPSHOT, pendingSession, type Snapshot } from "../../../src/ui/model.ts";
import type { InboxEntry, PendingApproval, RoutineOverview } from "../../../src/ui/model.ts";
import {
  attentionRows,
  inboxRows,
  landListRows,
  openedBy,
  pageLists,
  routineRows,
} from "../../../src/web/app/lists.ts";
import type { LandQueueItem } from "../../../src/ui/land_queue_view.ts";
import { hrefOf, routeOf } from "../../../src/web/app/route.ts";

const NOW = Date.parse("2026-01-01T01:00:00Z");

Deno.test("routeOf() and hrefOf() know attention, routines, land, the inbox and one result", () => {
  for (const view of ["attention", "routines", "land"] as const) {
    assert.deepEqual(routeOf({ pathname: "/", hash: hrefOf({ view }).slice(1) }), { view });
  }
  const inbox = { view: "inbox", runId: null } as const;
  assert.deepEqual(routeOf({ pathname: "/", hash: "#/inbox" }), inbox);
  const result = { view: "inbox", runId: "run/1 a" } as const;
  assert.deepEqual(routeOf({ pathname: "/", hash: hrefOf(result).slice(1) }), result);
  assert.deepEqual(routeOf({ pathname: "/", hash: "#/inbox/%E0" }), inbox);
});

Deno.test("attentionRows(): a waiting request first, then a failure, then a finished turn", () => {
  const at = (id: string, patch: Partial<ReturnType<typeof pendingSession>>) => ({
    ...pendingSession(id, "2026-01-01T00:59:00Z"),
    title: `t ${id}\nnext`,
    harness: "agent",
    ...patch,
  });
  const sessions = new Map([
    ["done", at("done", { activity: "idle" })],
    ["failed", at("failed", { status: "failed" })],
    ["asks", at("asks", { activity: "waiting_approval" })],
    ["quiet", at("quiet", { activity: "idle" })],
  ]);
  const snapshot: Snapshot = {
    ...EMPTY_SNAPSHOT,
    sessions,
    approvals: [{ sessionId: "asks", requestedAt: "2026-01-01T00:59:30Z" } as PendingApproval],
    unseen: new Set(["done", "failed"]),
  };
  const rows = attentionRows(snapshot, NOW);
  assert.deepEqual(rows.map((row) => row.label), [
    "approval: t asks next",
    "failed: t failed next",
    "turn finished: t done next",
  ]);
  assert.equal(rows[0].meta, "agent · asks · 30s ago");
});

Deno.test("routineRows(): next due only when active, health, Run now only with operate", () => {
  const routine = (patch: Partial<RoutineOverview>): RoutineOverview => ({
    id: "nightly",
    name: "Nightly",
    runtime: "agent",
    status: "ACTIVE",
    nextDueAt: "2026-01-02T03:00:00Z",
    lastRunAt: null,
    consecutiveFailures: 0,
    stale: null,
    lastRun: null,
    ...patch,
  });
  const [active, paused] = routineRows([
    routine({}),
    routine({
      id: "p",
      status: "PAUSED",
      consecutiveFailures: 2,
      lastRun: {
        id: "r",
        status: "failed",
        endedAt: null,
      },
    }),
  ], ["operate"]);
  assert.equal(active.label, "nightly: Nightly");
  assert.match(active.nextDue, /^[A-Z][a-z]{2} \d\d:\d\d$/);
  assert.deepEqual([active.health, active.healthy, active.mayOperate], ["ok", true, true]);
  assert.deepEqual([active.statusAction, paused.statusAction], ["Pause", "Activate"]);
  assert.deepEqual([paused.nextDue, paused.health, paused.healthy, paused.lastRun], [
    "-",
    "2 failed",
    false,
    "failed",
  ]);
  assert.equal(routineRows([routine({})], ["approve"])[0].mayOperate, false);
});

Deno.test("inboxRows(): unread first, then the newest; one line each", () => {
  const entry = (runId: string, endedAt: string, readAt: string | null): InboxEntry => ({
    runId,
    routineId: "nightly",
    status: "succeeded",
    endedAt,
    readAt,
    headline: `<b>${runId}</b>\nmore`,
  });
  const rows = inboxRows([
    entry("old", "2026-01-01T00:00:00Z", null),
    entry("read", "2026-01-01T00:59:00Z", "2026-01-01T01:00:00Z"),
    entry("new", "2026-01-01T00:30:00Z", null),
  ], NOW);
  assert.deepEqual(rows.map((row) => row.runId), ["new", "old", "read"]);
  assert.equal(rows[0].label, "unread: nightly: <b>new</b> more");
  assert.equal(rows[2].label, "nightly: <b>read</b> more");
  assert.equal(rows[0].ended, "30m ago");
});

Deno.test("landListRows(): queue order, svc ui's state text and why, Cancel only when it may", () => {
  const item = (
    itemId: string,
    state: LandQueueItem["state"],
    position: number,
  ): LandQueueItem => ({
    itemId,
    sessionId: `ses_${itemId}`,
    position,
    state,
    attempts: 0,
    maxAttempts: 2,
    lastError: state === "failed"
      ? { code: "land_conflict", message: "Conflict", reason: "conflict", files: ["a.txt"] }
      : null,
    landedCommit: state === "landed" ? "0123456789abcdef" : null,
  });
  const snapshot: Snapshot = {
    ...EMPTY_SNAPSHOT,
    landQueue: [item("b", "failed", 2), item("a", "landed", 1), item("c", "queued", 3)],
  };
  const rows = landListRows(snapshot, ["operate"]);
  assert.deepEqual(rows.map((row) => [row.label, row.stateText, row.detail, row.mayCancel]), [
    ["ses_a: landed", "✓ landed", "as 0123456789ab", false],
    ["ses_b: failed", "✗ failed", "conflict: a.txt", true],
    ["ses_c: queued", "… queued", "", true],
  ]);
  assert.ok(landListRows(snapshot, ["approve"]).every((row) => !row.mayCancel));
  const lists = pageLists(snapshot, {
    scopes: ["operate"],
    fleet: { showEnded: true, filter: "" },
    nowMs: NOW,
  });
  assert.deepEqual(openedBy(lists, "land", 1), { view: "session", sessionId: "ses_b" });
  assert.equal(openedBy(lists, "land", 9), null);
  assert.equal(openedBy(lists, "routines", 0), null);
});
