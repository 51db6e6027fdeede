/**
 * The session view's window onto a conversation (D25): the rows on screen,
 * word-wrapped to the terminal's width, and where the user has scrolled to.
 * Face-free (no Ink, no React): the terminal face and a web face read the
 * same rows.
 *
 * The work is bounded by the window, not by the conversation: a line is cut
 * into chunks of at most `CHUNK_CHARS` code units, each chunk is wrapped once
 * per width (cached by the line's identity, so a clock tick or a key wraps
 * nothing again), and only the chunks the window reaches are wrapped. A
 * 300k-character line costs what a screen of it costs.
 */
import stringWidth from "string-width";
import type { FocusLine, Tone } from "./focus.ts";

/** A line is wrapped in pieces of at most this many code units (each starts a row). */
export const CHUNK_CHARS = 8192;
/** A chunk ends after a space found this far back from its nominal end, so no word is cut. */
const SPACE_LOOKBACK = 256;
const TAB_STOP = 8;
const TRAILING_SPACES = / +$/;
const graphemes = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/** How many terminal columns a grapheme takes. */
export type Measure = (grapheme: string) => number;

/** One row on screen: at most `width` columns (tabs expanded), in its line's tone. */
export interface WindowRow {
  /** Stable while the row shows the same place of the conversation. */
  readonly key: string;
  readonly text: string;
  readonly tone: Tone;
}

/**
 * Where the user scrolled to: null follows the newest row; otherwise the row
 * at the window's bottom, by its line's identity, so the window holds still
 * while lines arrive below it.
 */
export type TranscriptScroll = {
  readonly line: FocusLine;
  readonly chunk: number;
  readonly row: number;
} | null;

/** The window's size in terminal cells. */
export interface WindowSize {
  width: number;
  height: number;
}

/** A row of the conversation: the line's index, the chunk of the line, the row of the chunk. */
interface Cursor {
  index: number;
  chunk: number;
  row: number;
}

/** The rows of one line at one width, chunk by chunk, filled as the window reaches them. */
interface Wrapped {
  width: number;
  chunks: Array<string[] | undefined>;
}

export class TranscriptWindow {
  readonly #measure: Measure;
  readonly #wrapped = new WeakMap<FocusLine, Wrapped>();

  /** `measure` defaults to string-width (tests pass one that counts what it measured). */
  constructor(measure: Measure = stringWidth) {
    this.#measure = measure;
  }

  /**
   * The rows on screen for `scroll` (at most `height`), and how many lines
   * have some part below the window (0 while following). When the scrolled
   * line is gone (the oldest lines are dropped), the window shows the top.
   */
  rows(
    lines: readonly FocusLine[],
    view: WindowSize & { scroll: TranscriptScroll },
  ): { rows: WindowRow[]; linesBelow: number } {
    if (lines.length === 0) return { rows: [], linesBelow: 0 };
    const height = Math.max(1, view.height);
    const top = this.#up(lines, this.#bottom(lines, view), height - 1, view.width).cursor;
    const rows: WindowRow[] = [];
    let cursor = top;
    for (;;) {
      const line = lines[cursor.index];
      rows.push({
        key: `${cursor.index}:${cursor.chunk}:${cursor.row}`,
        text: this.#rowsOf(line, cursor.chunk, view.width)[cursor.row],
        tone: line.tone,
      });
      if (rows.length === height) break;
      const next = this.#down(lines, cursor, 1, view.width);
      if (next.moved === 0) break;
      cursor = next.cursor;
    }
    const lastOfLine = cursor.chunk === chunkCount(lines[cursor.index]) - 1 &&
      cursor.row === this.#rowsOf(lines[cursor.index], cursor.chunk, view.width).length - 1;
    return { rows, linesBelow: lines.length - 1 - cursor.index + (lastOfLine ? 0 : 1) };
  }

  /**
   * `scroll` moved by `by` rows (negative: toward the oldest), kept where a
   * full window fits; null once it reaches the newest row (following again).
   */
  scrollBy(
    lines: readonly FocusLine[],
    view: WindowSize & { scroll: TranscriptScroll; by: number },
  ): TranscriptScroll {
    if (lines.length === 0) return null;
    const bottom = this.#bottom(lines, view);
    if (view.by >= 0) {
      return this.#anchor(lines, this.#down(lines, bottom, view.by, view.width).cursor, view.width);
    }
    const moved = this.#up(lines, bottom, -view.by, view.width).cursor;
    const above = this.#up(lines, moved, Math.max(0, view.height - 1), view.width);
    return above.moved < view.height - 1
      ? this.top(lines, view)
      : this.#anchor(lines, moved, view.width);
  }

  /** The scroll that shows the oldest rows (null when the whole conversation fits). */
  top(lines: readonly FocusLine[], view: WindowSize): TranscriptScroll {
    if (lines.length === 0) return null;
    const first = { index: 0, chunk: 0, row: 0 };
    const bottom = this.#down(lines, first, Math.max(0, view.height - 1), view.width).cursor;
    return this.#anchor(lines, bottom, view.width);
  }

  /** Every row of `line` at `width`: for text shown whole (a pending request), not windowed. */
  wrap(line: FocusLine, width: number): string[] {
    const rows: string[] = [];
    for (let chunk = 0; chunk < chunkCount(line); chunk++) {
      rows.push(...this.#rowsOf(line, chunk, width));
    }
    return rows;
  }

  /**
   * The end of `text` that fits in `width` columns (the live partial line,
   * D29, shows its newest words); measures no more than that end.
   */
  tail(text: string, width: number): string {
    // A grapheme rarely takes more than 8 code units per column (emoji sequences).
    let start = Math.max(0, text.length - Math.max(1, width) * 8);
    if (isLowSurrogate(text.charCodeAt(start))) start++;
    const pieces = [...graphemes.segment(text.slice(start))];
    let used = 0;
    let from = pieces.length;
    while (from > 0) {
      const cells = this.#cells(pieces[from - 1].segment);
      if (used + cells > width) break;
      used += cells;
      from--;
    }
    return pieces.slice(from).map((piece) => piece.segment).join("");
  }

  /** The window's bottom row for `scroll`: the newest row, the anchored one, or the top window's. */
  #bottom(lines: readonly FocusLine[], view: WindowSize & { scroll: TranscriptScroll }): Cursor {
    const { scroll } = view;
    if (scroll === null) return this.#last(lines, view.width);
    const index = lines.lastIndexOf(scroll.line);
    if (index < 0) {
      const first = { index: 0, chunk: 0, row: 0 };
      return this.#down(lines, first, Math.max(0, view.height - 1), view.width).cursor;
    }
    const chunk = Math.min(scroll.chunk, chunkCount(scroll.line) - 1);
    const rows = this.#rowsOf(scroll.line, chunk, view.width).length;
    return { index, chunk, row: Math.min(scroll.row, rows - 1) };
  }

  #last(lines: readonly FocusLine[], width: number): Cursor {
    const index = lines.length - 1;
    const chunk = chunkCount(lines[index]) - 1;
    return { index, chunk, row: this.#rowsOf(lines[index], chunk, width).length - 1 };
  }

  /** A cursor as a scroll: null at the newest row. */
  #anchor(lines: readonly FocusLine[], cursor: Cursor, width: number): TranscriptScroll {
    const last = this.#last(lines, width);
    const { index, chunk, row } = cursor;
    if (index === last.index && chunk === last.chunk && row === last.row) return null;
    return { line: lines[index], chunk, row };
  }

  /** `count` rows up from `from`, stopping at the oldest row. */
  #up(lines: readonly FocusLine[], from: Cursor, count: number, width: number) {
    let { index, chunk, row } = from;
    let left = count;
    while (left > 0) {
      if (row >= left) {
        row -= left;
        left = 0;
        break;
      }
      if (chunk === 0 && index === 0) {
        left -= row;
        row = 0;
        break;
      }
      left -= row + 1;
      if (chunk > 0) chunk--;
      else chunk = chunkCount(lines[--index]) - 1;
      row = this.#rowsOf(lines[index], chunk, width).length - 1;
    }
    return { cursor: { index, chunk, row }, moved: count - left };
  }

  /** `count` rows down from `from`, stopping at the newest row. */
  #down(lines: readonly FocusLine[], from: Cursor, count: number, width: number) {
    let { index, chunk, row } = from;
    let left = count;
    while (left > 0) {
      const rows = this.#rowsOf(lines[index], chunk, width).length;
      if (row + left < rows) {
        row += left;
        left = 0;
        break;
      }
      const lastChunk = chunk === chunkCount(lines[index]) - 1;
      if (lastChunk && index === lines.length - 1) {
        left -= rows - 1 - row;
        row = rows - 1;
        break;
      }
      left -= rows - row;
      if (lastChunk) {
        index++;
        chunk = 0;
      } else chunk++;
      row = 0;
    }
    return { cursor: { index, chunk, row }, moved: count - left };
  }

  /** The rows of one chunk of `line` at `width`, wrapped on first use. */
  #rowsOf(line: FocusLine, chunk: number, width: number): string[] {
    let wrapped = this.#wrapped.get(line);
    if (wrapped === undefined || wrapped.width !== width) {
      wrapped = { width, chunks: [] };
      this.#wrapped.set(line, wrapped);
    }
    const [start, end] = chunkBounds(line.text, chunk);
    return wrapped.chunks[chunk] ??= this.#wrap(line.text, start, end, Math.max(1, width));
  }

  /** Columns of a grapheme; printable ASCII is one column without asking `measure`. */
  #cells(grapheme: string): number {
    const code = grapheme.charCodeAt(0);
    if (grapheme.length === 1 && code >= 0x20 && code < 0x7f) return 1;
    return this.#measure(grapheme);
  }

  /**
   * `text[start, end)` word-wrapped into rows of at most `width` columns: a
   * row ends after its last space or tab (not shown), a word longer than a row
   * is cut, tabs become spaces to the next stop.
   */
  #wrap(text: string, start: number, end: number, width: number): string[] {
    const rows: string[] = [];
    let rowStart = start;
    let column = 0;
    let breakAt = -1;
    let breakColumn = 0;
    let tabs: Array<{ at: number; spaces: number }> = [];
    const emit = (rowEnd: number, next: number) => {
      let row = "";
      let from = rowStart;
      for (const tab of tabs) {
        row += text.slice(from, tab.at) + " ".repeat(tab.spaces);
        from = tab.at + 1;
      }
      rows.push((row + text.slice(from, rowEnd)).replace(TRAILING_SPACES, ""));
      tabs = [];
      rowStart = next;
      breakAt = -1;
    };
    const place = (at: number, next: number, cells: number) => {
      const code = text.charCodeAt(at);
      const blank = code === 0x20 || code === 0x09;
      if (code === 0x09) cells = TAB_STOP - column % TAB_STOP;
      while (column > 0 && column + cells > width) {
        if (blank) {
          emit(at, next);
          column = 0;
          return;
        }
        if (breakAt > rowStart) {
          column -= breakColumn;
          emit(breakAt, breakAt);
        } else {
          emit(at, at);
          column = 0;
        }
      }
      if (code === 0x09) tabs.push({ at, spaces: cells });
      column += cells;
      if (blank) {
        breakAt = next;
        breakColumn = column;
      }
    };
    let at = start;
    while (at < end) {
      const code = text.charCodeAt(at);
      if ((code >= 0x20 && code < 0x7f) || code === 0x09) {
        place(at, at + 1, 1);
        at++;
        continue;
      }
      // A run of other characters, measured grapheme by grapheme.
      let runEnd = at + 1;
      while (runEnd < end && !isAsciiOrTab(text.charCodeAt(runEnd))) runEnd++;
      for (const piece of graphemes.segment(text.slice(at, runEnd))) {
        const from = at + piece.index;
        place(from, from + piece.segment.length, this.#measure(piece.segment));
      }
      at = runEnd;
    }
    if (rowStart < end || rows.length === 0) emit(end, end);
    return rows;
  }
}

function chunkCount(line: FocusLine): number {
  return Math.max(1, Math.ceil(line.text.length / CHUNK_CHARS));
}

/** Where chunk `chunk` of `text` starts and ends; each bound depends on its own place only. */
function chunkBounds(text: string, chunk: number): [number, number] {
  const bound = (nominal: number) => {
    if (nominal <= 0) return 0;
    if (nominal >= text.length) return text.length;
    const from = nominal - SPACE_LOOKBACK;
    const space = text.slice(from, nominal).lastIndexOf(" ");
    if (space >= 0) return from + space + 1;
    return isLowSurrogate(text.charCodeAt(nominal)) ? nominal - 1 : nominal;
  };
  return [bound(chunk * CHUNK_CHARS), bound((chunk + 1) * CHUNK_CHARS)];
}

function isAsciiOrTab(code: number): boolean {
  return (code >= 0x20 && code < 0x7f) || code === 0x09;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
