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

  /** Something happened (a request): the idle time starts again. */
  touch(): void {
    this.#lastActivity = this.#clock.now();
    this.#released = false;
  }

  /** Checks every `idleMs` until `signal` aborts; a failed release is reported, not thrown. */
  async run(signal: AbortSignal, onError: (error: unknown) => void = () => {}): Promise<void> {
    while (!signal.aborted) {
      await this.#clock.sleep(this.#idleMs, signal);
      if (signal.aborted) return;
      if (this.#busy()) {
        this.touch();
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
