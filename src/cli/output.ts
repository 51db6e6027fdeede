import type { ClientResponse } from "../client/client.ts";
import { EXIT, type Io } from "./command.ts";

/**
 * Prints a daemon answer: raw JSON with `--json`, else `human(body)`. An
 * error envelope goes to stderr as `error_code: message` and exits 1.
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
  io.out(human(response.body));
  return EXIT.ok;
}

/** `code: message (field "x")` from an error envelope, or the raw body. */
export function describeError(body: unknown): string {
  const error = (body as { error?: { code?: string; message?: string; details?: unknown } })
    ?.error;
  if (!error?.code) return `svc answered: ${JSON.stringify(body)}`;
  const details = error.details as { field?: string } | undefined;
  const field = details?.field ? ` (field "${details.field}")` : "";
  return `${error.code}: ${error.message}${field}`;
}

/** A plain aligned text table. */
export function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((header, i) =>
    Math.max(header.length, ...rows.map((row) => (row[i] ?? "").length))
  );
  const line = (cells: string[]) =>
    cells.map((cell, i) => i === cells.length - 1 ? cell : cell.padEnd(widths[i])).join("  ");
  return [line(headers), ...rows.map(line)].join("\n");
}

/** Text on one line: runs of white space (newlines included) become one space. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, " ");
}
