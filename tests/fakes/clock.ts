import type { Clock } from "../../src/clock.ts";

interface Timer {
  at: number;
  resolve: () => void;
}

/** A clock that moves only when told: `advance` fires due sleeps in time order. */
export class FakeClock implements Clock {
  #now: number;
  #timers: Timer[] = [];

  constructor(startMs: number) {
    this.#now = startMs;
  }

  now(): number {
    return this.#now;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const timer: Timer = { at: this.#now + Math.max(0, ms), resolve };
      this.#timers.push(timer);
      signal?.addEventListener("abort", () => {
        this.#timers = this.#timers.filter((t) => t !== timer);
        resolve();
      }, { once: true });
    });
  }

  /** Moves time forward by `ms`, firing every sleep that comes due on the way. */
  async advance(ms: number): Promise<void> {
    const target = this.#now + ms;
    for (;;) {
      this.#timers.sort((a, b) => a.at - b.at);
      const next = this.#timers[0];
      if (!next || next.at > target) break;
      this.#timers.shift();
      this.#now = Math.max(this.#now, next.at); // Timers due before a jump fire late.
      next.resolve();
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
    this.#now = target;
  }

  /** Jumps to an instant (also backwards, like a clock change) without firing sleeps. */
  set(ms: number): void {
    this.#now = ms;
  }

  /** Sleeps still waiting. */
  get pending(): number {
    return this.#timers.length;
  }
}
