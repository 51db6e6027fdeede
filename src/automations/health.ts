import { isoTime } from "../clock.ts";
import type { RoutineRow } from "../store/routines_store.ts";
import type { RunRow } from "../store/runs_store.ts";
import { nextOccurrence } from "./next_due.ts";
import { parseRrule } from "./rrule.ts";
import { CADENCE_MS, planningAnchor, routineZone } from "./scheduler.ts";

/** The `svc.automations.health` result (D12, issue 4). */
export interface RoutineHealth {
  id: string;
  status: "ACTIVE" | "PAUSED";
  nextDueAt: string | null;
  lastPlannedAt: string | null;
  lastRunAt: string | null;
  lastSuccessAt: string | null;
  consecutiveFailures: number;
  missedCount: number;
  lease: { owner: string; expiresAt: string } | null;
  stale: null | "scheduler_not_ticking" | "lease_expired";
}

/**
 * A routine's health from its row, its recent runs that happened (not
 * `skipped`, newest first) and its last success. Pure: `nowMs` and the host
 * zone come in. Stale means an ACTIVE routine whose planning is older than
 * two cadences, or a running run whose lease expired.
 */
export function routineHealth(
  routine: RoutineRow,
  history: { recentRuns: readonly RunRow[]; lastSuccess: RunRow | null },
  { nowMs, hostZone }: { nowMs: number; hostZone: string },
): RoutineHealth {
  const { recentRuns } = history;
  const active = routine.definition.status === "ACTIVE";
  const anchor = planningAnchor(routine);
  let nextDueAt: string | null = null;
  if (active && anchor !== null) {
    nextDueAt = isoTime(
      nextOccurrence(parseRrule(routine.definition.rrule), anchor, routineZone(routine, hostZone)),
    );
  }
  let consecutiveFailures = 0;
  for (const run of recentRuns) {
    if (run.status === "running") continue;
    if (run.status === "succeeded") break;
    consecutiveFailures++;
  }
  const leased = recentRuns.find((run) =>
    run.status === "running" && run.leaseOwner !== null && run.leaseExpiresAt !== null
  );
  let stale: RoutineHealth["stale"] = null;
  if (leased && Date.parse(leased.leaseExpiresAt!) < nowMs) stale = "lease_expired";
  else if (active && anchor !== null && nowMs - anchor > 2 * CADENCE_MS) {
    stale = "scheduler_not_ticking";
  }
  return {
    id: routine.id,
    status: routine.definition.status,
    nextDueAt,
    lastPlannedAt: routine.lastPlannedAt,
    lastRunAt: recentRuns.find((run) => run.startedAt !== null)?.startedAt ?? null,
    lastSuccessAt: history.lastSuccess?.endedAt ?? null,
    consecutiveFailures,
    missedCount: routine.missedCount,
    lease: leased ? { owner: leased.leaseOwner!, expiresAt: leased.leaseExpiresAt! } : null,
    stale,
  };
}
