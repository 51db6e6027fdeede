/** An empty byte array, shared. */
export const EMPTY = new Uint8Array(0);

/**
 * Received bytes not yet consumed, in one buffer that grows by doubling:
 * appending n bytes costs O(n) amortised however small the chunks are
 * (issue 28: joining the whole buffer to every new chunk was quadratic in a
 * trickled request). While empty it borrows the caller's chunk instead of
 * copying it; `settle()` copies what is left before the caller reuses it.
 */
export class ByteQueue {
  #bytes: Uint8Array<ArrayBuffer> = EMPTY;
  #start = 0;
  #end = 0;
  /** Whether `#bytes` is still the caller's chunk. */
  #borrowed = false;

  /** Bytes held. */
  get length(): number {
    return this.#end - this.#start;
  }

  /** The bytes held, without a copy (valid until the next call). */
  view(): Uint8Array<ArrayBuffer> {
    return this.#bytes.subarray(this.#start, this.#end);
  }

  /** Appends `chunk` (borrowed when the queue is empty: see `settle`). */
  push(chunk: Uint8Array<ArrayBuffer>): void {
    if (chunk.length === 0) return;
    if (this.length === 0) {
      this.#bytes = chunk;
      this.#start = 0;
      this.#end = chunk.length;
      this.#borrowed = true;
      return;
    }
    this.#reserve(chunk.length);
    this.#bytes.set(chunk, this.#end);
    this.#end += chunk.length;
  }

  /** Drops the first `count` bytes. */
  consume(count: number): void {
    this.#start += count;
    if (this.#start >= this.#end) this.clear();
  }

  /** The first `count` bytes as a copy of their own, consumed. */
  take(count: number): Uint8Array<ArrayBuffer> {
    if (count === 0) return EMPTY;
    const taken = this.#bytes.slice(this.#start, this.#start + count);
    this.consume(count);
    return taken;
  }

  /** Drops everything. */
  clear(): void {
    this.#bytes = EMPTY;
    this.#start = 0;
    this.#end = 0;
    this.#borrowed = false;
  }

  /** Copies a borrowed chunk's unconsumed bytes, so the caller may reuse the chunk. */
  settle(): void {
    if (!this.#borrowed) return;
    this.#bytes = this.#bytes.slice(this.#start, this.#end);
    this.#start = 0;
    this.#end = this.#bytes.length;
    this.#borrowed = false;
  }

  /** Room for `extra` more bytes after `#end`: compacts, or grows to twice what is needed. */
  #reserve(extra: number): void {
    const held = this.length;
    if (!this.#borrowed && this.#end + extra <= this.#bytes.length) return;
    if (!this.#borrowed && held + extra <= this.#bytes.length / 2) {
      this.#bytes.copyWithin(0, this.#start, this.#end);
    } else {
      const grown = new Uint8Array(Math.max(2 * (held + extra), 4096));
      grown.set(this.#bytes.subarray(this.#start, this.#end));
      this.#bytes = grown;
      this.#borrowed = false;
    }
    this.#start = 0;
    this.#end = held;
  }
}
