/**
 * A chunked request body (RFC 9112 §7.1), decoded as its bytes arrive:
 * sizes in hex, chunk extensions and trailer fields parsed and bounded, the
 * decoded length held to `maxBodyBytes` before a chunk's data is read.
 * Lines must end in CRLF, as in the head (no bare LF: no smuggling).
 */
import { ByteQueue } from "./byte_queue.ts";
import { badRequest, FramingError, type Http1Limits } from "./http1_errors.ts";
import { parseFieldLine } from "./http1_field_line.ts";

/** Longest chunk-size line, extensions included (a line beyond is refused). */
const MAX_SIZE_LINE_BYTES = 1024;
/** `chunk-size [ chunk-ext ]`: hex digits, then `;name[=token|"quoted"]` pairs with optional BWS. */
const SIZE_LINE =
  /^([0-9A-Fa-f]+)((?:[ \t]*;[ \t]*[!#$%&'*+.^_`|~0-9A-Za-z-]+(?:[ \t]*=[ \t]*(?:[!#$%&'*+.^_`|~0-9A-Za-z-]+|"(?:[\t\x20\x21\x23-\x5b\x5d-\x7e\x80-\xff]|\\[\t\x20-\x7e\x80-\xff])*"))?)*)[ \t]*$/;

type State = "size" | "data" | "data-end" | "trailers" | "done";

/** Decodes one chunked body fed in pieces; `done` once the last chunk and trailers arrived. */
export class ChunkedBodyDecoder {
  readonly #limits: Http1Limits;
  readonly #body = new ByteQueue();
  #state: State = "size";
  /** Data bytes of the current chunk not yet read. */
  #remaining = 0;
  #decoded = 0;
  #trailerBytes = 0;
  #trailerCount = 0;
  /** Bytes of the line now arriving already scanned (a trickled line is scanned once). */
  #lineScanned = 0;
  /** The decoded body would pass `maxBodyBytes` and the limits say to skip it. */
  oversized = false;
  /** The body length the chunk sizes announced so far (past the limit once `oversized`). */
  announced = 0;

  constructor(limits: Http1Limits) {
    this.#limits = limits;
  }

  get done(): boolean {
    return this.#state === "done";
  }

  /** The decoded body, once `done`. */
  body(): Uint8Array<ArrayBuffer> {
    return this.#body.take(this.#body.length);
  }

  /** Decodes what it can of `bytes`; returns how many it consumed. Throws `FramingError`. */
  feed(bytes: Uint8Array<ArrayBuffer>): number {
    let at = 0;
    while (this.#state !== "done" && !this.oversized) {
      if (this.#state === "data") {
        const count = Math.min(this.#remaining, bytes.length - at);
        if (count === 0) break;
        this.#body.push(bytes.slice(at, at + count));
        this.#remaining -= count;
        at += count;
        if (this.#remaining === 0) this.#state = "data-end";
        continue;
      }
      if (this.#state === "data-end") {
        if (bytes.length - at < 2) break;
        if (bytes[at] !== 13 || bytes[at + 1] !== 10) {
          throw badRequest("Chunk data is not followed by CRLF");
        }
        at += 2;
        this.#state = "size";
        continue;
      }
      const lineEnd = indexOfLineEnd(bytes, at + this.#lineScanned);
      if (lineEnd < 0) {
        this.#lineScanned = Math.max(0, bytes.length - at - 1);
        this.#checkPartialLine(bytes.length - at);
        break;
      }
      this.#lineScanned = 0;
      const line = latin1(bytes.subarray(at, lineEnd));
      at = lineEnd + 2;
      if (this.#state === "size") this.#sizeLine(line);
      else this.#trailerLine(line);
    }
    return at;
  }

  #sizeLine(line: string): void {
    if (line.length > MAX_SIZE_LINE_BYTES) throw badRequest("Chunk size line is too long");
    const match = SIZE_LINE.exec(line);
    if (!match) throw badRequest(`Chunk size line "${line.slice(0, 40)}" is malformed`);
    const digits = match[1].replace(/^0+(?=[0-9A-Fa-f])/, "");
    const size = digits.length > 12 ? Infinity : parseInt(digits, 16);
    if (size === 0) {
      this.#state = "trailers";
      return;
    }
    this.announced = this.#decoded + size;
    if (this.announced > this.#limits.maxBodyBytes) {
      if (this.#limits.skipOversizedBodies) {
        this.oversized = true;
        return;
      }
      throw new FramingError(
        413,
        "payload_too_large",
        `Request body exceeds ${this.#limits.maxBodyBytes} bytes`,
        { limit: this.#limits.maxBodyBytes },
      );
    }
    this.#decoded += size;
    this.#remaining = size;
    this.#state = "data";
  }

  #trailerLine(line: string): void {
    if (line === "") {
      this.#state = "done";
      return;
    }
    this.#trailerBytes += line.length + 2;
    this.#trailerCount++;
    if (
      this.#trailerBytes > this.#limits.maxHeadBytes ||
      this.#trailerCount > this.#limits.maxHeaderCount
    ) {
      throw new FramingError(431, "headers_too_large", "Chunked body trailers are too large", {
        limit: this.#limits.maxHeadBytes,
      });
    }
    parseFieldLine(line); // Checked, then dropped: no route reads trailers.
  }

  /** A line still arriving must stay within its bound. */
  #checkPartialLine(held: number): void {
    if (this.#state === "size" && held > MAX_SIZE_LINE_BYTES) {
      throw badRequest("Chunk size line is too long");
    }
    if (this.#state === "trailers" && this.#trailerBytes + held > this.#limits.maxHeadBytes) {
      throw new FramingError(431, "headers_too_large", "Chunked body trailers are too large", {
        limit: this.#limits.maxHeadBytes,
      });
    }
  }
}

/**
 * Index of the CRLF ending the line now arriving, scanned from `resumeAt`;
 * -1 if not yet received; a bare CR or LF or a NUL throws.
 */
function indexOfLineEnd(bytes: Uint8Array, resumeAt: number): number {
  for (let i = resumeAt; i < bytes.length; i++) {
    const byte = bytes[i];
    if (byte === 13) {
      if (i + 1 >= bytes.length) return -1;
      if (bytes[i + 1] !== 10) throw badRequest("Chunked body holds a bare CR");
      return i;
    }
    if (byte === 10) throw badRequest("Chunked body holds a bare LF: lines must end with CRLF");
    if (byte === 0) throw badRequest("Chunked body holds a NUL");
  }
  return -1;
}

function latin1(bytes: Uint8Array): string {
  return String.fromCharCode(...bytes);
}
