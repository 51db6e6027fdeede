/** `key: value` lines, the CLI's plain way to show a record (and `svc ui`'s, D25). */

/** A record as `key: value` lines (as `svc automations get` prints a routine): objects as JSON. */
export function keyValues(record: Readonly<Record<string, unknown>>): string {
  return alignedLines(
    Object.entries(record).map(([key, value]) => [
      key,
      value === null || value === undefined
        ? "-"
        : typeof value === "object"
        ? JSON.stringify(value)
        : String(value),
    ]),
  );
}

/** `key: value` lines with the values aligned; continuation lines are indented. */
export function alignedLines(entries: Array<[string, string]>): string {
  const width = Math.max(...entries.map(([key]) => key.length)) + 1;
  return entries
    .map(([key, value]) =>
      `${`${key}:`.padEnd(width)} ${value.replaceAll("\n", `\n${" ".repeat(width + 1)}`)}`
    )
    .join("\n");
}
