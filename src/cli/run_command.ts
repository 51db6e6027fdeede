import { ClientError } from "../client/client.ts";
import { ConfigError } from "../config/config_error.ts";
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
    return await command.run(rest, io);
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
