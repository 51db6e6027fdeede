import { ClientError } from "../client/client.ts";
import { ConfigError } from "../config/config_error.ts";
import { CONTEXT_ENV } from "../contexts/selection.ts";
import { type Command, EXIT, type Io, UsageError } from "./command.ts";
import { AmbiguousIdError } from "./id_prefix.ts";
import { subcommandUsage } from "./subcommand_help.ts";
import { terminalSafe } from "./terminal_text.ts";

/**
 * Runs one command with its arguments: `--help` prints its usage, and the
 * errors a command may throw become their message and exit code (D1).
 */
export async function runCommand(command: Command, rest: string[], io: Io): Promise<number> {
  if (rest.includes("--help") || rest.includes("-h")) {
    // `svc sessions kill --help`: the help of that subcommand, when the usage lists it.
    const sub = rest[0] === undefined
      ? null
      : subcommandUsage(command.name, command.usage, rest[0]);
    io.out(sub ?? command.usage);
    return EXIT.ok;
  }
  try {
    const { contexts, args } = takeContextOption(rest);
    if (contexts.length > 0 && command.localOnly) {
      throw new UsageError(
        `--context is not accepted: "svc ${command.name}" works on this machine`,
      );
    }
    if (command.manyContexts) return await command.run(rest, io);
    if (contexts.length > 1) {
      throw new UsageError(
        `--context is given ${contexts.length} times: "svc ${command.name}" talks to one daemon`,
      );
    }
    const [context] = contexts;
    return await command.run(args, context === undefined ? io : withContextEnv(io, context));
  } catch (error) {
    // Each may quote what the user typed, what the daemon or what config.json said.
    if (error instanceof UsageError) {
      io.err(`svc ${command.name}: ${terminalSafe(error.message)}\n\n${command.usage}`);
      return EXIT.usage;
    }
    if (error instanceof ConfigError) {
      io.err(`svc ${command.name}: ${terminalSafe(error.message)}`);
      return EXIT.usage;
    }
    if (error instanceof AmbiguousIdError) {
      io.err(`svc ${command.name}: ${terminalSafe(error.message)}`);
      return EXIT.usage;
    }
    if (error instanceof ClientError) {
      io.err(`svc ${command.name}: ${terminalSafe(error.message)}`);
      return error.code === "unreachable" ? EXIT.unreachable : EXIT.refused;
    }
    throw error;
  }
}

/**
 * `--context NAME` or `--context=NAME`, a global option (D32), taken out of
 * `args` wherever it stands before a `--`: every one given, in order.
 */
export function takeContextOption(
  args: string[],
): { contexts: string[]; args: string[] } {
  const contexts: string[] = [];
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--") {
      rest.push(...args.slice(i));
      break;
    }
    const context = arg === "--context"
      ? args[++i]
      : arg.startsWith("--context=")
      ? arg.slice("--context=".length)
      : null;
    if (context === null) {
      rest.push(arg);
      continue;
    }
    if (context === undefined || context === "") {
      throw new UsageError("option --context needs a value");
    }
    contexts.push(context);
  }
  return { contexts, args: rest };
}

/** `io` whose `SVC_CONTEXT` is `context`: `--context` outranks the variable for one command. */
function withContextEnv(io: Io, context: string): Io {
  return { ...io, env: (name) => name === CONTEXT_ENV ? context : io.env(name) };
}
