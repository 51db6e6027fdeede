import type { Clock } from "./clock.ts";

/**
 * Gives memory back once the daemon is idle (issue 26): after `idleMs` with
 * no request and nothing live, `release` runs once, and again only after the
 * next activity. What it frees (SQLite's page cache) fills again on demand.
 */
export class IdleRelease {
  readonly #clock: Clock;
  readonly #idleMs: number;
  readonly #busy: () => boolean;
  readonly #release: () => void;
  #lastActivity: number;
  /** Set by `touch()`, read by the next check: a request pays no clock read. */
  #touched = false;
  #released = false;

  constructor(
    clock: Clock,
    options: { idleMs: number; busy: () => boolean; release: () => void },
  ) {
    this.#clock = clock;
    this.#idleMs = options.idleMs;
    this.#busy = options.busy;
    this.#release = options.release;
    this.#lastActivity = clock.now();
  }

  /**
   * Something happened (a request): the idle time starts again, counted
   * from the next check (at most `idleMs` later), so a release still comes
   * one to two `idleMs` after the last activity.
   */
  touch(): void {
    this.#touched = true;
  }

  /** Checks every `idleMs` until `signal` aborts; a failed release is reported, not thrown. */
  async run(signal: AbortSignal, onError: (error: unknown) => void = () => {}): Promise<void> {
    while (!signal.aborted) {
      await this.#clock.sleep(this.#idleMs, signal);
      if (signal.aborted) return;
      if (this.#busy() || this.#touched) {
        this.#touched = false;
        this.#lastActivity = this.#clock.now();
        this.#released = false;
        continue;
      }
      if (this.#released || this.#clock.now() - this.#lastActivity < this.#idleMs) continue;
      this.#released = true;
      try {
        this.#release();
      } catch (error) {
        onError(error);
      }
    }
  }
}
