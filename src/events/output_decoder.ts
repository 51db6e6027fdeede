/** UTF-8 decoding of a child's output stream and cutting of the text into `output` events (D8). */

import { Buffer } from "node:buffer";

/** Largest `data` of one `output` event, in UTF-8 bytes. */
export const MAX_OUTPUT_EVENT_BYTES = 65536;

/** A newline this far into the window (as a share of it) is preferred as the cut. */
const NEWLINE_CUT_SHARE = 0.75;

/**
 * Decodes one byte stream: a character split across reads is joined, invalid bytes become
 * U+FFFD and never throw. A byte order mark is kept as output, not stripped.
 *
 * Each read is decoded in one pass, two to three times as fast as a streaming `TextDecoder`,
 * with the same result: the bytes of a character that is not complete yet are held and joined
 * with the start of the next read.
 */
export class OutputDecoder {
  #decoder = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });
  /** The first bytes (at most three) of a character that is not complete yet. */
  #held: Uint8Array | null = null;

  /** Decodes a read, holding back the bytes of a character that is not complete yet. */
  push(bytes: Uint8Array): string {
    let joined = "";
    let from = 0;
    if (this.#held !== null) {
      const held = this.#held;
      const missing = sequenceLength(held[0]) - held.length;
      while (from < missing && from < bytes.length && continues(held, from, bytes[from])) from++;
      if (from < missing && from === bytes.length) {
        this.#held = concatBytes(held, bytes);
        return "";
      }
      // Complete, or cut short by a byte that cannot continue it: then one U+FFFD, as streaming.
      joined = this.#decoder.decode(concatBytes(held, bytes.subarray(0, from)));
      this.#held = null;
    }
    const end = incompleteTailAt(bytes, from);
    if (end < bytes.length) this.#held = bytes.slice(end);
    return joined + this.#decoder.decode(bytes.subarray(from, end));
  }

  /** Hands over the bytes of an incomplete character held, leaving the decoder as new. */
  takeHeld(): Uint8Array | null {
    const held = this.#held;
    this.#held = null;
    return held;
  }

  /** Ends the stream: an incomplete character left over becomes U+FFFD. */
  flush(): string {
    const held = this.#held;
    this.#held = null;
    return held === null ? "" : this.#decoder.decode(held);
  }
}

/** Length of the UTF-8 sequence that `lead` starts, 0 when it starts none (ASCII, invalid). */
function sequenceLength(lead: number): number {
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  return lead >= 0xf0 && lead <= 0xf4 ? 4 : 0;
}

/**
 * Whether `byte` can continue a sequence that so far is `start` and then `more` other bytes, by
 * the ranges of the Encoding Standard's UTF-8 decoder (no overlong forms, surrogates or values
 * past U+10FFFF).
 */
function continues(start: Uint8Array, more: number, byte: number): boolean {
  if (start.length + more === 1) {
    const lead = start[0];
    if (lead === 0xe0) return byte >= 0xa0 && byte <= 0xbf;
    if (lead === 0xed) return byte >= 0x80 && byte <= 0x9f;
    if (lead === 0xf0) return byte >= 0x90 && byte <= 0xbf;
    if (lead === 0xf4) return byte >= 0x80 && byte <= 0x8f;
  }
  return byte >= 0x80 && byte <= 0xbf;
}

/**
 * Where the incomplete character that ends `bytes` starts, at or after `from`, or the end of
 * `bytes` when the last character is complete or already invalid.
 */
function incompleteTailAt(bytes: Uint8Array, from: number): number {
  const end = bytes.length;
  for (let at = end - 1; at >= Math.max(from, end - 3); at--) {
    const length = sequenceLength(bytes[at]);
    if (length === 0) {
      if (bytes[at] >= 0x80 && bytes[at] <= 0xbf) continue; // A continuation: look further back.
      return end;
    }
    if (end - at >= length) return end;
    const start = bytes.subarray(at, at + 1);
    for (let next = at + 1; next < end; next++) {
      if (!continues(start, next - at - 1, bytes[next])) return end;
    }
    return at;
  }
  return end;
}

/** `first` then `second`, in a new array (never a view of either). */
export function concatBytes(first: Uint8Array, second: Uint8Array): Uint8Array {
  const joined = new Uint8Array(first.length + second.length);
  joined.set(first);
  joined.set(second, first.length);
  return joined;
}

const encoder = new TextEncoder();
/** Scratch space for `splitForEvents()`: one event's bytes, encoded only to be measured. */
let scratch = new Uint8Array(MAX_OUTPUT_EVENT_BYTES);

/**
 * Cuts `text` into pieces of at most `maxBytes` UTF-8 bytes each, never inside a character
 * (surrogate pairs included), after a newline when one is in the last quarter of the window.
 * Joining the pieces gives `text` back; empty text gives no pieces. A lone surrogate counts as
 * the three bytes of U+FFFD, as it is stored. Measured natively: text that fits is only
 * counted, and `encodeInto` fills a window with whole characters, whose newline bytes are the
 * text's.
 */
export function splitForEvents(text: string, maxBytes = MAX_OUTPUT_EVENT_BYTES): string[] {
  if (!Number.isInteger(maxBytes) || maxBytes < 4) {
    throw new RangeError(
      `Cannot split output: maxBytes "${maxBytes}" is not an integer of at least 4`,
    );
  }
  if (text === "") return [];
  // A UTF-16 unit is at most three UTF-8 bytes (a surrogate pair is four for two units).
  if (text.length * 3 <= maxBytes) return [text];
  let restBytes = Buffer.byteLength(text, "utf8");
  if (restBytes <= maxBytes) return [text];
  if (scratch.length < maxBytes) scratch = new Uint8Array(maxBytes);
  const window = scratch.subarray(0, maxBytes);
  /** A newline ending at or after this many bytes is preferred as the cut. */
  const newlineFrom = Math.ceil(maxBytes * NEWLINE_CUT_SHARE) - 1;
  const pieces: string[] = [];
  let start = 0;
  while (restBytes > maxBytes) {
    // `maxBytes` units are at least `maxBytes` bytes: the window fills before they run out.
    const { read, written } = encoder.encodeInto(text.slice(start, start + maxBytes), window);
    let cut = start + read;
    let cutBytes = written;
    if (written > newlineFrom) {
      const newlineAt = window.subarray(newlineFrom, written).lastIndexOf(0x0a);
      if (newlineAt !== -1) {
        cut = text.lastIndexOf("\n", cut - 1) + 1;
        cutBytes = newlineFrom + newlineAt + 1;
      }
    }
    pieces.push(text.slice(start, cut));
    start = cut;
    restBytes -= cutBytes;
  }
  pieces.push(text.slice(start));
  return pieces;
}

/**
 * `splitForEvents()` on valid UTF-8: the same cuts, made on the bytes. The pieces are views of
 * `bytes`.
 */
export function splitBytesForEvents(
  bytes: Uint8Array,
  maxBytes = MAX_OUTPUT_EVENT_BYTES,
): Uint8Array[] {
  const newlineFrom = Math.ceil(maxBytes * NEWLINE_CUT_SHARE) - 1;
  const pieces: Uint8Array[] = [];
  let start = 0;
  while (bytes.length - start > maxBytes) {
    let cut = start + maxBytes;
    const newlineAt = bytes.lastIndexOf(0x0a, cut - 1);
    if (newlineAt >= start + newlineFrom) cut = newlineAt + 1;
    else while ((bytes[cut] & 0xc0) === 0x80) cut--; // Not inside a character.
    pieces.push(bytes.subarray(start, cut));
    start = cut;
  }
  if (start < bytes.length) pieces.push(bytes.subarray(start));
  return pieces;
}
