/**
 * A session parked on a provider's limit (D33), as its row keeps it: until
 * when, why, the turns to send again, and what its auto-resume timer does.
 * Pure: the instant and the jitter are handed in.
 */
import { z } from "zod";
import type { LimitReason, TurnLimit } from "../agents/limits.ts";
import type { SessionRow } from "../store/sessions_store.ts";

/** `autoResume` of config, a launch or a routine (D33): off by default. */
export const autoResumeSchema = z.strictObject({
  enabled: z.boolean(),
  /** Auto-resumes of one session in any 24 hours, at most; then it stays parked. */
  maxPerDay: z.int().min(1).max(100).optional(),
});
export type AutoResume = z.output<typeof autoResumeSchema>;

/** Auto-resumes per session in any 24 hours when `maxPerDay` is not given. */
export const DEFAULT_MAX_PER_DAY = 3;
/** The wait when the agent named neither a reset time nor a delay: 1 min doubling to 30 min. */
const BACKOFF_FIRST_MS = 60_000;
const BACKOFF_MAX_MS = 30 * 60_000;
/** At most this much is added to `parkedUntil`, so parked sessions do not all wake at once. */
export const MAX_JITTER_MS = 60_000;
const DAY_MS = 24 * 60 * 60_000;

/**
 * What the timer of a park does: `waiting` to resume at `resumeAt`; `off`
 * (auto-resume not enabled), `cancelled` (unpark --cancel), `max_per_day`
 * (the day's auto-resumes spent), `failed` (its resume was refused): the
 * session stays parked; `done`: it was resumed.
 */
export type ParkTimerState = "waiting" | "off" | "cancelled" | "max_per_day" | "failed" | "done";

/** The park as stored in `park_json`. */
export interface ParkRecord {
  parkedAt: string;
  parkedUntil: string;
  /** `parkedUntil` plus the jitter: when the timer fires. */
  resumeAt: string;
  reason: LimitReason;
  /** The interrupted turn, then those queued behind it: sent again on resume, then cleared. */
  turns: string[];
  /** Which doubling of the backoff this park waits; null when the agent gave a time. */
  backoffStep: number | null;
  /** The session's completed turns when it parked (a park without progress backs off further). */
  turnsAtPark: number;
  maxPerDay: number;
  timer: ParkTimerState;
  /** Why the timer is not waiting, when it says more than its state. */
  timerNote: string | null;
  /** Instants of this session's auto-resumes in the last 24 hours. */
  autoResumedAt: string[];
}

/** What parking a session stores in its row and records as `session.parked`. */
export interface ParkOutcome {
  fields: Partial<SessionRow>;
  event: Record<string, unknown>;
}

/** The record's `parked` field (D33): shown while the status is `parked`. */
export interface ParkedView {
  until: string;
  reason: LimitReason;
  autoResume: { state: ParkTimerState; at: string | null; note: string | null };
}

/** The park of a row, or null when it never parked. */
export function parkOf(row: SessionRow): ParkRecord | null {
  return row.park_json === null ? null : JSON.parse(row.park_json);
}

/** The API view of a parked row; null unless its status is `parked`. */
export function parkedView(row: SessionRow): ParkedView | null {
  const park = row.status === "parked" ? parkOf(row) : null;
  if (park === null) return null;
  return {
    until: park.parkedUntil,
    reason: park.reason,
    autoResume: {
      state: park.timer,
      at: park.timer === "waiting" ? park.resumeAt : null,
      note: park.timerNote,
    },
  };
}

/**
 * The park of a turn that failed on `limit`. It lasts until the agent's
 * reset time, else the delay its message stated, else the next step of the
 * backoff (a session that parks again without completing a turn waits
 * twice as long, up to 30 min). The day's auto-resumes carry over from the
 * previous park.
 */
export function newPark(
  limit: TurnLimit,
  turns: string[],
  options: {
    now: number;
    previous: ParkRecord | null;
    completedTurns: number;
    autoResume: AutoResume;
    jitterMs: number;
  },
): ParkRecord {
  const { now, previous, completedTurns, autoResume } = options;
  const stated = limit.resetsAt ?? (limit.retryAfterMs === null ? null : now + limit.retryAfterMs);
  const backoffStep = stated !== null
    ? null
    : previous?.backoffStep != null && previous.turnsAtPark === completedTurns
    ? previous.backoffStep + 1
    : 0;
  const until = Math.max(now, stated ?? now + backoffMs(backoffStep ?? 0));
  const jitter = Math.min(MAX_JITTER_MS, Math.max(0, Math.round(options.jitterMs)));
  return {
    parkedAt: new Date(now).toISOString(),
    parkedUntil: new Date(until).toISOString(),
    resumeAt: new Date(until + jitter).toISOString(),
    reason: limit.reason,
    turns,
    backoffStep,
    turnsAtPark: completedTurns,
    maxPerDay: autoResume.maxPerDay ?? DEFAULT_MAX_PER_DAY,
    timer: autoResume.enabled ? "waiting" : "off",
    timerNote: null,
    autoResumedAt: recentResumes(previous?.autoResumedAt ?? [], now),
  };
}

/** The backoff's wait at `step`: 1 min, 2, 4, … up to 30 min. */
export function backoffMs(step: number): number {
  return Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * 2 ** Math.min(step, 16));
}

/**
 * What the timer does when it fires at `now`: resume (the auto-resume
 * counted), or stay parked because the last 24 hours used `maxPerDay`.
 */
export function fireTimer(park: ParkRecord, now: number): ParkRecord {
  const recent = recentResumes(park.autoResumedAt, now);
  if (recent.length >= park.maxPerDay) {
    return {
      ...park,
      timer: "max_per_day",
      timerNote:
        `Auto-resumed ${recent.length} times in the last 24 hours (maxPerDay ${park.maxPerDay})`,
      autoResumedAt: recent,
    };
  }
  return { ...park, timer: "done", autoResumedAt: [...recent, new Date(now).toISOString()] };
}

function recentResumes(instants: string[], now: number): string[] {
  return instants.filter((at) => now - Date.parse(at) < DAY_MS);
}
