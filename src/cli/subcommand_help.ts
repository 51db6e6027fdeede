/**
 * `svc COMMAND SUB --help`: the part of a command's usage text that is about
 * SUB (its line in the `Subcommands:` section with the lines indented under
 * it), then what the usage says after that section (options every
 * subcommand takes), so each subcommand's help is its own.
 */

/** The help of subcommand `name` read from `usage`, or null when `usage` lists no such subcommand. */
export function subcommandUsage(commandName: string, usage: string, name: string): string | null {
  const lines = usage.split("\n");
  const start = lines.findIndex((line) => line.trim() === "Subcommands:");
  if (start < 0) return null;
  let end = start + 1;
  while (end < lines.length && lines[end].trim() !== "") end++;
  const section = lines.slice(start + 1, end);
  const entryStart = section.findIndex((line) => /^ {2}\S/.test(line) && firstWord(line) === name);
  if (entryStart < 0) return null;
  let entryEnd = entryStart + 1;
  while (entryEnd < section.length && /^ {3}/.test(section[entryEnd])) entryEnd++;
  const [first, ...rest] = section.slice(entryStart, entryEnd).map((line) => line.slice(2));
  const trailer = lines.slice(end).join("\n").trim();
  return [
    `Usage: svc ${commandName} ${first}`,
    ...rest,
    ...(trailer === "" ? [] : ["", trailer]),
  ].join("\n");
}

function firstWord(line: string): string {
  return line.trim().split(/\s+/)[0];
}
