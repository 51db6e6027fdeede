/**
 * A pending request as the views that answer it show it (issue 38 item 1):
 * all of it, wrapped, every character that could hide part of it drawn as
 * an escape, and the keys after it. One longer than its room is read a page
 * at a time (`v`), and `y` and `a` are offered only once its last row has
 * been on screen: nobody allows what they could not see. Face-free.
 */
import { terminalSafe } from "../cli/terminal_text.ts";
import { profileText } from "../policy/profile_text.ts";
import { countdown } from "./format.ts";
import type { FocusLine } from "./focus.ts";
import type { PendingApproval } from "./model.ts";
import type { TranscriptWindow } from "./transcript_window.ts";

/**
 * Characters a terminal draws as nothing or as a plain space (format
 * characters such as zero-width spaces and joiners, spaces other than the
 * ASCII one, line and paragraph separators, Hangul fillers, variation
 * selectors); the bidi controls among them are already escaped by
 * `terminalSafe`.
 */
const INVISIBLE =
  /[\p{Cf}\p{Zs}\p{Zl}\p{Zp}\u034f\u115f\u1160\u180b-\u180d\u3164\ufe00-\ufe0f\uffa0]/gu;

/** `text` as `terminalSafe` shows it, and every invisible character but the space as `<U+XXXX>`. */
export function revealed(text: string): string {
  return terminalSafe(text).replace(INVISIBLE, (char) => {
    if (char === " ") return char;
    const code = char.codePointAt(0) ?? 0;
    return `<U+${code.toString(16).toUpperCase().padStart(4, "0")}>`;
  });
}

/** What a request panel shows now. */
export interface RequestPanel {
  /** Which request (the page read so far belongs to it). */
  readonly key: string;
  /** Its rows on screen. */
  readonly rows: readonly string[];
  /** The first row on screen, and how many rows the request has. */
  readonly from: number;
  readonly total: number;
  /** Its last row is on screen, and every row before it was: `y` and `a` are offered. */
  readonly whole: boolean;
  /** The line after the request: its keys, or how to read the rest. */
  readonly keys: string;
}

/** Where the user has read a request to (`v`); another request starts at its top. */
export type RequestReading = { readonly key: string; readonly from: number } | null;

/** The lines of each request, made once per request object (rows are cached by line). */
const linesOf = new WeakMap<PendingApproval, FocusLine[]>();

/**
 * The panel of `approval` in `room` rows of `width` columns, read to
 * `reading`. The summary names its tool already (`Bash: npm test`); a
 * summary that does not gets the tool in front.
 */
export function requestPanel(
  approval: PendingApproval,
  view: {
    width: number;
    room: number;
    reading: RequestReading;
    window: TranscriptWindow;
    nowMs: number;
  },
): RequestPanel {
  let lines = linesOf.get(approval);
  if (lines === undefined) {
    const { tool, summary } = approval;
    const named = summary === tool || summary.startsWith(`${tool}:`)
      ? summary
      : `${tool}: ${summary}`;
    // A permissions request's grant is part of what `y` allows (issue 33).
    const grants = approval.profile ? `\nallowing grants: ${profileText(approval.profile)}` : "";
    lines = revealed(`? ${named}${grants}`).split("\n").map((text) => ({
      text,
      tone: "plain" as const,
    }));
    linesOf.set(approval, lines);
  }
  const rows = lines.flatMap((line) => view.window.wrap(line, Math.max(1, view.width)));
  const key = `${approval.sessionId}\n${approval.requestId}`;
  const room = Math.max(1, view.room);
  const read = view.reading?.key === key ? view.reading.from : 0;
  const from = Math.max(0, Math.min(read, rows.length - room));
  const whole = from + room >= rows.length;
  const left = `${countdown(Date.parse(approval.expiresAt), view.nowMs)} left`;
  const shown = `rows ${from + 1}–${Math.min(rows.length, from + room)} of ${rows.length}`;
  return {
    key,
    rows: rows.slice(from, from + room),
    from,
    total: rows.length,
    whole,
    keys: whole
      ? `y allow · n deny · a always · ${left}`
      : `v more (${shown}) · y and a after the end · n deny · ${left}`,
  };
}

/** The reading after `v`: the next page, never past the end (so `whole` stays earned). */
export function readOn(panel: RequestPanel): RequestReading {
  const room = panel.rows.length;
  return { key: panel.key, from: Math.min(panel.from + room, Math.max(0, panel.total - room)) };
}

/** The least rows the conversation keeps under a request, and the list keeps above one. */
const KEEP_ROWS = 3;

/**
 * How many rows a request may take in a view `height` rows high: the session
 * view keeps its heading, a few lines of the conversation, the partial line
 * and the input line; the approvals view its heading, a few rows of its list
 * and the request's title.
 */
export function requestRoom(
  view: "session" | "approvals",
  layout: { height: number; listed: number; reserved: number },
): number {
  const kept = view === "session"
    ? 2 + KEEP_ROWS + layout.reserved
    : 4 + Math.min(KEEP_ROWS, Math.max(1, layout.listed));
  // One row for the keys after the request.
  return Math.max(1, layout.height - kept - 1);
}

/** The conversation's rows in a session view `height` rows high, under its heading. */
export function conversationRoom(
  height: number,
  below: { request: RequestPanel | null; reserved: number },
): number {
  const request = below.request === null ? 0 : below.request.rows.length + 1;
  return Math.max(1, height - 2 - below.reserved - request);
}
