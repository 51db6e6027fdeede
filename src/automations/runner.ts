import { ServiceError } from "../api/errors.ts";
import { type Clock, isoTime } from "../clock.ts";
import type { Logger } from "../log.ts";
import type { RoutineRow } from "../store/routines_store.ts";
import type { RunError, RunRow, RunsStore } from "../store/runs_store.ts";
import type { SessionRow } from "../store/sessions_store.ts";

/** Launches a routine's session through the same validated path as `POST /sessions` (C3). */
export type RunLaunch = (
  routine: RoutineRow,
  runId: string,
  cwd: string,
) => Promise<{ sessionId: string; ended: Promise<SessionRow> }>;

/** Options of the runner. */
export interface RunnerOptions {
  runs: RunsStore;
  clock: Clock;
  log: Logger;
  launch: RunLaunch;
  /** Ends a session that ran past its routine's `timeoutMinutes`. */
  kill: (sessionId: string) => void;
  /** Denied permission requests of a session, recorded on its run (D18). */
  deniedPermissions?: (sessionId: string) => number;
  /** Tells the daemon-wide feed (D19) that a run started or ended. */
  publish?: (kind: "run.started" | "run.ended", data: Record<string, unknown>) => void;
}

/**
 * Starts claimed runs and records how they end (D12): exit 0 → succeeded,
 * otherwise failed; past `timeoutMinutes` the session is killed → timed_out.
 */
export class Runner {
  readonly #options: RunnerOptions;
  readonly #tracking = new Set<Promise<void>>();
  readonly #stop = new AbortController();

  constructor(options: RunnerOptions) {
    this.#options = options;
  }

  /**
   * Launches a run already recorded as `running`. A missing cwd or a launch
   * failure ends it `failed` with the error; returns the run as it stands.
   */
  async start(run: RunRow, routine: RoutineRow, cwd: string | undefined): Promise<RunRow> {
    const { runs, clock, launch } = this.#options;
    if (cwd === undefined) {
      return this.#end(run.id, "failed", null, {
        code: "missing_cwd",
        message: `Routine "${routine.id}" has no cwd: set one in its definition or pass cwd to run`,
      });
    }
    let launched;
    try {
      launched = await launch(routine, run.id, cwd);
    } catch (error) {
      const known = error instanceof ServiceError;
      if (!known) this.#options.log.error("Run launch failed", { runId: run.id, error });
      return this.#end(run.id, "failed", null, {
        code: known ? error.code : "launch_failed",
        message: (error as Error).message,
      }, known ? error.details.sessionId as string | undefined : undefined);
    }
    runs.update(run.id, { sessionId: launched.sessionId, startedAt: isoTime(clock.now()) });
    this.#options.publish?.("run.started", {
      runId: run.id,
      routineId: routine.id,
      sessionId: launched.sessionId,
    });
    const tracking = this.#track(run.id, routine, launched.sessionId, launched.ended);
    this.#tracking.add(tracking);
    tracking.finally(() => this.#tracking.delete(tracking));
    return runs.get(run.id)!;
  }

  /** Resolves when every run started so far has been recorded as ended. */
  async settled(): Promise<void> {
    while (this.#tracking.size > 0) await Promise.allSettled([...this.#tracking]);
  }

  /** Stops the timeout timers (the sessions themselves are ended by the supervisor). */
  stop(): void {
    this.#stop.abort();
  }

  async #track(
    runId: string,
    routine: RoutineRow,
    sessionId: string,
    ended: Promise<SessionRow>,
  ): Promise<void> {
    const { clock, kill } = this.#options;
    const timer = new AbortController();
    const stopTimer = () => timer.abort();
    this.#stop.signal.addEventListener("abort", stopTimer, { once: true });
    let timedOut = false;
    const timeoutMs = routine.definition.timeoutMinutes * 60_000;
    const timeout = clock.sleep(timeoutMs, timer.signal).then(() => {
      if (timer.signal.aborted) return;
      timedOut = true;
      kill(sessionId);
    });
    let session: SessionRow;
    try {
      session = await ended;
    } finally {
      timer.abort();
      this.#stop.signal.removeEventListener("abort", stopTimer);
      await timeout;
    }
    const denied = this.#options.deniedPermissions?.(sessionId);
    if (denied !== undefined) this.#options.runs.update(runId, { permissionDenials: denied });
    if (timedOut) {
      this.#end(runId, "timed_out", session.exit_code, {
        code: "timed_out",
        message:
          `Run exceeded timeoutMinutes (${routine.definition.timeoutMinutes}) and was killed`,
      });
    } else if (session.status === "completed") {
      this.#end(runId, "succeeded", session.exit_code, null);
    } else {
      this.#end(runId, "failed", session.exit_code, {
        code: `session_${session.status}`,
        message: session.exit_code === null
          ? `Session ended ${session.status}`
          : `Session ended ${session.status} with exit code ${session.exit_code}`,
      });
    }
  }

  #end(
    runId: string,
    status: "succeeded" | "failed" | "timed_out",
    exitCode: number | null,
    error: RunError | null,
    sessionId?: string,
  ): RunRow {
    const { runs, clock } = this.#options;
    runs.update(runId, {
      status,
      exitCode,
      error,
      endedAt: isoTime(clock.now()),
      leaseOwner: null,
      leaseExpiresAt: null,
      ...(sessionId === undefined ? {} : { sessionId }),
    });
    const ended = runs.get(runId)!;
    this.#options.publish?.("run.ended", {
      runId,
      routineId: ended.routineId,
      sessionId: ended.sessionId,
      status,
    });
    return ended;
  }
}
