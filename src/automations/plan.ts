import { occurrencesAfter } from "./next_due.ts";
import type { RruleSubset } from "./rrule.ts";

/** How many missed occurrences a plan lists by default; `missedCount` stays exact. */
export const DEFAULT_MAX_MISSED = 100;

/** What one scheduler pass knows about one ACTIVE routine. */
export interface PlanInput {
  rule: RruleSubset;
  /** An IANA zone id or "UTC" (see `resolveTimeZone`). */
  timeZone: string;
  /**
   * End of the window already planned (epoch ms). The caller sets it to the
   * moment the routine became ACTIVE, then to `nowMs` after each pass, so no
   * occurrence at or before it is ever planned again.
   */
  lastPlannedMs: number;
  nowMs: number;
  /** Bound on the `missed` list; default `DEFAULT_MAX_MISSED`. */
  maxMissed?: number;
}

/** The outcome of planning (lastPlanned, now] under misfire `latest`. */
export interface OccurrencePlan {
  /** The newest occurrence in the window: the one to run, or null. */
  due: number | null;
  /** The older occurrences of the window, ascending: the newest `maxMissed` of them. */
  missed: number[];
  /** How many occurrences were missed in all, even when `missed` is capped. */
  missedCount: number;
  /** The first occurrence after the window. */
  nextDueMs: number;
}

/**
 * Plans one routine at one tick, like the Kubernetes CronJob controller's
 * `getNextSchedule`: a pure function of (rule, last planned, now). Only the
 * newest occurrence in (lastPlanned, now] runs; the older ones are missed.
 */
export function planOccurrences(input: PlanInput): OccurrencePlan {
  const { rule, timeZone, lastPlannedMs, nowMs, maxMissed = DEFAULT_MAX_MISSED } = input;
  if (!Number.isInteger(maxMissed) || maxMissed < 0) {
    throw new RangeError(`maxMissed must be a non-negative integer, got "${maxMissed}"`);
  }
  const occurrences = occurrencesAfter(rule, lastPlannedMs, timeZone);
  const newest: number[] = [];
  let count = 0;
  let instant = occurrences.next().value;
  while (instant <= nowMs) {
    count++;
    newest.push(instant);
    if (newest.length > maxMissed + 1) newest.shift();
    instant = occurrences.next().value;
  }
  const due = newest.pop() ?? null;
  return { due, missed: newest, missedCount: Math.max(0, count - 1), nextDueMs: instant };
}
