/** UTF-8 decoding of a child's output stream and cutting of the text into `output` events (D8). */

/** Largest `data` of one `output` event, in UTF-8 bytes. */
export const MAX_OUTPUT_EVENT_BYTES = 65536;

/** A newline this far into the window (as a share of it) is preferred as the cut. */
const NEWLINE_CUT_SHARE = 0.75;

/**
 * Decodes one byte stream: a character split across reads is joined, invalid bytes become
 * U+FFFD and never throw. A byte order mark is kept as output, not stripped.
 */
export class OutputDecoder {
  #decoder = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });

  /** Decodes a read, holding back the bytes of a character that is not complete yet. */
  push(bytes: Uint8Array): string {
    return this.#decoder.decode(bytes, { stream: true });
  }

  /** Ends the stream: an incomplete character left over becomes U+FFFD. */
  flush(): string {
    return this.#decoder.decode();
  }
}

function utf8Bytes(codePoint: number): number {
  if (codePoint < 0x80) return 1;
  if (codePoint < 0x800) return 2;
  // A lone surrogate is encoded as U+FFFD: three bytes too.
  return codePoint < 0x10000 ? 3 : 4;
}

/**
 * Cuts `text` into pieces of at most `maxBytes` UTF-8 bytes each, never inside a character
 * (surrogate pairs included), after a newline when one is in the last quarter of the window.
 * Joining the pieces gives `text` back; empty text gives no pieces.
 */
export function splitForEvents(text: string, maxBytes = MAX_OUTPUT_EVENT_BYTES): string[] {
  if (!Number.isInteger(maxBytes) || maxBytes < 4) {
    throw new RangeError(
      `Cannot split output: maxBytes "${maxBytes}" is not an integer of at least 4`,
    );
  }
  const pieces: string[] = [];
  let start = 0;
  let bytes = 0;
  let newlineCut = -1;
  let bytesBeforeNewlineCut = 0;
  for (let index = 0; index < text.length;) {
    const codePoint = text.codePointAt(index)!;
    const size = utf8Bytes(codePoint);
    if (bytes + size > maxBytes) {
      const atNewline = newlineCut > start && bytesBeforeNewlineCut >= maxBytes * NEWLINE_CUT_SHARE;
      const cut = atNewline ? newlineCut : index;
      pieces.push(text.slice(start, cut));
      start = cut;
      bytes = atNewline ? bytes - bytesBeforeNewlineCut : 0;
      newlineCut = -1;
      continue;
    }
    bytes += size;
    index += codePoint > 0xffff ? 2 : 1;
    if (codePoint === 0x0a) {
      newlineCut = index;
      bytesBeforeNewlineCut = bytes;
    }
  }
  if (start < text.length) pieces.push(text.slice(start));
  return pieces;
}
