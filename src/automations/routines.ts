import type { DatabaseSync } from "node:sqlite";
import { ServiceError } from "../errors.ts";
import { type Clock, isoTime } from "../clock.ts";
import { transaction } from "../store/db.ts";
import { type RoutineRow, type RoutinesStore, storedRoutine } from "../store/routines_store.ts";
import { type RunRecord, runRecord, type RunsStore } from "../store/runs_store.ts";
import type { RoutineDefinition, StoredRoutine } from "./definition.ts";
import { type RoutineHealth, routineHealth } from "./health.ts";
import type { LegacySources } from "./import_legacy.ts";
import { claimedRun, skippedRun } from "./run_rows.ts";
import type { Runner } from "./runner.ts";
import { refuseProblems, type RoutineCheck } from "./routine_checks.ts";

/** Options of the routine service. */
export interface RoutineServiceOptions {
  db: DatabaseSync;
  routines: RoutinesStore;
  runs: RunsStore;
  runner: Runner;
  clock: Clock;
  instanceId: string;
  hostZone: () => string;
  legacySources: LegacySources;
  /** Checks a definition against this machine (issue 27 item 6); none: everything passes. */
  check?: (definition: RoutineDefinition) => RoutineCheck;
}

/** The `run` action's result (C4.1, D10). */
export interface RunNowResult {
  runId: string | null;
  status: "running" | "parked" | "succeeded" | "failed" | "timed_out" | "skipped";
  sessionId: string | null;
  error: { code: string; message: string } | null;
}

/** The `import` action's result (D13). */
export interface ImportResult {
  imported: string[];
  skipped: Array<{ id: string; reason: string }>;
  failed: Array<{ file: string; reason: string }>;
}

/** Health counts consecutive failures over at most this many recent runs. */
const HEALTH_HISTORY_RUNS = 1000;
/** The overview counts them over fewer (one query per routine, 1000 routines in one answer). */
const OVERVIEW_HISTORY_RUNS = 50;
/** The most routines one overview holds. */
const OVERVIEW_LIMIT = 1000;

/** One routine of `svc.automations.overview` (D25): its health, name, runtime and last run. */
export interface RoutineOverview extends RoutineHealth {
  name: string;
  runtime: string;
  lastRun: { id: string; status: string; endedAt: string | null } | null;
}

function routineNotFound(id: string): ServiceError {
  return new ServiceError("routine_not_found", 404, `Routine "${id}" does not exist`, { id });
}

/** Routine CRUD, manual runs, run history, health and import: what the actions call (D10). */
/** A page of `svc.automations.list` stops growing past this much JSON (4 MiB bound, D6). */
const LIST_PAGE_BYTES = 2 * 1024 * 1024;

export class RoutineService {
  readonly #o: RoutineServiceOptions;

  constructor(options: RoutineServiceOptions) {
    this.#o = options;
  }

  /**
   * A page of routines by id after `cursor` (issue 13: the whole list could
   * pass the 4 MiB response bound): at most `limit`, and fewer once the page
   * holds LIST_PAGE_BYTES of JSON. `nextCursor` is null on the last page.
   */
  list(options: { cursor?: string; idPrefix?: string; limit: number }): {
    routines: StoredRoutine[];
    nextCursor: string | null;
  } {
    const rows = this.#o.routines.list({
      after: options.cursor,
      idPrefix: options.idPrefix,
      limit: options.limit + 1,
    });
    const routines: StoredRoutine[] = [];
    let bytes = 0;
    for (const row of rows.slice(0, options.limit)) {
      const routine = storedRoutine(row);
      bytes += new TextEncoder().encode(JSON.stringify(routine)).length;
      if (routines.length > 0 && bytes > LIST_PAGE_BYTES) break;
      routines.push(routine);
    }
    const more = routines.length < rows.length;
    return { routines, nextCursor: more ? routines[routines.length - 1].id : null };
  }

  get(id: string): StoredRoutine | null {
    const row = this.#o.routines.get(id);
    return row ? storedRoutine(row) : null;
  }

  /** What the check says of `definition` (nothing without a check). */
  #check(definition: RoutineDefinition): RoutineCheck {
    return this.#o.check?.(definition) ?? { problems: [], warnings: [] };
  }

  /**
   * Creates a routine; 400 naming every field this machine cannot run
   * (issue 27 item 6), 409 `routine_exists` for a taken id. ACTIVE plans
   * from now on. `warnings` say what may still fail its runs.
   */
  create(
    definition: RoutineDefinition,
  ): { routine: StoredRoutine; createdAt: string; warnings: string[] } {
    const check = this.#check(definition);
    refuseProblems(check);
    const now = isoTime(this.#o.clock.now());
    const row: RoutineRow = {
      id: definition.id,
      definition,
      createdAt: now,
      updatedAt: now,
      activeSince: definition.status === "ACTIVE" ? now : null,
      lastPlannedAt: null,
      missedCount: 0,
    };
    if (!this.#o.routines.insert(row)) {
      throw new ServiceError("routine_exists", 409, `Routine "${definition.id}" already exists`, {
        id: definition.id,
      });
    }
    return { routine: storedRoutine(row), createdAt: now, warnings: check.warnings };
  }

  /**
   * Replaces a routine's definition. PAUSED → ACTIVE restarts planning at
   * now, so occurrences from before never fire; → PAUSED stops planning.
   */
  update(
    definition: RoutineDefinition,
  ): { routine: StoredRoutine; updatedAt: string; warnings: string[] } {
    const current = this.#o.routines.get(definition.id);
    if (!current) throw routineNotFound(definition.id);
    const check = this.#check(definition);
    refuseProblems(check);
    return { ...this.#replace(current, definition), warnings: check.warnings };
  }

  /** Writes `definition` over `current`; planning restarts at now when it becomes ACTIVE. */
  #replace(
    current: RoutineRow,
    definition: RoutineDefinition,
  ): { routine: StoredRoutine; updatedAt: string } {
    const now = isoTime(this.#o.clock.now());
    const wasActive = current.definition.status === "ACTIVE";
    const isActive = definition.status === "ACTIVE";
    const row: RoutineRow = {
      ...current,
      definition,
      updatedAt: now,
      activeSince: isActive ? (wasActive ? current.activeSince : now) : null,
      lastPlannedAt: isActive && wasActive ? current.lastPlannedAt : null,
    };
    this.#o.routines.replace(row);
    return { routine: storedRoutine(row), updatedAt: now };
  }

  /**
   * Pauses or activates routine `id` and changes nothing else of it (D30:
   * what an `operate` device may do, where `update` replaces the whole
   * definition). Idempotent: a routine already in `status` is answered as
   * it is, `changed: false`, not written. Activating checks the definition
   * against this machine first, as `update` does; pausing always works.
   */
  setStatus(
    id: string,
    status: "ACTIVE" | "PAUSED",
  ): { routine: StoredRoutine; updatedAt: string; changed: boolean; warnings: string[] } {
    const current = this.#o.routines.get(id);
    if (!current) throw routineNotFound(id);
    if (current.definition.status === status) {
      return {
        routine: storedRoutine(current),
        updatedAt: current.updatedAt,
        changed: false,
        warnings: [],
      };
    }
    const definition: RoutineDefinition = { ...current.definition, status };
    const check = status === "ACTIVE" ? this.#check(definition) : { problems: [], warnings: [] };
    refuseProblems(check);
    return { ...this.#replace(current, definition), changed: true, warnings: check.warnings };
  }

  /** Deletes a routine and its run history; a run in progress finishes as a plain session. */
  delete(id: string): { id: string; deleted: true } {
    if (!this.#o.routines.delete(id)) throw routineNotFound(id);
    return { id, deleted: true };
  }

  /**
   * Recent runs, newest first (limit clamped 1–1000, default 20): of routine
   * `id`, and with `idPrefix` only those whose id starts with it (issue 27
   * item 9); without `id`, runs of every routine (then `idPrefix` is needed).
   */
  runs(options: { id?: string; idPrefix?: string; limit?: number }): RunRecord[] {
    const { id, idPrefix } = options;
    if (id !== undefined && !this.#o.routines.get(id)) throw routineNotFound(id);
    const limit = Math.min(1000, Math.max(1, options.limit ?? 20));
    const rows = idPrefix !== undefined
      ? this.#o.runs.withIdPrefix(idPrefix, { routineId: id, limit })
      : id !== undefined
      ? this.#o.runs.listForRoutine(id, limit)
      : [];
    return rows.map(runRecord);
  }

  health(id: string): RoutineHealth & { warnings: string[] } {
    const routine = this.#o.routines.get(id);
    if (!routine) throw routineNotFound(id);
    const history = {
      recentRuns: this.#o.runs.outcomes(id, HEALTH_HISTORY_RUNS),
      lastSuccess: this.#o.runs.lastSucceeded(id),
    };
    return {
      ...routineHealth(routine, history, {
        nowMs: this.#o.clock.now(),
        hostZone: this.#o.hostZone(),
      }),
      warnings: this.#check(routine.definition).warnings,
    };
  }

  /**
   * Every routine's scheduling state in one answer (D25: `svc ui` reads it
   * once instead of one health call per routine), by id, at most
   * OVERVIEW_LIMIT; consecutive failures are counted over the last
   * OVERVIEW_HISTORY_RUNS runs.
   */
  overview(): { routines: RoutineOverview[]; truncated: boolean } {
    const rows = this.#o.routines.list({ limit: OVERVIEW_LIMIT + 1 });
    const nowMs = this.#o.clock.now();
    const hostZone = this.#o.hostZone();
    const routines = rows.slice(0, OVERVIEW_LIMIT).map((routine) => {
      const recentRuns = this.#o.runs.outcomes(routine.id, OVERVIEW_HISTORY_RUNS);
      const health = routineHealth(
        routine,
        { recentRuns, lastSuccess: this.#o.runs.lastSucceeded(routine.id) },
        { nowMs, hostZone },
      );
      const last = recentRuns[0];
      return {
        ...health,
        name: routine.definition.name,
        runtime: routine.definition.runtime,
        lastRun: last ? { id: last.id, status: last.status, endedAt: last.endedAt } : null,
      };
    });
    return { routines, truncated: rows.length > OVERVIEW_LIMIT };
  }

  /**
   * Runs a routine now through the same launch path as the scheduler (C3).
   * Problems (unknown routine, no cwd, launch failure, a run still active)
   * are results, not errors (C4.1, D10).
   */
  async runNow(id: string, cwdOverride?: string): Promise<RunNowResult> {
    const { routines, runs, runner, clock, instanceId, db } = this.#o;
    const routine = routines.get(id);
    if (!routine) {
      return {
        runId: null,
        status: "failed",
        sessionId: null,
        error: { code: "routine_not_found", message: `Routine "${id}" does not exist` },
      };
    }
    const fields = {
      routineId: id,
      trigger: "manual" as const,
      scheduledForMs: null,
      nowMs: clock.now(),
    };
    const run = transaction(db, () => {
      const row = runs.running(id).length > 0
        ? skippedRun(fields, {
          code: "overlap",
          message: "A run of this routine is still active (overlap forbid)",
        })
        : claimedRun(fields, instanceId);
      runs.insert(row);
      return row;
    });
    const started = run.status === "skipped"
      ? run
      : await runner.start(run, routine, cwdOverride ?? routine.definition.cwd);
    return {
      runId: started.id,
      status: started.status,
      sessionId: started.sessionId,
      error: started.error,
    };
  }

  /** Imports legacy routines (D13): always PAUSED; existing ids are skipped first. */
  async import(): Promise<ImportResult> {
    const result: ImportResult = { imported: [], skipped: [], failed: [] };
    // Loaded on first use: the TOML parser and legacy formats cost start-up 11 ms (issue 14).
    const { readLegacyRoutines } = await import("./import_legacy.ts");
    for (const entry of await readLegacyRoutines(this.#o.legacySources)) {
      if (entry.id !== null && this.#o.routines.get(entry.id)) {
        result.skipped.push({ id: entry.id, reason: "exists" });
      } else if (entry.outcome === "skip") {
        result.skipped.push({ id: entry.id, reason: entry.reason });
      } else if (entry.outcome === "fail") {
        result.failed.push({ file: entry.file, reason: entry.reason });
      } else {
        try {
          this.create({ ...entry.definition, status: "PAUSED" });
          result.imported.push(entry.id);
        } catch (error) {
          // A runtime or isolation this machine cannot run (issue 27 item 6) fails that entry only.
          if (!(error instanceof ServiceError) || error.status !== 400) throw error;
          result.failed.push({ file: entry.file, reason: error.message });
        }
      }
    }
    return result;
  }
}
