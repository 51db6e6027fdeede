/**
 * Redaction of text that arrives in pieces (D9): output read by read, input call by call, and an
 * assistant message delta by delta (D29). What is emitted joins into `redactText()` of the whole.
 */

import {
  CUT_LINE_TAIL_CHARS,
  firstLiteralAt,
  hasLiteral,
  KEY_MARKER_CHARS,
  LITERAL_REACH,
  MAX_PRIVATE_KEY_CHARS,
  redacted,
  redactText,
  secretSpans,
  type Span,
} from "./redact.ts";

/** Longest partial line held by a stream redactor before it cuts the line. */
export const MAX_HELD_LINE_CHARS = 8192;

/** Growth of the held text before a failed cut of a long line is tried again. */
const CUT_RETRY_CHARS = 1024;

/** A long line is never cut right after one of these: a secret shape may run across it. */
const TOKEN_CHAR = /[A-Za-z0-9_.~+/=-]/;

/** TOKEN_CHAR by ASCII byte (1 for a token character). */
const TOKEN_BYTES = Uint8Array.from(
  { length: 0x80 },
  (_, byte) => TOKEN_CHAR.test(String.fromCharCode(byte)) ? 1 : 0,
);

/**
 * Where UTF-8 output without a literal (so without a secret) may be cut: after its last
 * newline, or, in a line longer than MAX_HELD_LINE_CHARS bytes, as `StreamRedactor.push()` cuts
 * one: after the last non-token character at least CUT_LINE_TAIL_CHARS bytes before the end,
 * else at the character boundary there. Counted in bytes, the held tail is at least as long in
 * characters as `push()` needs: a secret starting before the cut would hold a literal within
 * LITERAL_REACH characters, in the held tail, which has none.
 */
export function cleanCut(bytes: Uint8Array): number {
  const lineStart = bytes.lastIndexOf(0x0a) + 1;
  if (bytes.length - lineStart <= MAX_HELD_LINE_CHARS) return lineStart;
  const to = bytes.length - CUT_LINE_TAIL_CHARS;
  for (let cut = to; cut > lineStart; cut--) {
    if (isContinuationByte(bytes[cut])) continue; // Not a character boundary.
    const before = bytes[cut - 1];
    if (before >= 0x80 || TOKEN_BYTES[before] === 0) return cut;
  }
  let cut = to;
  while (cut > lineStart && isContinuationByte(bytes[cut])) cut--;
  return cut;
}

function isContinuationByte(byte: number): boolean {
  return (byte & 0xc0) === 0x80;
}

function lineStartBefore(text: string, index: number): number {
  return index <= 0 ? 0 : text.lastIndexOf("\n", index - 1) + 1;
}

/** The last line start at or before `limit` that no secret spans. */
function lineCut(text: string, limit: number, spans: Span[]): number {
  let cut = lineStartBefore(text, limit);
  for (let index = spans.length - 1; index >= 0 && cut > 0; index--) {
    const span = spans[index];
    if (span.start >= cut) continue;
    if (span.end <= cut) break;
    cut = lineStartBefore(text, span.start);
  }
  return cut;
}

function splitsPair(text: string, cut: number): boolean {
  const code = text.charCodeAt(cut - 1);
  return code >= 0xd800 && code <= 0xdbff;
}

/**
 * A cut of a long line in `(from, to]` after a non-token character outside every secret, or
 * null when there is none.
 */
function longLineCut(text: string, from: number, to: number, spans: Span[]): number | null {
  let index = spans.length - 1;
  for (let cut = to; cut > from; cut--) {
    while (index >= 0 && spans[index].start >= cut) index--;
    const inSecret = index >= 0 && spans[index].end > cut;
    if (!inSecret && !TOKEN_CHAR.test(text[cut - 1]) && !splitsPair(text, cut)) return cut;
  }
  return null;
}

/**
 * Where a long line with no safe place is cut anyway, so that memory stays bounded: not inside
 * a secret or a character.
 */
function forcedCut(text: string, from: number, to: number, spans: Span[]): number {
  const around = spans.find((span) => span.start < to && to < span.end);
  if (around !== undefined) return around.start > from ? around.start : around.end;
  return splitsPair(text, to) ? to - 1 : to;
}

/**
 * Where to cut `text` before `limit` so that its last `words` whitespace-separated words stay
 * held (a secret still arriving, with a prefix such as `Bearer` or `NAME=`), holding at most
 * CUT_LINE_TAIL_CHARS.
 */
function wordCut(text: string, limit: number, words: number): number {
  let cut = limit;
  for (let word = 0; word < words; word++) {
    while (cut > 0 && /\s/.test(text[cut - 1])) cut--;
    while (cut > 0 && !/\s/.test(text[cut - 1])) cut--;
  }
  return Math.max(cut, limit - CUT_LINE_TAIL_CHARS);
}

/**
 * Redacts one output stream chunk by chunk. `push()` returns what is safe to emit now and holds
 * the partial last line, so a secret split across reads is still redacted; the concatenation of
 * every `push()` and the final `flush()` equals `redactText()` of the whole stream. A partial
 * line longer than MAX_HELD_LINE_CHARS is cut after a non-token character outside any secret,
 * which keeps that equality; a line with no such place is cut anyway, so memory stays bounded.
 * An open private-key block is held until its END line or MAX_PRIVATE_KEY_CHARS.
 */
export class StreamRedactor {
  #held = "";
  /** Start in `#held` of a private-key block still waiting for its END line. */
  #openKeyAt: number | null = null;
  #nextLongLineCutAt = MAX_HELD_LINE_CHARS + 1;

  /**
   * Adds a chunk and returns the redacted text that no later chunk can change.
   *
   * The held text is scanned once. Cut at a line start or after a non-token character, with no
   * secret across the cut, the part before it has the matches that the whole text has there: a
   * match read past the cut would be a secret across it, and the end of the part can only help
   * `$` (a private-key block, which matches in the whole text too) and a lookahead after a
   * token character. So the spans found give the redacted part; only a forced cut rescans it.
   */
  push(chunk: string): string {
    const heldBefore = this.#held.length;
    this.#held += chunk;
    if (!this.#mayEmit(chunk, heldBefore)) return "";
    const spans = secretSpans(this.#held);
    const openKey = spans.find((span) => span.open);
    const limit = openKey?.start ?? this.#held.length;
    let cut = lineCut(this.#held, limit, spans);
    let spansHold = true;
    if (this.#held.length - cut > MAX_HELD_LINE_CHARS) {
      const to = Math.min(limit, this.#held.length - CUT_LINE_TAIL_CHARS);
      if (to > cut) {
        const safe = longLineCut(this.#held, cut, to, spans);
        if (safe !== null) cut = safe;
        else {
          cut = forcedCut(this.#held, cut, to, spans);
          spansHold = false;
        }
      }
    }
    return this.#emit(cut, openKey, spansHold ? spans : null);
  }

  /** Number of characters held back, waiting for the rest of their line. */
  pending(): number {
    return this.#held.length;
  }

  /**
   * Emits the held partial line now, for interactive output shown on a timer. Trade-off: a
   * secret still arriving is split and may leak in part; an open private-key block stays held.
   */
  flushPartial({ holdLastWords = 0 }: { holdLastWords?: number } = {}): string {
    const spans = secretSpans(this.#held);
    const openKey = spans.find((span) => span.open);
    const limit = openKey?.start ?? this.#held.length;
    const cut = wordCut(this.#held, limit, holdLastWords);
    // Cut at the end, the spans are those of the emitted text itself.
    return this.#emit(cut, openKey, cut === this.#held.length ? spans : null);
  }

  /**
   * Hands over the held partial line when no later text can make it part of a secret: it holds
   * no literal and no private-key block is open. The redactor is then empty, as if new; the
   * caller answers for the text from there (a faster path for output without secrets).
   * Returns null, holding on, otherwise.
   */
  release(): string | null {
    if (this.#openKeyAt !== null || hasLiteral(this.#held)) return null;
    const held = this.#held;
    this.#held = "";
    this.#nextLongLineCutAt = MAX_HELD_LINE_CHARS + 1;
    return held;
  }

  /**
   * Emits what no later chunk can make part of a secret, for text shown as it is written (D29):
   * the held partial line but its last word, and when the line holds a literal, but the text
   * from LITERAL_REACH before the first one (it waits for the end of its line, or `flush()`).
   * No secret starts before the cut, so the emitted text needs no redaction, and the rest is
   * redacted as though the stream started there: the emitted texts still join into
   * `redactText()` of the whole. Nothing while a private-key block is open.
   */
  releaseSettled(): string {
    if (this.#openKeyAt !== null) return "";
    const literalAt = firstLiteralAt(this.#held);
    const limit = literalAt === -1 ? this.#held.length : Math.max(0, literalAt - LITERAL_REACH);
    let cut = limit;
    while (cut > 0 && !/\s/.test(this.#held[cut - 1])) cut--;
    return cut === 0 ? "" : this.#emit(cut, undefined, []);
  }

  /** Returns everything still held, redacted, at the end of the stream. */
  flush(): string {
    const rest = redactText(this.#held);
    this.#held = "";
    this.#openKeyAt = null;
    this.#nextLongLineCutAt = MAX_HELD_LINE_CHARS + 1;
    return rest;
  }

  /** Whether the new chunk can change what is emittable; saves rescanning on every small read. */
  #mayEmit(chunk: string, heldBefore: number): boolean {
    if (this.#openKeyAt === null) {
      return chunk.includes("\n") || this.#held.length >= this.#nextLongLineCutAt;
    }
    const endFrom = Math.max(this.#openKeyAt, heldBefore - KEY_MARKER_CHARS);
    const decidedAt = this.#openKeyAt + MAX_PRIVATE_KEY_CHARS + 2 * KEY_MARKER_CHARS;
    return this.#held.indexOf("-----END", endFrom) !== -1 || this.#held.length >= decidedAt;
  }

  /** Emits the held text up to `cut`, redacted by `spans` when they hold there, else rescanned. */
  #emit(cut: number, openKey: Span | undefined, spans: Span[] | null): string {
    const ready = spans === null
      ? redactText(this.#held.slice(0, cut))
      : redacted(this.#held, cut, spans);
    this.#held = this.#held.slice(cut);
    this.#openKeyAt = openKey === undefined ? null : openKey.start - cut;
    this.#nextLongLineCutAt = this.#held.length > MAX_HELD_LINE_CHARS
      ? this.#held.length + CUT_RETRY_CHARS
      : MAX_HELD_LINE_CHARS + 1;
    return ready;
  }
}
