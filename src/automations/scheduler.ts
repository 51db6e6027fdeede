import type { DatabaseSync } from "node:sqlite";
import { type Clock, isoTime } from "../clock.ts";
import type { Logger } from "../log.ts";
import { transaction } from "../store/db.ts";
import type { RoutineRow, RoutinesStore } from "../store/routines_store.ts";
import type { RunRow, RunsStore } from "../store/runs_store.ts";
import { nextOccurrence, resolveTimeZone } from "./next_due.ts";
import { planOccurrences } from "./plan.ts";
import { parseRrule } from "./rrule.ts";
import type { Runner } from "./runner.ts";
import { claimedRun, LEASE_MS, skippedRun } from "./run_rows.ts";

/** The scheduler's cadence (C3, C8): it plans at least this often. */
export const CADENCE_MS = 60_000;
/** The loop compares wall time at least this often to notice clock jumps. */
const JUMP_CHECK_MS = 5_000;
/** A slice that took this much longer than it slept is a jump (timer lateness is smaller). */
const JUMP_TOLERANCE_MS = 2_000;

/** What one pass did (the `tick` action's result, D10). */
export interface TickReport {
  planned: Array<{ routineId: string; scheduledFor: string; missed: number }>;
  recovered: Array<{ runId: string; routineId: string; error: string }>;
  claimed: Array<{ routineId: string; runId: string; scheduledFor: string; status: string }>;
  failures: Array<{ routineId: string; runId?: string; error: { code: string; message: string } }>;
}

/** Options of the scheduler. */
export interface SchedulerOptions {
  db: DatabaseSync;
  routines: RoutinesStore;
  runs: RunsStore;
  runner: Runner;
  clock: Clock;
  log: Logger;
  /** This daemon's instance id: the owner of the leases it takes. */
  instanceId: string;
  /** The host's time zone, for `timezone: "local"` (read at planning time). */
  hostZone: () => string;
}

/** The zone a routine's occurrences are computed in. */
export function routineZone(routine: RoutineRow, hostZone: string): string {
  return resolveTimeZone(routine.definition.timezone, hostZone);
}

/** Where planning of an ACTIVE routine resumes: the last planned instant, else when it became ACTIVE. */
export function planningAnchor(routine: RoutineRow): number | null {
  const anchor = routine.lastPlannedAt ?? routine.activeSince;
  return anchor === null ? null : Date.parse(anchor);
}

/**
 * The durable scheduler (C3, D12), after the Kubernetes CronJob controller:
 * the "what is due" decision is the pure `planOccurrences`; this class does
 * the I/O around it. Each pass commits, in one transaction per routine, the
 * missed occurrences, the claimed run (UNIQUE per occurrence, so no restart,
 * crash or second pass starts it twice) and the new planning window; only
 * then does it launch. It wakes at the next due instant and at least every
 * 60 s, and re-plans at once when the wall clock jumps (resume from sleep,
 * a clock change): the jump is a longer window at that pass, whose older
 * occurrences are missed under `latest`.
 */
export class Scheduler {
  readonly #options: SchedulerOptions;
  readonly #stop = new AbortController();
  #loop: Promise<void> | null = null;
  #lastTickMs: number | null = null;

  constructor(options: SchedulerOptions) {
    this.#options = options;
  }

  /** When the last pass ran (health's staleness), or null. */
  get lastTickMs(): number | null {
    return this.#lastTickMs;
  }

  /**
   * At start-up: runs left `running` by a daemon that is gone (their lease
   * owner is not this instance) are closed `failed` with `daemon_restarted`;
   * their occurrence is never run again.
   */
  recover(): TickReport["recovered"] {
    const { runs, clock, instanceId } = this.#options;
    const recovered: TickReport["recovered"] = [];
    for (const run of runs.running()) {
      if (run.leaseOwner === instanceId) continue;
      runs.update(run.id, {
        status: "failed",
        endedAt: isoTime(clock.now()),
        leaseOwner: null,
        leaseExpiresAt: null,
        error: {
          code: "daemon_restarted",
          message: `The daemon that ran this (${
            run.leaseOwner ?? "unknown"
          }) stopped before it ended`,
        },
      });
      recovered.push({ runId: run.id, routineId: run.routineId, error: "daemon_restarted" });
      this.#options.runner.afterRecovery(run.id, this.#options.routines.get(run.routineId));
    }
    return recovered;
  }

  /** Starts the loop. */
  start(): void {
    this.#loop ??= this.#run();
  }

  /** Stops the loop and waits for it. */
  async stop(): Promise<void> {
    this.#stop.abort();
    await this.#loop;
  }

  /** One planning pass at the clock's now (also the `tick` action). */
  async tick(): Promise<TickReport> {
    const { routines, runs, runner, clock, instanceId, hostZone } = this.#options;
    const nowMs = clock.now();
    this.#lastTickMs = nowMs;
    const report: TickReport = {
      planned: [],
      recovered: this.recover(),
      claimed: [],
      failures: [],
    };
    runs.renewLeases(instanceId, isoTime(nowMs + LEASE_MS));
    const toStart: Array<{ run: RunRow; routine: RoutineRow }> = [];
    for (const routine of routines.list()) {
      if (routine.definition.status !== "ACTIVE") continue;
      try {
        const claimed = this.#planRoutine(routine, nowMs, hostZone(), report);
        if (claimed) toStart.push({ run: claimed, routine });
      } catch (error) {
        this.#options.log.error("Planning a routine failed", { routineId: routine.id, error });
        report.failures.push({
          routineId: routine.id,
          error: { code: "planning_failed", message: (error as Error).message },
        });
      }
    }
    for (const { run, routine } of toStart) {
      const started = await runner.start(run, routine, routine.definition.cwd);
      const entry = report.claimed.find((c) => c.runId === run.id)!;
      entry.status = started.status;
      if (started.status === "failed" && started.error) {
        report.failures.push({ routineId: routine.id, runId: run.id, error: started.error });
      }
    }
    return report;
  }

  /** Milliseconds until the next pass: the next due instant, at most the cadence. */
  msUntilNextPass(): number {
    const { routines, clock, hostZone } = this.#options;
    const nowMs = clock.now();
    let wake = nowMs + CADENCE_MS;
    for (const routine of routines.list()) {
      if (routine.definition.status !== "ACTIVE") continue;
      const anchor = planningAnchor(routine);
      if (anchor === null) continue;
      try {
        const rule = parseRrule(routine.definition.rrule);
        wake = Math.min(
          wake,
          nextOccurrence(rule, Math.max(anchor, nowMs), routineZone(routine, hostZone())),
        );
      } catch {
        // An unplannable routine is reported by tick, not here.
      }
    }
    return Math.max(0, wake - nowMs);
  }

  #planRoutine(
    routine: RoutineRow,
    nowMs: number,
    zone: string,
    report: TickReport,
  ): RunRow | null {
    const { db, routines, runs, instanceId } = this.#options;
    const anchor = planningAnchor(routine) ?? nowMs;
    const plan = planOccurrences({
      rule: parseRrule(routine.definition.rrule),
      timeZone: routineZone(routine, zone),
      lastPlannedMs: anchor,
      nowMs,
    });
    return transaction(db, () => {
      for (const missed of plan.missed) {
        runs.insert(skippedRun(occurrence(routine.id, missed, nowMs), {
          code: "missed",
          message: "A newer occurrence was due at the same pass (misfire latest)",
        }));
      }
      // A clock that went back never moves the window back: nothing is planned twice.
      routines.markPlanned(routine.id, isoTime(Math.max(anchor, nowMs)), plan.missedCount);
      if (plan.due === null) return null;
      const scheduledFor = isoTime(plan.due);
      report.planned.push({ routineId: routine.id, scheduledFor, missed: plan.missedCount });
      if (runs.running(routine.id).length > 0) {
        runs.insert(skippedRun(occurrence(routine.id, plan.due, nowMs), {
          code: "overlap",
          message: "A run of this routine was still active (overlap forbid)",
        }));
        return null;
      }
      const run = claimedRun(occurrence(routine.id, plan.due, nowMs), instanceId);
      if (!runs.insert(run)) return null; // Already claimed: never twice.
      report.claimed.push({
        routineId: routine.id,
        runId: run.id,
        scheduledFor,
        status: "running",
      });
      return run;
    });
  }

  async #run(): Promise<void> {
    const { log } = this.#options;
    while (!this.#stop.signal.aborted) {
      try {
        await this.tick();
      } catch (error) {
        log.error("Scheduler pass failed", { error });
      }
      const jump = await this.#sleepUntilNextPass();
      if (jump !== null) log.warn("Wall clock jumped; re-planning now", jump);
    }
  }

  /**
   * Sleeps until the next pass in slices of at most JUMP_CHECK_MS, comparing
   * the wall clock after each: timers run on a monotonic clock that stops
   * during system sleep, so a resume or a clock change shows up as a slice
   * that took far more (or less) wall time than it slept. Returns the jump
   * seen, or null when the sleep ended normally.
   */
  async #sleepUntilNextPass(): Promise<{ expectedMs: number; observedMs: number } | null> {
    const { clock } = this.#options;
    const target = clock.now() + this.msUntilNextPass();
    while (!this.#stop.signal.aborted) {
      const before = clock.now();
      const sliceMs = Math.min(target - before, JUMP_CHECK_MS);
      if (sliceMs <= 0) return null;
      await clock.sleep(sliceMs, this.#stop.signal);
      const observedMs = clock.now() - before;
      if (observedMs < 0 || observedMs > sliceMs + JUMP_TOLERANCE_MS) {
        return { expectedMs: sliceMs, observedMs };
      }
    }
    return null;
  }
}

/** The run fields of a scheduled occurrence. */
function occurrence(routineId: string, scheduledForMs: number, nowMs: number) {
  return { routineId, trigger: "schedule" as const, scheduledForMs, nowMs };
}
