/**
 * Scrolling a paged text (a worktree diff, a routine's result) by the
 * keymap's commands: a line, a page, the top or the last page; never past
 * its first or last line. Face-free, so a web face scrolls it the same way.
 */
import type { Command } from "./keymap.ts";

/** What a pager shows: a heading, the lines (terminal-safe), and the first line on screen. */
export interface Paged {
  title: string;
  lines: readonly string[];
  scroll: number;
}

/** The first line shown after `command`, or null when `command` does not scroll. */
export function pagedScroll(
  scroll: number,
  command: Command,
  text: { lines: number; page: number },
): number | null {
  const last = Math.max(0, text.lines - 1);
  const to = (line: number) => Math.max(0, Math.min(last, line));
  switch (command) {
    case "up":
      return to(scroll - 1);
    case "down":
      return to(scroll + 1);
    case "page-up":
      return to(scroll - text.page);
    case "page-down":
      return to(scroll + text.page);
    case "top":
      return 0;
    case "bottom":
      return to(text.lines - text.page);
    default:
      return null;
  }
}
