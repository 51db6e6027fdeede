import { didYouMean } from "./did_you_mean.ts";

/** Where a command writes; tests capture it, the real CLI writes to stdout/stderr. */
export interface Io {
  out(text: string): void;
  err(text: string): void;
  /** Raw text to stdout, no newline added (session output as it came). */
  write(text: string): void;
  /** Raw text to stderr, no newline added. */
  writeErr(text: string): void;
  env(name: string): string | undefined;
}

/** One subcommand: a name, a usage text, and `run` returning the exit code (D1). */
export interface Command {
  readonly name: string;
  readonly summary: string;
  readonly usage: string;
  /**
   * Works on this machine's home only (its files, its socket, its service
   * manager): `--context` is refused, and `SVC_CONTEXT` or the used context
   * never send it elsewhere (D32).
   */
  readonly localOnly?: true;
  /**
   * Shows several daemons at once (`svc ui --context A --context B`): its
   * `--context` options reach it in `args`, every one, and `SVC_CONTEXT` is
   * left as it is for it to read (D32).
   */
  readonly manyContexts?: true;
  run(args: string[], io: Io): Promise<number>;
}

/** Exit codes (D1). */
export const EXIT = { ok: 0, refused: 1, usage: 2, unreachable: 3 } as const;

/** Bad usage of a command: printed with the command's usage, exit 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/** A subcommand of a command with several (`svc sessions list`). */
export type Subcommand = (args: string[], io: Io) => Promise<number>;

/** The subcommand `args[0]` names, with the rest of `args`, or a usage error. */
export function pickSubcommand(
  subcommands: Readonly<Record<string, Subcommand>>,
  args: string[],
): { run: Subcommand; rest: string[] } {
  const [name, ...rest] = args;
  if (name === undefined) throw new UsageError("Missing subcommand");
  if (!Object.hasOwn(subcommands, name)) {
    throw new UsageError(
      `Unknown subcommand "${name}"${didYouMean(name, Object.keys(subcommands))}`,
    );
  }
  return { run: subcommands[name], rest };
}
