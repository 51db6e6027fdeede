import { parseArgs, type ParseArgsConfig } from "node:util";
import { UsageError } from "./command.ts";
import { didYouMean } from "./did_you_mean.ts";

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
    throw new UsageError(parseErrorText(error as Error & { code?: string }, options));
  }
  if (parsed.positionals.length > positionals) {
    throw new UsageError(`Unexpected argument "${parsed.positionals[positionals]}"`);
  }
  return parsed;
}

/**
 * What a `node:util` parseArgs error means, in svc's words: `unknown option
 * --harnes (did you mean --harness?)`, not the parser's advice about `--`.
 */
function parseErrorText(error: Error & { code?: string }, options: Options): string {
  const quoted = /'([^']+)'/.exec(error.message)?.[1];
  if (error.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" && quoted !== undefined) {
    const flags = Object.entries(options).flatMap(([name, option]) => [
      `--${name}`,
      ...(option.short === undefined ? [] : [`-${option.short}`]),
    ]);
    return `unknown option ${quoted}${didYouMean(quoted, flags)}`;
  }
  if (error.code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE" && quoted !== undefined) {
    return `option ${quoted.split(" ")[0]} needs a value`;
  }
  if (error.code === "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL" && quoted !== undefined) {
    return `Unexpected argument "${quoted}"`;
  }
  return error.message;
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
