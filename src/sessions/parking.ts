/**
 * Sessions parked on a provider's limit (D33): what a park stores, its
 * durable auto-resume timer, and `unpark`. The timer lives in the session's
 * row, so a daemon restarted (or a machine woken) after `resumeAt` fires it
 * once; it is marked spent before the resume starts, so it never fires twice.
 */
import { ServiceError, sessionNotFound } from "../errors.ts";
import { type Clock, isoTime } from "../clock.ts";
import type { Logger } from "../log.ts";
import type { ParkedTurns } from "../agents/conversation.ts";
import type { SessionRow, SessionsStore } from "../store/sessions_store.ts";
import {
  type AutoResume,
  fireTimer,
  MAX_JITTER_MS,
  newPark,
  parkOf,
  type ParkOutcome,
  type ParkRecord,
} from "./park_record.ts";

/** What parking needs of the rest of the daemon. */
export interface ParkingOptions {
  sessions: SessionsStore;
  /** Resumes a conversation natively (D26) and sends it a turn: the supervisor. */
  resume: (sessionId: string) => Promise<unknown>;
  input: (sessionId: string, text: string) => Promise<unknown>;
  /** Ends a live session once its agent is idle with nothing queued. */
  close: (sessionId: string) => void;
  /** Appends an event to a session's log, live or ended. */
  record: (sessionId: string, kind: string, payload: Record<string, unknown>) => Promise<void>;
  /** Tells the daemon-wide feed (D19) that a session changed. */
  publish: (kind: "session.updated", data: Record<string, unknown>) => void;
  /** Config `autoResume`, for sessions whose launch or routine did not say. */
  autoResume: () => AutoResume;
  /** A number in [0, 1): the jitter's share of MAX_JITTER_MS. */
  random: () => number;
  clock: Clock;
  log: Logger;
}

/** Parks sessions, resumes them when their limit lifts, and answers `unpark`. */
export class Parking {
  readonly #options: ParkingOptions;
  readonly #timers = new Map<string, AbortController>();
  /** Routine runs waiting for their parked session's next start (D33). */
  readonly #waiters = new Map<string, Array<(start: { ended: Promise<SessionRow> }) => void>>();
  /** Those runs' sessions, started again: resolved with the row when it next ends. */
  readonly #ending = new Map<string, Array<(row: SessionRow) => void>>();

  constructor(options: ParkingOptions) {
    this.#options = options;
  }

  /** The park of `row`, whose turn failed on a limit: the supervisor stores and records it. */
  park(row: SessionRow, parked: ParkedTurns): ParkOutcome {
    const { clock, random } = this.#options;
    const autoResume: AutoResume = row.auto_resume_json === null
      ? this.#options.autoResume()
      : JSON.parse(row.auto_resume_json);
    const park = newPark(parked.limit, parked.turns, {
      now: clock.now(),
      previous: parkOf(row),
      completedTurns: row.turns,
      autoResume,
      jitterMs: random() * MAX_JITTER_MS,
    });
    return {
      fields: { park_json: JSON.stringify(park) },
      event: {
        parkedUntil: park.parkedUntil,
        reason: park.reason,
        autoResume: park.timer === "waiting" ? { at: park.resumeAt } : null,
      },
    };
  }

  /** At start-up: arms the timer of every waiting park; one whose time passed fires now. */
  start(): void {
    for (const row of this.#options.sessions.parked()) this.#arm(row);
  }

  /** Stops the timers (the parks stay in the store). */
  stop(): void {
    for (const timer of this.#timers.values()) timer.abort();
    this.#timers.clear();
    for (const waiters of this.#waiters.values()) waiters.length = 0;
  }

  /** The feed said a session changed status: arms a new park, wakes a run waiting for a start. */
  updated(sessionId: string, status: unknown): void {
    if (status === "running") {
      for (const wake of this.#waiters.get(sessionId) ?? []) {
        const ending = this.#ending.get(sessionId) ?? [];
        this.#ending.set(sessionId, ending);
        wake({ ended: new Promise((resolve) => ending.push(resolve)) });
      }
      this.#waiters.delete(sessionId);
      return;
    }
    const row = this.#options.sessions.get(sessionId);
    if (row === null) return;
    if (status === "parked") this.#arm(row);
    for (const resolve of this.#ending.get(sessionId) ?? []) resolve(row);
    this.#ending.delete(sessionId);
  }

  /**
   * Resolves with the end of the parked session's next start (by its timer,
   * `unpark` or a plain resume); never, for a daemon that stops first.
   */
  nextStart(sessionId: string): Promise<{ ended: Promise<SessionRow> }> {
    return new Promise((resolve) => {
      this.#waiters.set(sessionId, [...this.#waiters.get(sessionId) ?? [], resolve]);
    });
  }

  /**
   * `unpark` (D33): resumes the parked session now and sends its interrupted
   * turn again; with `cancel`, stops its timer instead (it stays parked and
   * resumable). 404 for no session, 409 `session_not_parked` unless parked.
   */
  async unpark(sessionId: string, { cancel = false } = {}): Promise<SessionRow> {
    const { sessions } = this.#options;
    const row = sessions.get(sessionId);
    if (row === null) throw sessionNotFound(sessionId);
    const park = parkOf(row);
    if (row.status !== "parked" || park === null) {
      throw new ServiceError(
        "session_not_parked",
        409,
        `Session "${sessionId}" is not parked (status "${row.status}")`,
        { sessionId, status: row.status },
      );
    }
    if (!cancel) {
      await this.#resume(row, { ...park, timer: "done" }, "owner");
      return sessions.get(sessionId) ?? row;
    }
    this.#disarm(sessionId);
    this.#store(sessionId, { ...park, timer: "cancelled", timerNote: null });
    await this.#options.record(sessionId, "session.unparked", { by: "owner", cancelled: true });
    this.#options.publish("session.updated", { sessionId, status: row.status, activity: null });
    return sessions.get(sessionId) ?? row;
  }

  #arm(row: SessionRow): void {
    const park = parkOf(row);
    if (row.status !== "parked" || park?.timer !== "waiting") return;
    const { clock } = this.#options;
    this.#disarm(row.id);
    const timer = new AbortController();
    this.#timers.set(row.id, timer);
    clock.sleep(Date.parse(park.resumeAt) - clock.now(), timer.signal).then(() => {
      if (timer.signal.aborted) return;
      this.#timers.delete(row.id);
      this.#fire(row.id, park.parkedAt).catch((error) =>
        this.#options.log.error("Auto-resuming a parked session failed", {
          sessionId: row.id,
          error,
        })
      );
    });
  }

  #disarm(sessionId: string): void {
    this.#timers.get(sessionId)?.abort();
    this.#timers.delete(sessionId);
  }

  /** The timer of the park made at `parkedAt` fired: resume, unless the day's resumes are spent. */
  async #fire(sessionId: string, parkedAt: string): Promise<void> {
    const row = this.#options.sessions.get(sessionId);
    const park = row === null ? null : parkOf(row);
    if (row?.status !== "parked" || park?.parkedAt !== parkedAt || park.timer !== "waiting") {
      return; // Resumed, cancelled or parked again since.
    }
    const fired = fireTimer(park, this.#options.clock.now());
    if (fired.timer === "max_per_day") {
      this.#store(sessionId, fired);
      await this.#options.record(sessionId, "session.unparked", {
        by: "timer",
        refused: "max_per_day",
        message: fired.timerNote,
      });
      this.#options.publish("session.updated", { sessionId, status: row.status, activity: null });
      return;
    }
    await this.#resume(row, fired, "timer").catch(() => {}); // Recorded on the park.
  }

  /**
   * Marks the park spent (durably, before anything starts), resumes the
   * conversation and sends its turns again. A refused resume leaves the
   * session parked, the turns kept and the reason on the park.
   */
  async #resume(row: SessionRow, park: ParkRecord, by: "owner" | "timer"): Promise<void> {
    const sessionId = row.id;
    this.#disarm(sessionId);
    this.#store(sessionId, { ...park, turns: [] });
    try {
      await this.#options.resume(sessionId);
    } catch (error) {
      const previous = parkOf(row)!;
      const timer = by === "timer" ? "failed" : previous.timer;
      const timerNote = by === "timer" ? (error as Error).message : previous.timerNote;
      this.#store(sessionId, { ...park, timer, timerNote });
      if (by === "timer") {
        this.#options.log.warn("A parked session could not be resumed", { sessionId, error });
      }
      throw error;
    }
    await this.#options.record(sessionId, "session.unparked", {
      by,
      turns: park.turns.length,
    });
    for (const turn of park.turns) await this.#options.input(sessionId, turn);
    // A routine's session was one-shot: it ends once its turns are done, and so does its run.
    if (row.run_id !== null) this.#options.close(sessionId);
  }

  #store(sessionId: string, park: ParkRecord): void {
    this.#options.sessions.update(sessionId, {
      park_json: JSON.stringify(park),
      updated_at: isoTime(this.#options.clock.now()),
    });
  }
}
