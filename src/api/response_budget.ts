/**
 * A bound on the bytes of large answers held in memory at once (issue 13:
 * 200 parallel 4 MiB page reads took the daemon to 1.3 GB). A page is
 * counted from when it is built until its last byte has been handed to the
 * connection (or the client went away); a request that would pass the
 * budget waits for room before it builds its page.
 */
export class ResponseBudget {
  readonly #limit: number;
  #inFlight = 0;
  #waiters: Array<() => void> = [];

  constructor(limitBytes: number) {
    this.#limit = limitBytes;
  }

  /** Bytes of answers not yet fully sent. */
  get inFlight(): number {
    return this.#inFlight;
  }

  /**
   * Resolves true when a new answer may be built: at once while under the
   * budget, else when earlier ones have been sent; false after `timeoutMs`.
   */
  async room(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (this.#inFlight >= this.#limit) {
      const left = deadline - Date.now();
      if (left <= 0) return false;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return true;
  }

  /** A response of `bytes` that count against the budget until sent. */
  response(bytes: Uint8Array, init: ResponseInit): Response {
    this.#inFlight += bytes.length;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      this.#inFlight -= bytes.length;
      for (const wake of this.#waiters.splice(0)) wake();
    };
    let offset = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (offset >= bytes.length) {
          controller.close();
          release();
          return;
        }
        const end = Math.min(bytes.length, offset + CHUNK_BYTES);
        controller.enqueue(bytes.subarray(offset, end));
        offset = end;
      },
      cancel: release,
    });
    return new Response(body, init);
  }
}

/** Handed to the connection this much at a time. */
const CHUNK_BYTES = 64 * 1024;
