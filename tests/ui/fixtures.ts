/** Fixture data for the `svc ui` tests: records shaped like the daemon's answers. */
import type {
  InboxEntry,
  PendingApproval,
  RoutineOverview,
  SessionRecord,
} from "../../src/ui/model.ts";
import type { SyncedLists } from "../../src/ui/store.ts";
import type { LandCheck } from "../../src/worktrees/land_types.ts";

/** The fixed "now" of the component tests: 2026-11-27 12:00:00 UTC. */
export const NOW = Date.parse("2026-11-27T12:00:00.000Z");

export function iso(msBeforeNow: number): string {
  return new Date(NOW - msBeforeNow).toISOString();
}

export function session(fields: Partial<SessionRecord> & { id: string }): SessionRecord {
  return {
    harness: "claude",
    title: `title of ${fields.id}`,
    project_root: "/home/me/project",
    cwd: "/home/me/project",
    status: "running",
    activity: "working",
    protocol: "claude",
    turns: 1,
    usage: { inputTokens: 1200, outputTokens: 300, costUsd: 0.0125 },
    worktree: null,
    created_at: iso(600_000),
    updated_at: iso(5_000),
    ended_at: null,
    last_seq: 10,
    routine_id: null,
    run_id: null,
    ...fields,
  };
}

export function approval(
  fields: Partial<PendingApproval> & { sessionId: string },
): PendingApproval {
  return {
    requestId: "req_1",
    tool: "Bash",
    summary: "Bash: npm test",
    requestedAt: iso(30_000),
    expiresAt: new Date(NOW + 570_000).toISOString(),
    kind: "shell",
    command: "npm test",
    argv: ["npm", "test"],
    paths: [],
    projectRoot: "/home/me/project",
    profile: null,
    ...fields,
  };
}

export function routine(fields: Partial<RoutineOverview> & { id: string }): RoutineOverview {
  return {
    name: `routine ${fields.id}`,
    runtime: "claude",
    status: "ACTIVE",
    nextDueAt: new Date(NOW + 3_600_000).toISOString(),
    lastRunAt: iso(86_400_000),
    consecutiveFailures: 0,
    stale: null,
    lastRun: {
      id: "run_01AAAAAAAAAAAAAAAAAAAAAAAA",
      status: "succeeded",
      endedAt: iso(86_000_000),
    },
    ...fields,
  };
}

export function inboxEntry(fields: Partial<InboxEntry> & { runId: string }): InboxEntry {
  return {
    routineId: "nightly",
    status: "succeeded",
    endedAt: iso(3_600_000),
    readAt: null,
    headline: "All tests pass",
    ...fields,
  };
}

/** A fleet: working, waiting, idle, stalled, failed and completed sessions, and the rest. */
export function fleetLists(): SyncedLists {
  return {
    daemon: { svcVersion: "0.1.0", startedAt: iso(3_600_000), instanceId: "inst_1" },
    sessions: [
      session({
        id: "ses_01WORKING0000000000000000",
        title: "refactor the parser",
        updated_at: iso(2_000),
      }),
      session({
        id: "ses_01WAITING0000000000000000",
        activity: "waiting_approval",
        harness: "codex",
        updated_at: iso(3_000),
      }),
      session({
        id: "ses_01IDLE00000000000000000000",
        activity: "idle",
        turns: 3,
        updated_at: iso(4_000),
      }),
      session({ id: "ses_01STALLED00000000000000000", updated_at: iso(300_000) }),
      session({
        id: "ses_01FAILED000000000000000000",
        status: "failed",
        activity: null,
        ended_at: iso(60_000),
        updated_at: iso(60_000),
      }),
      session({
        id: "ses_01DONE0000000000000000000",
        status: "completed",
        activity: null,
        ended_at: iso(120_000),
        updated_at: iso(120_000),
      }),
    ],
    approvals: [approval({ sessionId: "ses_01WAITING0000000000000000" })],
    routines: [
      routine({ id: "nightly" }),
      routine({ id: "weekly", status: "PAUSED", nextDueAt: null, consecutiveFailures: 2 }),
    ],
    inbox: [
      inboxEntry({ runId: "run_01READ00000000000000000000", readAt: iso(100), headline: "old" }),
      inboxEntry({ runId: "run_01UNREAD000000000000000000", headline: "fresh result" }),
    ],
    harnesses: [{ id: "claude", label: "Claude Code" }, { id: "codex", label: "Codex" }],
    todayCostUsd: 0.4213,
  };
}

/** A land check (D34) of work that lands cleanly on main. */
export const CLEAN_CHECK: LandCheck = {
  sessionId: "ses_x",
  branch: "refs/heads/main",
  headCommit: "c".repeat(40),
  clean: true,
  conflicts: [],
  bothChanged: [],
  verify: { configured: false },
};
