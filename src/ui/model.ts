/**
 * What `svc ui` knows (D25), as plain data, and the pure functions its views
 * read: a session's fleet state (stalled included), the fleet's order, what
 * needs the user and in which order. No I/O and no clock: `nowMs` comes in.
 */

/** A session record as `GET /sessions` returns it (the fields the UI reads). */
export interface SessionRecord {
  id: string;
  harness: string;
  title: string;
  project_root: string;
  cwd: string;
  status: string;
  activity: "starting" | "working" | "idle" | "waiting_approval" | null;
  protocol: string;
  turns: number;
  usage: { inputTokens: number | null; outputTokens: number | null; costUsd: number | null } | null;
  /** An isolated session's worktree (D20): `repository` is the checkout it was made from. */
  worktree:
    | { path: string; branch: string; repository: string; landedAt?: string | null }
    | null;
  created_at: string;
  updated_at: string;
  ended_at: string | null;
  last_seq: number;
  routine_id: string | null;
  run_id: string | null;
  /** D26, when the daemon reports it. */
  resumable?: boolean;
  /** The context it runs on, in a view of several hosts (hosts.ts); absent with one. */
  host?: string;
}

/** A pending permission request (`svc.sessions.approvals`, D18, D28). */
export type { PendingApproval } from "../approvals/broker.ts";
import type { PendingApproval } from "../approvals/broker.ts";
import type { LandQueueItem } from "./land_queue_view.ts";

/** A routine of `svc.automations.overview`. */
export interface RoutineOverview {
  id: string;
  name: string;
  runtime: string;
  status: "ACTIVE" | "PAUSED";
  nextDueAt: string | null;
  lastRunAt: string | null;
  consecutiveFailures: number;
  stale: string | null;
  lastRun: { id: string; status: string; endedAt: string | null } | null;
}

/** A result of `svc.automations.inbox` (D21). */
export interface InboxEntry {
  runId: string;
  routineId: string;
  status: string;
  endedAt: string | null;
  readAt: string | null;
  headline: string | null;
}

/** A harness the new-session form offers (`GET /capabilities`, D5). */
export interface HarnessChoice {
  id: string;
  label: string;
}

/** The daemon as the header shows it. */
export interface DaemonFacts {
  svcVersion: string;
  startedAt: string;
  instanceId: string;
}

/** Everything the views read; the store replaces it whole on every change. */
export interface Snapshot {
  connection: "connecting" | "connected" | "disconnected";
  /** Why the daemon is away, or that it restarted; null when all is well. */
  banner: string | null;
  daemon: DaemonFacts | null;
  sessions: ReadonlyMap<string, SessionRecord>;
  /** When each session's log last grew (ms), from `updated_at` and `session.progress`. */
  lastEventAt: ReadonlyMap<string, number>;
  approvals: readonly PendingApproval[];
  routines: readonly RoutineOverview[];
  inbox: readonly InboxEntry[];
  harnesses: readonly HarnessChoice[];
  todayCostUsd: number | null;
  /** The land queue's items (`GET /land-queue`, D34). */
  landQueue: readonly LandQueueItem[];
  /** Sessions whose finished turn or failure the user has not looked at yet. */
  unseen: ReadonlySet<string>;
}

/** The state glyph of a fleet row. */
export type FleetState =
  | "starting"
  | "working"
  | "waiting"
  | "idle"
  | "stalled"
  | "completed"
  | "failed"
  | "killed"
  | "orphaned"
  | "parked"
  | "ended";

/** A session's state for the fleet: stalled = working with no event for `stalledAfterMs`. */
export function fleetState(
  session: SessionRecord,
  lastEventAt: number,
  nowMs: number,
  stalledAfterMs: number,
): FleetState {
  if (session.status !== "running") {
    return (["completed", "failed", "killed", "orphaned", "parked"] as const).find((s) =>
      s === session.status
    ) ?? "ended";
  }
  switch (session.activity) {
    case "waiting_approval":
      return "waiting";
    case "idle":
      return "idle";
    case "starting":
      return "starting";
    default:
      return nowMs - lastEventAt >= stalledAfterMs ? "stalled" : "working";
  }
}

/** One row of the fleet view. */
export interface FleetRow {
  session: SessionRecord;
  state: FleetState;
  lastEventAt: number;
}

/**
 * The fleet, live sessions first, then by the last event, newest first;
 * ended ones only with `showEnded`; `filter` matches id, harness, title,
 * project or branch (case-insensitive).
 */
export function fleetRows(
  snapshot: Snapshot,
  options: { nowMs: number; stalledAfterMs: number; showEnded: boolean; filter: string },
): FleetRow[] {
  const needle = options.filter.toLowerCase();
  const rows: FleetRow[] = [];
  for (const session of snapshot.sessions.values()) {
    const live = session.status === "running";
    if (!live && !options.showEnded) continue;
    if (needle !== "" && !matches(session, needle)) continue;
    const lastEventAt = lastEventOf(snapshot, session);
    rows.push({
      session,
      state: fleetState(session, lastEventAt, options.nowMs, options.stalledAfterMs),
      lastEventAt,
    });
  }
  return rows.sort((a, b) =>
    Number(b.session.status === "running") - Number(a.session.status === "running") ||
    b.lastEventAt - a.lastEventAt || a.session.id.localeCompare(b.session.id)
  );
}

function matches(session: SessionRecord, needle: string): boolean {
  return [
    session.id,
    session.harness,
    session.title,
    projectOf(session),
    session.worktree?.branch,
  ]
    .some((field) => field?.toLowerCase().includes(needle));
}

/**
 * The project a session works on: its repository for an isolated session,
 * whose own project root is its worktree (a folder named after the session).
 */
export function projectOf(session: SessionRecord): string {
  return session.worktree?.repository ?? session.project_root;
}

/** When a session's log last grew, as the snapshot knows it. */
export function lastEventOf(snapshot: Snapshot, session: SessionRecord): number {
  return snapshot.lastEventAt.get(session.id) ?? Date.parse(session.updated_at);
}

/** Why a session needs the user, most urgent first. */
export type AttentionReason = "approval" | "failed" | "stalled" | "turn finished";

/** One entry of the attention view. */
export interface AttentionItem {
  session: SessionRecord;
  reason: AttentionReason;
  /** For ordering within a reason: oldest request first, then the longest quiet. */
  since: number;
}

const URGENCY: Record<AttentionReason, number> = {
  "approval": 0,
  "failed": 1,
  "stalled": 1,
  "turn finished": 2,
};

/**
 * The sessions that need the user (D25): an approval waiting, then failed
 * (not yet seen) or stalled, then a turn finished and not yet seen.
 */
export function attentionItems(
  snapshot: Snapshot,
  options: { nowMs: number; stalledAfterMs: number },
): AttentionItem[] {
  const items: AttentionItem[] = [];
  const waiting = new Map<string, number>();
  for (const approval of snapshot.approvals) {
    const at = Date.parse(approval.requestedAt);
    waiting.set(approval.sessionId, Math.min(waiting.get(approval.sessionId) ?? at, at));
  }
  for (const session of snapshot.sessions.values()) {
    const lastEventAt = lastEventOf(snapshot, session);
    const state = fleetState(session, lastEventAt, options.nowMs, options.stalledAfterMs);
    const requested = waiting.get(session.id);
    if (requested !== undefined) {
      items.push({ session, reason: "approval", since: requested });
    } else if (state === "failed" && snapshot.unseen.has(session.id)) {
      items.push({ session, reason: "failed", since: lastEventAt });
    } else if (state === "stalled") {
      items.push({ session, reason: "stalled", since: lastEventAt });
    } else if (state === "idle" && snapshot.unseen.has(session.id)) {
      items.push({ session, reason: "turn finished", since: lastEventAt });
    }
  }
  return items.sort((a, b) =>
    URGENCY[a.reason] - URGENCY[b.reason] || a.since - b.since ||
    a.session.id.localeCompare(b.session.id)
  );
}

/** The session `n` jumps to: the first that needs the user after `currentId` (wrapping). */
export function nextAttention(items: readonly AttentionItem[], currentId: string | null) {
  if (items.length === 0) return null;
  const at = items.findIndex((item) => item.session.id === currentId);
  return items[(at + 1) % items.length].session.id;
}

/** The routine due next: its id and time, or null. */
export function nextRoutineDue(
  routines: readonly RoutineOverview[],
): { id: string; at: number } | null {
  let next: { id: string; at: number } | null = null;
  for (const routine of routines) {
    if (routine.status !== "ACTIVE" || routine.nextDueAt === null) continue;
    const at = Date.parse(routine.nextDueAt);
    if (next === null || at < next.at) next = { id: routine.id, at };
  }
  return next;
}

/** A routine's health: why it is stale, how many runs failed in a row, or `ok`. */
export function routineHealth(routine: RoutineOverview): string {
  return routine.stale ??
    (routine.consecutiveFailures > 0 ? `${routine.consecutiveFailures} failed` : "ok");
}

/** Inbox results, unread first, then the newest. */
export function inboxOrder(entries: readonly InboxEntry[]): InboxEntry[] {
  return [...entries].sort((a, b) =>
    Number(a.readAt !== null) - Number(b.readAt !== null) ||
    (b.endedAt ?? "").localeCompare(a.endedAt ?? "")
  );
}

/** A session record known only by its id (a launch answered before the feed's notice). */
export function pendingSession(id: string, nowIso: string): SessionRecord {
  return {
    id,
    harness: "",
    title: "",
    project_root: "",
    cwd: "",
    status: "running",
    activity: "starting",
    protocol: "raw",
    turns: 0,
    usage: null,
    worktree: null,
    created_at: nowIso,
    updated_at: nowIso,
    ended_at: null,
    last_seq: 0,
    routine_id: null,
    run_id: null,
  };
}

/** An empty snapshot, before the first sync. */
export const EMPTY_SNAPSHOT: Snapshot = {
  connection: "connecting",
  banner: null,
  daemon: null,
  sessions: new Map(),
  lastEventAt: new Map(),
  approvals: [],
  routines: [],
  inbox: [],
  harnesses: [],
  todayCostUsd: null,
  landQueue: [],
  unseen: new Set(),
};
