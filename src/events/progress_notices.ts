import type { Clock } from "../clock.ts";

/** At most one notice per session this often (a busy session commits many times a second). */
export const PROGRESS_INTERVAL_MS = 1000;

/**
 * `session.progress` notices of the daemon-wide feed (D19, D25): that a
 * session's log grew, with its last seq and when, so a fleet view knows how
 * long each agent has been quiet (its stalled state) without reading every
 * session's stream or polling. Throttled per session: the first commit is
 * announced at once, later ones at most once per PROGRESS_INTERVAL_MS, and
 * the last one is never lost (a trailing notice).
 */
export class ProgressNotices {
  readonly #clock: Pick<Clock, "now">;
  readonly #publish: (data: { sessionId: string; lastSeq: number; at: string }) => void;
  /** Per session: when it was last announced, its last committed seq, a trailing notice due. */
  readonly #sessions = new Map<
    string,
    { at: number; lastSeq: number; timer: ReturnType<typeof setTimeout> | null }
  >();

  constructor(options: {
    clock: Pick<Clock, "now">;
    publish: (data: { sessionId: string; lastSeq: number; at: string }) => void;
  }) {
    this.#clock = options.clock;
    this.#publish = options.publish;
  }

  #stopped = false;

  /** Sessions whose events were just committed, with their last committed seq. */
  committed(lastSeqs: ReadonlyMap<string, number>): void {
    if (this.#stopped) return;
    const now = this.#clock.now();
    for (const [sessionId, lastSeq] of lastSeqs) {
      const known = this.#sessions.get(sessionId);
      if (known === undefined || (known.timer === null && now - known.at >= PROGRESS_INTERVAL_MS)) {
        this.#sessions.set(sessionId, { at: now, lastSeq, timer: null });
        this.#announce(sessionId, lastSeq, now);
        continue;
      }
      known.lastSeq = Math.max(known.lastSeq, lastSeq);
      known.timer ??= setTimeout(() => {
        known.timer = null;
        known.at = this.#clock.now();
        this.#announce(sessionId, known.lastSeq, known.at);
      }, Math.max(0, PROGRESS_INTERVAL_MS - (now - known.at)));
    }
    this.#forgetOld(now);
  }

  /** Cancels trailing notices (daemon stop). */
  stop(): void {
    this.#stopped = true;
    for (const entry of this.#sessions.values()) {
      if (entry.timer !== null) clearTimeout(entry.timer);
    }
    this.#sessions.clear();
  }

  #announce(sessionId: string, lastSeq: number, at: number): void {
    this.#publish({ sessionId, lastSeq, at: new Date(at).toISOString() });
  }

  /** Drops sessions quiet for a while, so the map holds only the active ones. */
  #forgetOld(now: number): void {
    if (this.#sessions.size < 256) return;
    for (const [sessionId, entry] of this.#sessions) {
      if (entry.timer === null && now - entry.at >= PROGRESS_INTERVAL_MS) {
        this.#sessions.delete(sessionId);
      }
    }
  }
}
