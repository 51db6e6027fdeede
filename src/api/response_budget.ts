/**
 * A bound on the bytes of large answers held in memory at once (issue 13:
 * 200 parallel 4 MiB page reads took the daemon to 1.3 GB). A read reserves
 * the largest page it may build before building it, so parallel reads can
 * never all pass the check together; once built, the reservation becomes the
 * page's real size, held until its last byte has been handed to the
 * connection (or the client went away).
 */
export class ResponseBudget {
  readonly #limit: number;
  readonly #reserveBytes: number;
  #inFlight = 0;
  #waiters: Array<() => void> = [];

  /** `limitBytes` in all; each reservation takes `reserveBytes` until its page is built. */
  constructor(limitBytes: number, reserveBytes: number) {
    this.#limit = limitBytes;
    this.#reserveBytes = reserveBytes;
  }

  /**
   * A reservation for one answer: at once while there is room (checked and
   * taken in one step), else when earlier answers have been sent; null
   * after `timeoutMs`.
   */
  async reserve(timeoutMs: number): Promise<Reservation | null> {
    const deadline = Date.now() + timeoutMs;
    while (this.#inFlight + this.#reserveBytes > this.#limit && this.#inFlight > 0) {
      const left = deadline - Date.now();
      if (left <= 0) return null;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    this.#inFlight += this.#reserveBytes;
    return new Reservation(this.#reserveBytes, (bytes) => this.#release(bytes));
  }

  #release(bytes: number): void {
    this.#inFlight -= bytes;
    for (const wake of this.#waiters.splice(0)) wake();
  }
}

/** Room taken in a `ResponseBudget`, given back exactly once. */
export class Reservation {
  #held: number;
  readonly #release: (bytes: number) => void;

  constructor(held: number, release: (bytes: number) => void) {
    this.#held = held;
    this.#release = release;
  }

  /** Gives the room back (a small answer, or an error before any was built). */
  release(): void {
    if (this.#held === 0) return;
    const held = this.#held;
    this.#held = 0;
    this.#release(held);
  }

  /** A response of `bytes` that holds exactly its size until sent, then gives it back. */
  response(bytes: Uint8Array<ArrayBuffer>, init: ResponseInit): Response {
    // The reservation becomes the page's real size.
    this.#release(this.#held - bytes.length);
    this.#held = bytes.length;
    let offset = 0;
    const body = new ReadableStream<Uint8Array>({
      pull: (controller) => {
        if (offset >= bytes.length) {
          controller.close();
          this.release();
          return;
        }
        const end = Math.min(bytes.length, offset + CHUNK_BYTES);
        controller.enqueue(bytes.subarray(offset, end));
        offset = end;
      },
      cancel: () => this.release(),
    });
    // The length is known: the connection sends it as is, without chunk framing.
    const headers = new Headers(init.headers);
    headers.set("content-length", String(bytes.length));
    return new Response(body, { ...init, headers });
  }
}

/** Handed to the connection this much at a time. */
const CHUNK_BYTES = 64 * 1024;
