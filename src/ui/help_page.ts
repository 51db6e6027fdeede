/**
 * The `?` overlay laid out on a terminal (issue 38 item 8): every key of
 * `helpSections`, in as many columns as the width holds, a page at a time
 * when they do not all fit (80×24 holds about half). Face-free; a web face
 * shows the same sections as one long page.
 */
import { type HelpEntry, helpSections, type View } from "./keymap.ts";

/** Columns of the overlay: 8 for the keys, the help text, a gap. */
export const HELP_COLUMN_WIDTH = 38;
/** The overlay's frame, its title and its page line take this many rows. */
const FRAME_ROWS = 4;

/** One row of a help column: a section's title, a key, or a blank between sections. */
export type HelpRow =
  | { kind: "title"; text: string }
  | ({ kind: "key" } & HelpEntry)
  | { kind: "gap" };

/** A page of the help: its columns, which page it is and how many there are. */
export interface HelpPage {
  columns: HelpRow[][];
  page: number;
  pages: number;
}

/** Page `page` (clamped) of `view`'s help in `width`×`height` cells. */
export function helpPage(view: View, size: { width: number; height: number; page: number }) {
  const rows: HelpRow[] = [];
  for (const section of helpSections(view)) {
    if (rows.length > 0) rows.push({ kind: "gap" });
    rows.push({ kind: "title", text: section.title });
    rows.push(...section.entries.map((entry) => ({ kind: "key" as const, ...entry })));
  }
  const perColumn = Math.max(1, size.height - FRAME_ROWS);
  const columnsPerPage = Math.max(1, Math.floor((size.width - 4) / HELP_COLUMN_WIDTH));
  const columns: HelpRow[][] = [];
  for (let at = 0; at < rows.length; at += perColumn) {
    const column = rows.slice(at, at + perColumn);
    // A column does not start with the blank between two sections.
    columns.push(column[0]?.kind === "gap" ? column.slice(1) : column);
  }
  const pages = Math.ceil(columns.length / columnsPerPage);
  const page = Math.max(0, Math.min(pages - 1, size.page));
  return {
    columns: columns.slice(page * columnsPerPage, (page + 1) * columnsPerPage),
    page,
    pages,
  } satisfies HelpPage;
}
