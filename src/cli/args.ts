import { parseArgs, type ParseArgsConfig } from "node:util";
import { UsageError } from "./command.ts";

type Options = NonNullable<ParseArgsConfig["options"]>;

/**
 * `node:util` parseArgs in strict mode: unknown flags and missing values are
 * a `UsageError`, never ignored.
 */
export function parseCommandArgs<const O extends Options>(
  args: string[],
  options: O,
  { positionals = 0 }: { positionals?: number } = {},
) {
  let parsed;
  try {
    parsed = parseArgs({ args, options, strict: true, allowPositionals: positionals > 0 });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (parsed.positionals.length > positionals) {
    throw new UsageError(`Unexpected argument "${parsed.positionals[positionals]}"`);
  }
  return parsed;
}

/** `--home` and `--json`, shared by the client commands. */
export const CLIENT_OPTIONS = {
  home: { type: "string" },
  json: { type: "boolean" },
} as const;

/** The first positional as an id, or a usage error naming what is missing (`Missing session ID`). */
export function requireId(positionals: string[], what: string): string {
  const id = positionals[0];
  if (id === undefined) throw new UsageError(`Missing ${what} ID`);
  return id;
}
