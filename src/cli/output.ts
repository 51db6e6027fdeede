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
  const details = error.details as
    | { field?: string; fields?: Array<{ field: string; message: string }> }
    | undefined;
  // Every invalid field at once (issue 27 item 6), one per line.
  if (Array.isArray(details?.fields) && details.fields.length > 1) {
    return [
      `${error.code}: ${details.fields.length} invalid fields`,
      ...details.fields.map((problem) => `  ${problem.field}: ${problem.message}`),
    ].join("\n");
  }
  const field = details?.field ? ` (field "${details.field}")` : "";
  return `${error.code}: ${error.message}${field}`;
}

/**
 * A plain aligned text table. Each cell (headers too: one may name what the
 * daemon said) is put on one line and made terminal-safe before the widths
 * are measured, so no cell can break a row or the terminal.
 */
export function table(headers: string[], rows: string[][]): string {
  return alignedRows([headers, ...rows]);
}

/** `table` without a header row: each cell made safe, every column but the last padded. */
export function alignedRows(rows: string[][]): string {
  const safeRows = rows.map((row) => row.map((cell) => terminalSafe(oneLine(cell))));
  const columns = Math.max(0, ...safeRows.map((row) => row.length));
  const widths = Array.from(
    { length: columns },
    (_, i) => Math.max(...safeRows.map((row) => (row[i] ?? "").length)),
  );
  const line = (cells: string[]) =>
    cells.map((cell, i) => i === cells.length - 1 ? cell : cell.padEnd(widths[i])).join("  ");
  return safeRows.map(line).join("\n");
}

/** Text on one line: runs of white space (newlines included) become one space. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, " ");
}

/**
 * Prints a list answer (issue 27 item 10): with `--json` the list itself as
 * a JSON array, whatever envelope the daemon wrapped it in; else as
 * `printResponse` does.
 */
export function printList<T>(
  io: Io,
  response: ClientResponse<T>,
  json: boolean | undefined,
  items: (body: T) => unknown[],
  human: (body: T) => string,
): number {
  if (json && response.ok) {
    io.out(JSON.stringify(items(response.body), null, 2));
    return EXIT.ok;
  }
  return printResponse(io, response, json, human);
}

/** `--utc`, taken by every command that prints times (issue 27 item 10). */
export const TIME_OPTIONS = { utc: { type: "boolean" } } as const;

/**
 * An ISO instant as `YYYY-MM-DD HH:MM TZ` in `timeZone` (default: the local
 * zone), TZ being the zone's short name (`EDT`, `UTC`, `GMT+1`); `-` for
 * null; text that is no instant is returned as it is. Every time a command
 * prints goes through here.
 */
export function localTime(
  iso: string | null,
  timeZone: string = Temporal.Now.timeZoneId(),
): string {
  if (iso === null) return "-";
  let zoned;
  try {
    zoned = Temporal.Instant.from(iso).toZonedDateTimeISO(timeZone);
  } catch {
    return String(iso); // Not an instant: shown as the daemon sent it (made safe by the caller).
  }
  const hhmm = zoned.toPlainTime().toString({ smallestUnit: "minute" });
  const zoneName = new Intl.DateTimeFormat("en-US", { timeZone, timeZoneName: "short" })
    .formatToParts(zoned.epochMilliseconds)
    .find((part) => part.type === "timeZoneName")?.value ?? timeZone;
  return `${zoned.toPlainDate()} ${hhmm} ${zoneName}`;
}

/** `localTime` in the local zone, or in UTC with `--utc`. */
export function timeText(iso: string | null, utc: boolean | undefined): string {
  return utc ? localTime(iso, "UTC") : localTime(iso);
}

/** A cost in USD rounded to 1e-6 (float noise such as 0.30000000000000004 hidden); `-` for null. */
export function costText(usd: number | null | undefined): string {
  if (usd === null || usd === undefined) return "-";
  return `$${Number(usd.toFixed(6))}`;
}
