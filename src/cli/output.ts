import type { ClientResponse } from "../client/client.ts";
import { EXIT, type Io } from "./command.ts";
import { terminalSafe } from "./terminal_text.ts";

/**
 * Prints a daemon answer: raw JSON with `--json`, else `human(body)` made
 * terminal-safe (terminal_text.ts), so no field of the answer can reach the
 * terminal as a control. An error envelope goes to stderr as
 * `error_code: message` and exits 1.
 */
export function printResponse<T>(
  io: Io,
  response: ClientResponse<T>,
  json: boolean | undefined,
  human: (body: T) => string,
): number {
  if (json) {
    (response.ok ? io.out : io.err)(JSON.stringify(response.body, null, 2));
    return response.ok ? EXIT.ok : EXIT.refused;
  }
  if (!response.ok) {
    io.err(describeError(response.body));
    return EXIT.refused;
  }
  io.out(terminalSafe(human(response.body), { keepTabs: true }));
  return EXIT.ok;
}

/**
 * `code: message (field "x")` from an error envelope, or the raw body;
 * terminal-safe, since the daemon's messages quote what they were sent.
 */
export function describeError(body: unknown): string {
  return terminalSafe(errorText(body), { keepTabs: true });
}

function errorText(body: unknown): string {
  const error = (body as { error?: { code?: string; message?: string; details?: unknown } })
    ?.error;
  if (!error?.code) return `svc answered: ${JSON.stringify(body)}`;
  const details = error.details as { field?: string } | undefined;
  const field = details?.field ? ` (field "${details.field}")` : "";
  return `${error.code}: ${error.message}${field}`;
}

/**
 * A plain aligned text table. Each cell (headers too: one may name what the
 * daemon said) is put on one line and made terminal-safe before the widths
 * are measured, so no cell can break a row or the terminal.
 */
export function table(headers: string[], rows: string[][]): string {
  const [safeHeaders, ...safeRows] = [headers, ...rows].map((row) =>
    row.map((cell) => terminalSafe(oneLine(cell)))
  );
  const widths = safeHeaders.map((header, i) =>
    Math.max(header.length, ...safeRows.map((row) => (row[i] ?? "").length))
  );
  const line = (cells: string[]) =>
    cells.map((cell, i) => i === cells.length - 1 ? cell : cell.padEnd(widths[i])).join("  ");
  return [line(safeHeaders), ...safeRows.map(line)].join("\n");
}

/** Text on one line: runs of white space (newlines included) become one space. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, " ");
}
