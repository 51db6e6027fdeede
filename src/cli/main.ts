import { API_VERSION, resolveSvcVersion } from "../version.ts";
import { attachCommand } from "./attach.ts";
import { approvalsCommand, approveCommand } from "./approvals.ts";
import { automationsCommand } from "./automations.ts";
import { capabilitiesCommand } from "./capabilities.ts";
import { chatCommand } from "./chat.ts";
import { completionsCommand } from "./completions.ts";
import { contextCommand } from "./context.ts";
import { doctorCommand } from "./doctor.ts";
import { type Command, EXIT, type Io } from "./command.ts";
import { eventsCommand } from "./events.ts";
import { logsCommand } from "./logs.ts";
import { notificationsCommand } from "./notifications.ts";
import { sessionsCommand } from "./sessions.ts";
import { serveCommand } from "./serve.ts";
import { serviceCommand } from "./service.ts";
import { statusCommand } from "./status.ts";
import { stopCommand } from "./stop.ts";
import { dialStdioCommand } from "./dial_stdio.ts";
import { didYouMean } from "./did_you_mean.ts";
import { terminalSafe } from "./terminal_text.ts";
import { watchCommand } from "./watch.ts";
import { uiCommand } from "./ui.ts";
import { worktreesCommand } from "./worktrees.ts";
import { landCommand } from "./land.ts";
import { inboxCommand } from "./inbox.ts";
import { usageCommand } from "./usage.ts";
import { storeCommand } from "./store.ts";
import { devicesCommand } from "./devices.ts";
import { processIo } from "./process_io.ts";
import { runCommand } from "./run_command.ts";

/** Every command, in the order `svc help` lists them. */
export const COMMANDS: readonly Command[] = [
  serveCommand,
  statusCommand,
  stopCommand,
  capabilitiesCommand,
  sessionsCommand,
  chatCommand,
  attachCommand,
  uiCommand,
  approvalsCommand,
  approveCommand,
  eventsCommand,
  automationsCommand,
  inboxCommand,
  notificationsCommand,
  worktreesCommand,
  landCommand,
  usageCommand,
  logsCommand,
  storeCommand,
  devicesCommand,
  serviceCommand,
  doctorCommand,
  watchCommand,
  contextCommand,
  dialStdioCommand,
  // Reads the table only when it runs, so it can complete every command, itself included.
  completionsCommand(() => COMMANDS),
];

/** Parses the command line, dispatches, and returns the exit code (D1). */
export async function runCli(args: string[], io: Io = processIo): Promise<number> {
  const [name, ...rest] = args;
  if (name === undefined || name === "help" || name === "--help" || name === "-h") {
    return help(rest[0], io);
  }
  if (name === "--version" || name === "-V" || name === "version") {
    io.out(`svc ${await resolveSvcVersion()} (${API_VERSION})`);
    return EXIT.ok;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    io.err(unknownCommand(name, "svc"));
    return EXIT.usage;
  }
  return await runCommand(command, rest, io);
}

function help(topic: string | undefined, io: Io): number {
  if (topic === undefined) {
    io.out(overview());
    return EXIT.ok;
  }
  const command = COMMANDS.find((c) => c.name === topic);
  if (!command) {
    io.err(unknownCommand(topic, "svc help"));
    return EXIT.usage;
  }
  io.out(command.usage);
  return EXIT.ok;
}

/** `svc: unknown command "sesions" (did you mean sessions?)` and where the list is: no full help. */
function unknownCommand(name: string, prefix: string): string {
  const hint = didYouMean(name, COMMANDS.map((c) => c.name));
  return `${prefix}: unknown command "${
    terminalSafe(name)
  }"${hint}\nRun "svc help" for the list of commands`;
}

function overview(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    "svc: a local daemon that runs and supervises coding-agent sessions and automations",
    "",
    "Usage: svc <command> [options]",
    "",
    "Commands:",
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    `  ${"help".padEnd(width)}  Show help for a command`,
    "",
    "Options: --version, --help; --context NAME (or SVC_CONTEXT) sends a command to another",
    'daemon ("svc context"). Exit codes: 0 ok, 1 refused, 2 bad usage/config, 3 no daemon.',
  ].join("\n");
}
