/** One output stream of a child, from its bytes to the data of its `output` events (D8, D9). */

import { Buffer, isUtf8 } from "node:buffer";
import {
  concatBytes,
  OutputDecoder,
  splitBytesForEvents,
  splitForEvents,
} from "./output_decoder.ts";
import { hasLiteral } from "./redact.ts";
import { cleanCut, StreamRedactor } from "./stream_redactor.ts";

/** The data of one `output` event: text, or the UTF-8 bytes of text. */
export type OutputPiece = string | Uint8Array;

const NO_BYTES = new Uint8Array(0);
const encoder = new TextEncoder();

/**
 * Decodes, redacts and cuts one stream into event-sized pieces, in order: joined, they are
 * `redactText()` of the decoded stream, each at most MAX_OUTPUT_EVENT_BYTES and never cut
 * inside a character.
 *
 * Output without a secret stays bytes (issue 14): while the held partial line and the new read
 * hold no literal of any rule and are valid UTF-8, they are cut and stored as they came, which
 * saves decoding to UTF-16 and encoding back (half of ingestion's time). Anything else goes
 * through the decoder and the stream redactor; once what they hold is clean again, it comes
 * back as bytes. A stream whose text is needed (`onText`) always takes the text path.
 *
 * A protocol session's stdout drops the lines that `streamedPiece` names (D29, issue 33): each
 * holds a piece of text that svc records whole, and a secret written across several of them
 * is in none of them whole for redaction to find.
 */
export class OutputStream {
  readonly #decoder = new OutputDecoder();
  readonly #redactor = new StreamRedactor();
  readonly #onText: ((text: string) => void) | null;
  readonly #streamedPiece: ((line: string) => boolean) | null;
  /** Whether the next text emitted starts a line (a piece of a line is never dropped). */
  #atLineStart = true;
  /**
   * The held partial line as bytes, clean so far; while it is, the decoder and the redactor
   * hold nothing (the redactor holds something only while a literal or a key is in its text).
   */
  #held: Uint8Array = NO_BYTES;

  constructor(
    onText: ((text: string) => void) | null = null,
    options: { streamedPiece?: (line: string) => boolean } = {},
  ) {
    this.#onText = onText;
    this.#streamedPiece = options.streamedPiece ?? null;
  }

  /** Adds a read (which the caller may reuse) and returns the pieces no later read can change. */
  push(bytes: Uint8Array): OutputPiece[] {
    if (this.#onText !== null || this.#redactor.pending() > 0) {
      return this.#release(this.#pushText(bytes));
    }
    // A new array: the caller reuses `bytes` for its next read.
    const all = concatBytes(this.#held, bytes);
    const clean = this.#cleanPieces(all);
    if (clean !== null) return clean;
    this.#held = NO_BYTES;
    return this.#release(this.#pushText(all));
  }

  /** Characters or bytes held back, waiting for the rest of their line. */
  pending(): number {
    return this.#held.length + this.#redactor.pending();
  }

  /** Emits the held partial line now (see `StreamRedactor.flushPartial()`). */
  flushPartial(options: { holdLastWords?: number } = {}): OutputPiece[] {
    const text = this.#takeHeldText() + this.#redactor.flushPartial(options);
    return this.#release(text);
  }

  /** Returns everything still held at the end of the stream. */
  flush(): OutputPiece[] {
    const text = this.#takeHeldText();
    const rest = this.#decoder.flush();
    if (rest !== "") this.#onText?.(rest);
    const last = text + this.#redactor.push(rest) + this.#redactor.flush();
    return splitForEvents(this.#withoutStreamedPieces(last, true));
  }

  /** The clean path: pieces of `all` up to a safe cut, or null when it needs the text path. */
  #cleanPieces(all: Uint8Array): Uint8Array[] | null {
    const latin1 = Buffer.from(all.buffer, all.byteOffset, all.length).toString("latin1");
    if (hasLiteral(latin1)) return null;
    const cut = cleanCut(all);
    const ready = all.subarray(0, cut);
    if (!isUtf8(ready)) return null;
    // A copy, not a view: a quiet stream holding its prompt keeps bytes, not the whole read.
    this.#held = all.slice(cut);
    return splitBytesForEvents(ready);
  }

  /** Decodes and redacts; returns the text ready to emit. */
  #pushText(bytes: Uint8Array): string {
    const text = this.#decoder.push(bytes);
    this.#onText?.(text);
    return this.#redactor.push(text);
  }

  /** The held bytes through the text path (for a flush). */
  #takeHeldText(): string {
    if (this.#held.length === 0) return "";
    const held = this.#held;
    this.#held = NO_BYTES;
    return this.#pushText(held);
  }

  /** Cuts `text` into pieces and takes the held text back as bytes when it is clean. */
  #release(text: string): OutputPiece[] {
    if (this.#onText === null) {
      const held = this.#redactor.release();
      if (held !== null) {
        this.#held = concatBytes(encoder.encode(held), this.#decoder.takeHeld() ?? NO_BYTES);
      }
    }
    return splitForEvents(this.#withoutStreamedPieces(text));
  }

  /**
   * `text` without the whole lines in it that are streamed pieces (see the class); at the end
   * of the stream, its last line needs no newline to be whole.
   */
  #withoutStreamedPieces(text: string, atEnd = false): string {
    const streamedPiece = this.#streamedPiece;
    if (streamedPiece === null || text === "") return text;
    let kept = "";
    let start = 0;
    for (let end = text.indexOf("\n"); end >= 0; end = text.indexOf("\n", start)) {
      if (!this.#atLineStart || !streamedPiece(text.slice(start, end))) {
        kept += text.slice(start, end + 1);
      }
      this.#atLineStart = true;
      start = end + 1;
    }
    const rest = text.slice(start);
    if (rest === "") return kept;
    const whole = atEnd && this.#atLineStart;
    this.#atLineStart = false;
    return whole && streamedPiece(rest) ? kept : kept + rest;
  }
}
