/**
 * Markdown as the terminal shows it (issue 38 item 14): a pipe table becomes
 * aligned columns (no pipes, no delimiter row, a header of empty cells left
 * out), its cells' code spans unwrapped and its instants printed as every
 * command prints times; every cell is made terminal-safe by `alignedRows`.
 * Everything else, fenced code included, is left as it is.
 */
import { alignedRows, timeText } from "./output.ts";

/** A table's delimiter row: `|---|:--:|`. */
const DELIMITER_ROW = /^\|(\s*:?-+:?\s*\|)+\s*$/;
/** A cell that is one instant, as svc writes them. */
const INSTANT = /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)$/;

/** `markdown` with its tables rendered for the terminal; times in UTC when `utc`. */
export function markdownForTerminal(markdown: string, utc: boolean | undefined): string {
  const lines = markdown.split("\n");
  const out: string[] = [];
  let fenced = false;
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index];
    if (line.trimStart().startsWith("```")) fenced = !fenced;
    if (fenced || !isRow(line) || !DELIMITER_ROW.test(lines[index + 1] ?? "")) {
      out.push(line);
      continue;
    }
    const header = cellsOf(line);
    let end = index + 2;
    while (end < lines.length && isRow(lines[end])) end++;
    const body = lines.slice(index + 2, end).map(cellsOf);
    const rows = header.every((cell) => cell === "") ? body : [header, ...body];
    out.push(alignedRows(rows.map((row) => row.map((cell) => cellText(cell, utc)))));
    index = end - 1;
  }
  return out.join("\n");
}

function isRow(line: string): boolean {
  return line.trimStart().startsWith("|");
}

/** A row's cells, split on the pipes that are not escaped (`\|`), trimmed and unescaped. */
function cellsOf(line: string): string[] {
  const inner = line.trim().replace(/^\|/, "").replace(/(?<!\\)\|$/, "");
  return inner.split(/(?<!\\)\|/).map((cell) => cell.trim().replaceAll("\\|", "|"));
}

function cellText(cell: string, utc: boolean | undefined): string {
  if (INSTANT.test(cell)) return timeText(cell, utc);
  return cell.replace(/`([^`]*)`/g, "$1");
}
