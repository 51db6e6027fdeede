import { ServiceError } from "../errors.ts";

/** 503 `daemon_stopping`: a launch or resume after the stop began (issue 33 item 8). */
export function daemonStopping(what: "launch" | "resume"): ServiceError {
  return new ServiceError(
    "daemon_stopping",
    503,
    `Cannot ${what}: the daemon is stopping; start it again and retry`,
  );
}

/**
 * Admits launches and resumes until the daemon begins to stop, and counts
 * those in flight (past admission, not yet live or failed) so that the stop
 * waits for them: none can start an agent the stop never sees (issue 33 item 8).
 */
export class LaunchGate {
  #open = true;
  readonly #closing = new AbortController();
  #inFlight = 0;
  #drained: PromiseWithResolvers<void> | null = null;

  /** Launches and resumes admitted and not yet settled. */
  get inFlight(): number {
    return this.#inFlight;
  }

  /** False once `close` was called. */
  get open(): boolean {
    return this.#open;
  }

  /** Aborts when `close` is called: an admitted one that waits stops waiting. */
  get closing(): AbortSignal {
    return this.#closing.signal;
  }

  /** Admits one launch or resume, to `leave` when it settles; 503 once closed. */
  enter(what: "launch" | "resume"): void {
    if (!this.#open) throw daemonStopping(what);
    this.#inFlight++;
  }

  leave(): void {
    this.#inFlight--;
    if (this.#inFlight === 0) this.#drained?.resolve();
  }

  /** Admits no more; resolves once every admitted one has left. */
  close(): Promise<void> {
    this.#open = false;
    this.#closing.abort();
    if (this.#inFlight === 0) return Promise.resolve();
    this.#drained ??= Promise.withResolvers();
    return this.#drained.promise;
  }
}
