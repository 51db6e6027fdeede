/**
 * Time as the daemon's core sees it. Core code never calls `Date.now()` or
 * `setTimeout` directly: it receives a `Clock`, so the scheduler's edge cases
 * (DST, missed occurrences, leases) are tested with a fake one.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  /**
   * Resolves after `ms` milliseconds of this clock's time, or early (without
   * rejecting) when `signal` aborts.
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** The real clock: wall time and timers. */
export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const timer = setTimeout(done, Math.max(0, ms));
      signal?.addEventListener("abort", done, { once: true });
      function done() {
        clearTimeout(timer);
        signal?.removeEventListener("abort", done);
        resolve();
      }
    }),
};

/** Whether `work` settles within `ms` of `clock`'s time (it keeps running either way). */
export async function settlesWithin(
  clock: Clock,
  work: Promise<unknown>,
  ms: number,
): Promise<boolean> {
  const deadline = new AbortController();
  try {
    return await Promise.race([
      work.then(() => true, () => true),
      clock.sleep(ms, deadline.signal).then(() => false),
    ]);
  } finally {
    deadline.abort();
  }
}

/** ISO 8601 UTC with milliseconds (D4). */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}
