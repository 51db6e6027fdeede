import { ServiceError } from "../errors.ts";
import { type Clock, isoTime } from "../clock.ts";
import type { Logger } from "../log.ts";
import type { RoutineRow } from "../store/routines_store.ts";
import type { Delivery, RunError, RunRow, RunsStore } from "../store/runs_store.ts";
import type { RunOutcome } from "./run_outcome.ts";
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
  /** The ended session's usage, final text and worktree (D20, D22). */
  outcome?: (sessionId: string) => RunOutcome;
  /** Writes the run's result where its routine's `outputTarget` says; null without one (D21). */
  deliver?: (run: RunRow, routine: RoutineRow) => Promise<Delivery | null>;
  /**
   * The end of a parked session's next start (D33: its timer, `unpark` or a
   * resume); without it a run whose session parks ends `failed`.
   */
  nextStart?: (sessionId: string) => Promise<{ ended: Promise<SessionRow> }>;
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
      return await this.#end(run.id, routine, "failed", null, {
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
      return await this.#end(run.id, routine, "failed", null, {
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
    this.#options.log.info("Run started", {
      runId: run.id,
      routineId: routine.id,
      sessionId: launched.sessionId,
    });
    const tracking = this.#track(run.id, routine, launched.sessionId, launched.ended);
    this.#tracking.add(tracking);
    tracking.finally(() => this.#tracking.delete(tracking));
    return runs.get(run.id)!;
  }

  /**
   * At start-up (D33): tracks again a run a previous daemon left `parked`, so
   * it completes when its session next ends. `ended` is the live session's
   * end, or its row as it stands (still `parked`: the run waits for its next
   * start). The time the agent worked before the restart is not known: the
   * run gets its whole `timeoutMinutes` again.
   */
  reattach(run: RunRow, routine: RoutineRow, ended: Promise<SessionRow>): void {
    if (run.sessionId === null) return;
    const tracking = this.#track(run.id, routine, run.sessionId, ended);
    this.#tracking.add(tracking);
    tracking.finally(() => this.#tracking.delete(tracking));
  }

  /** Resolves when every run started so far has been recorded as ended. */
  async settled(): Promise<void> {
    while (this.#tracking.size > 0) await Promise.allSettled([...this.#tracking]);
  }

  /** Stops the timeout timers (the sessions themselves are ended by the supervisor). */
  stop(): void {
    this.#stop.abort();
  }

  /**
   * Waits for the run's session to end; one that parks on a limit (D33)
   * leaves the run `parked` until it is resumed and ends again, and the
   * timeout counts only the time the agent worked. A daemon that stops
   * while it waits leaves the run `parked`.
   */
  async #track(
    runId: string,
    routine: RoutineRow,
    sessionId: string,
    ended: Promise<SessionRow>,
  ): Promise<void> {
    const { runs, nextStart } = this.#options;
    let watched = await this.#watch(sessionId, ended, routine.definition.timeoutMinutes * 60_000);
    while (watched.session.status === "parked" && !watched.timedOut && nextStart) {
      runs.update(runId, { status: "parked" });
      const next = await this.#unlessStopped(nextStart(sessionId));
      if (next === null) return;
      runs.update(runId, { status: "running" });
      watched = await this.#watch(sessionId, next.ended, watched.leftMs);
    }
    const { session, timedOut } = watched;
    const denied = this.#options.deniedPermissions?.(sessionId);
    if (denied !== undefined) this.#options.runs.update(runId, { permissionDenials: denied });
    if (timedOut) {
      await this.#end(runId, routine, "timed_out", session.exit_code, {
        code: "timed_out",
        message:
          `Run exceeded timeoutMinutes (${routine.definition.timeoutMinutes}) and was killed`,
      });
    } else if (session.status === "completed") {
      await this.#end(runId, routine, "succeeded", session.exit_code, null);
    } else {
      await this.#end(runId, routine, "failed", session.exit_code, {
        code: `session_${session.status}`,
        message: session.exit_code === null
          ? `Session ended ${session.status}`
          : `Session ended ${session.status} with exit code ${session.exit_code}`,
      });
    }
  }

  /** Waits for one start of the session to end, killing it past `budgetMs`. */
  async #watch(
    sessionId: string,
    ended: Promise<SessionRow>,
    budgetMs: number,
  ): Promise<{ session: SessionRow; timedOut: boolean; leftMs: number }> {
    const { clock, kill } = this.#options;
    const startedAt = clock.now();
    const timer = new AbortController();
    const stopTimer = () => timer.abort();
    this.#stop.signal.addEventListener("abort", stopTimer, { once: true });
    let timedOut = false;
    const timeout = clock.sleep(budgetMs, timer.signal).then(() => {
      if (timer.signal.aborted) return;
      timedOut = true;
      kill(sessionId);
    });
    try {
      const session = await ended;
      return { session, timedOut, leftMs: budgetMs - (clock.now() - startedAt) };
    } finally {
      timer.abort();
      this.#stop.signal.removeEventListener("abort", stopTimer);
      await timeout;
    }
  }

  /** `waiting`, or null once the runner stops. */
  #unlessStopped<T>(waiting: Promise<T>): Promise<T | null> {
    const stop = this.#stop.signal;
    if (stop.aborted) return Promise.resolve(null);
    return new Promise((resolve) => {
      const onStop = () => resolve(null);
      stop.addEventListener("abort", onStop, { once: true });
      waiting.then((value) => {
        stop.removeEventListener("abort", onStop);
        resolve(value);
      });
    });
  }

  /**
   * Records how a run ended, with its session's outcome, after writing its
   * result (D21: a reader that sees the run ended finds its result too).
   */
  async #end(
    runId: string,
    routine: RoutineRow,
    status: "succeeded" | "failed" | "timed_out",
    exitCode: number | null,
    error: RunError | null,
    sessionId?: string,
  ): Promise<RunRow> {
    const { runs, clock } = this.#options;
    const current = runs.get(runId)!;
    return await this.#complete(current, routine, {
      status,
      exitCode,
      error,
      endedAt: isoTime(clock.now()),
      leaseOwner: null,
      leaseExpiresAt: null,
      sessionId: sessionId ?? current.sessionId,
    });
  }

  /**
   * A run recovery closed (`daemon_restarted`, D12) still gets its outcome,
   * its result (D21) and its `run.ended` (notify); `routine` is null when it
   * was deleted since.
   */
  afterRecovery(runId: string, routine: RoutineRow | null): void {
    const run = this.#options.runs.get(runId);
    if (!run) return;
    const completing = this.#complete(run, routine, {}).then(() => {}, (error) => {
      this.#options.log.error("Recording a recovered run failed", { runId, error });
    });
    this.#tracking.add(completing);
    completing.finally(() => this.#tracking.delete(completing));
  }

  /** Adds the session's outcome, writes the result, then stores and announces the end. */
  async #complete(
    current: RunRow,
    routine: RoutineRow | null,
    ending: Partial<RunRow>,
  ): Promise<RunRow> {
    const { runs } = this.#options;
    const runId = current.id;
    const session = ending.sessionId ?? current.sessionId;
    const outcome = session !== null && this.#options.outcome
      ? this.#options.outcome(session)
      : null;
    const deniedTools = outcome?.deniedTools ?? [];
    const fields = { ...ending, ...outcome };
    let delivery: Delivery | null = null;
    try {
      if (routine) {
        delivery = await this.#options.deliver?.({ ...current, ...fields }, routine) ?? null;
      }
    } catch (failure) {
      this.#options.log.error("Run result delivery failed", { runId, error: failure });
    }
    runs.update(runId, { ...fields, delivery });
    const ended = runs.get(runId)!;
    this.#options.publish?.("run.ended", {
      runId,
      routineId: ended.routineId,
      sessionId: ended.sessionId,
      status: ended.status,
      resultPath: delivery?.status === "delivered" ? delivery.path : null,
      permissionDenials: ended.permissionDenials ?? 0,
      deniedTools,
    });
    this.#options.log.info("Run ended", {
      runId,
      routineId: ended.routineId,
      sessionId: ended.sessionId,
      status: ended.status,
    });
    return ended;
  }
}
