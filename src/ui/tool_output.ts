/**
 * A tool call's whole output in the session view (issue 38 item 2): the
 * transcript shows its first line (`→ first line (+12 lines)`); `o` shows
 * every line under it, and hides them again. Pure: the focus store keeps
 * the lines, this decides what they become.
 */
import { terminalSafe } from "../cli/terminal_text.ts";
import type { FocusLine } from "./focus.ts";
import type { TranscriptScroll } from "./transcript_window.ts";

/** What the transcript's summary of an output shows of one line (`toolSummary`'s cut). */
const SUMMARY_CHARS = 100;

/** Indented under the summary's `→`. */
const DETAIL_INDENT = "      ";

/** The hint after a summary that hides part of its output. */
export const EXPAND_HINT = " · o shows all";

/**
 * The whole of `output` as dim lines, or undefined when the summary already
 * shows all of it (one line, not cut).
 */
export function outputDetail(output: unknown): readonly FocusLine[] | undefined {
  if (typeof output !== "string" || output.trim() === "") return undefined;
  const lines = output.trim().split("\n");
  if (lines.length === 1 && [...lines[0]].length <= SUMMARY_CHARS) return undefined;
  return lines.map((line) => ({
    text: DETAIL_INDENT + terminalSafe(line, { keepTabs: true }),
    tone: "dim" as const,
  }));
}

/**
 * `o`: the tool call nearest above the window's bottom (its summary line,
 * or one of its output lines) shown whole, or back to its summary. Returns
 * the lines and where the window stays, or null when no output is there.
 */
export function toggleOutput(
  lines: readonly FocusLine[],
  scroll: TranscriptScroll,
): { lines: FocusLine[]; scroll: TranscriptScroll } | null {
  const bottom = scroll === null ? lines.length - 1 : lines.lastIndexOf(scroll.line);
  for (let at = bottom; at >= 0; at--) {
    const detail = lines[at].detail;
    if (detail === undefined) continue;
    const shown = lines[at + 1] === detail[0];
    const next = [...lines];
    if (!shown) {
      next.splice(at + 1, 0, ...detail);
      return { lines: next, scroll };
    }
    next.splice(at + 1, detail.length);
    // Scrolled back inside the output: the window stays on its summary.
    const inside = scroll !== null && detail.includes(scroll.line);
    return { lines: next, scroll: inside ? { line: lines[at], chunk: 0, row: 0 } : scroll };
  }
  return null;
}
