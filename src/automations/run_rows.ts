import { isoTime } from "../clock.ts";
import { newId } from "../ids.ts";
import type { RunError, RunRow } from "../store/runs_store.ts";

/** A claimed run's lease lasts this long and is renewed every pass while it runs (D12). */
export const LEASE_MS = 3 * 60_000;

/** What a new run record needs. */
export interface NewRun {
  routineId: string;
  trigger: "schedule" | "manual";
  /** The occurrence instant (schedule runs); null for manual runs. */
  scheduledForMs: number | null;
  nowMs: number;
}

/** A run claimed now, `running`, leased to `owner` (the daemon's instance id). */
export function claimedRun(run: NewRun, owner: string): RunRow {
  return {
    ...base(run),
    status: "running",
    error: null,
    endedAt: null,
    leaseOwner: owner,
    leaseExpiresAt: isoTime(run.nowMs + LEASE_MS),
  };
}

/** A run that does not happen (missed, overlap): `skipped`, ended now, with its reason. */
export function skippedRun(run: NewRun, error: RunError): RunRow {
  return {
    ...base(run),
    status: "skipped",
    error,
    endedAt: isoTime(run.nowMs),
    leaseOwner: null,
    leaseExpiresAt: null,
  };
}

function base(run: NewRun) {
  return {
    id: newId("run", run.nowMs),
    routineId: run.routineId,
    trigger: run.trigger,
    scheduledFor: run.scheduledForMs === null ? null : isoTime(run.scheduledForMs),
    sessionId: null,
    startedAt: null,
    exitCode: null,
    createdAt: isoTime(run.nowMs),
  };
}
