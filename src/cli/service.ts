import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { ConfigError } from "../config/config_error.ts";
import { homePaths, prepareHome, resolveHome } from "../config/home.ts";
import { resolveCliPath } from "./working_dir.ts";
import { type CommandRunner, denoCommandRunner } from "../service/command_runner.ts";
import {
  encodeServiceFile,
  formatCommandLine,
  type ServiceOs,
  type ServicePlan,
  servicePlan,
  serviceProgram,
  type ServiceStep,
  statusIsRunning,
} from "../service/service_plan.ts";
import { formatTcpAddress, parseTcpAddress } from "../transport/tcp_loopback.ts";
import { parseCommandArgs } from "./args.ts";
import { type Command, EXIT, type Io, pickSubcommand, type Subcommand } from "./command.ts";

/** What `svc service` needs from the machine; tests hand in fakes. */
export interface ServiceCommandDeps {
  /** `Deno.build.os`. */
  readonly os: string;
  readonly runner: CommandRunner;
  /** The running executable (`Deno.execPath()`). */
  readonly execPath: () => string;
  /** The main module as a path or URL (`deno run` from source runs it). */
  readonly mainModule: () => string;
  /** The user id (`Deno.uid()`), null on Windows. */
  readonly uid: () => number | null;
}

const SUPPORTED_OS: readonly string[] = ["linux", "darwin", "windows"];

/** `svc service install|uninstall|status` with the given machine. */
export function createServiceCommand(deps: ServiceCommandDeps): Command {
  const subcommands: Record<string, Subcommand> = {
    install: (args, io) => install(deps, args, io),
    uninstall: (args, io) => uninstall(deps, args, io),
    status: (args, io) => status(deps, args, io),
  };
  return {
    name: "service",
    summary: "Install, uninstall or query svc as a per-user service",
    usage: `Usage: svc service <subcommand> [options]

Runs "svc serve" as a per-user service, started at login and restarted when it
fails: a systemd --user unit on Linux (~/.config/systemd/user/svc.service), a
launchd LaunchAgent on macOS (~/Library/LaunchAgents/svc.daemon.plist), a
Scheduled Task started at logon on Windows ("\\svc").

Subcommands:
  install [--home DIR] [--tcp ADDR:PORT] [--dry-run]
      Writes the service file and enables and (re)starts the service. The
      service uses DIR as SVC_HOME (default $SVC_HOME, else ~/.svc), passes
      --tcp through, and keeps the current PATH so it finds the same harness
      programs. --dry-run prints the file and the commands instead.
  uninstall [--home DIR] [--dry-run]
      Stops and disables the service and removes its file. The home is only
      used on Windows, to stop the daemon gracefully first.
  status
      The service manager's view of the service. Exits 0 when it runs, 3 when
      it is not installed or not running.

From source (deno run main.ts), the service runs "deno run -A main.ts serve":
meant for development; install the compiled svc for everyday use.`,
    localOnly: true,
    async run(args, io) {
      const { run, rest } = pickSubcommand(subcommands, args);
      if (!SUPPORTED_OS.includes(deps.os)) {
        io.err(`svc service: not supported on "${deps.os}" (Linux, macOS and Windows are)`);
        return EXIT.refused;
      }
      return await run(rest, io);
    },
  };
}

/** `svc service` on this machine. */
export const serviceCommand: Command = createServiceCommand({
  os: Deno.build.os,
  runner: denoCommandRunner,
  execPath: () => Deno.execPath(),
  mainModule: () => Deno.mainModule,
  uid: () => Deno.uid(),
});

async function install(deps: ServiceCommandDeps, args: string[], io: Io): Promise<number> {
  const { values } = parseCommandArgs(args, {
    home: { type: "string" },
    tcp: { type: "string" },
    "dry-run": { type: "boolean" },
  });
  const tcp = values.tcp === undefined ? null : formatTcpAddress(parseTcpAddress(values.tcp));
  const { plan, fromSource, svcHome } = planFor(deps, io, values.home, tcp);
  if (fromSource) {
    io.err(
      "Note: running from source, so the service runs deno with main.ts (for development; " +
        "install the compiled svc for everyday use)",
    );
  }
  if (values["dry-run"]) {
    io.out(`Would write ${plan.file.path} (${plan.file.encoding}, mode 0644):`);
    io.out(plan.file.content.replaceAll("\r\n", "\n").trimEnd());
    io.out("");
    io.out("Would run:");
    printSteps(io, plan, plan.install);
    return EXIT.ok;
  }

  prepareHome(homePaths(svcHome));
  await writeServiceFile(plan);
  io.out(`Wrote ${plan.file.path}`);
  const failure = await runSteps(deps.runner, io, plan, plan.install);
  if (failure !== null) {
    io.err(`svc service install: ${failure}`);
    io.err(`The ${plan.description} is written to ${plan.file.path}; enable it by hand with:`);
    for (const step of plan.install) io.err(`  ${formatCommandLine(step.argv, plan.os)}`);
    return EXIT.refused;
  }
  io.out(`Installed and started the ${plan.description} (SVC_HOME ${svcHome})`);
  if (plan.os === "linux") {
    io.out('To keep it running after you log out: "loginctl enable-linger $USER"');
  }
  io.out('Check it with "svc service status" and "svc status"');
  return EXIT.ok;
}

async function uninstall(deps: ServiceCommandDeps, args: string[], io: Io): Promise<number> {
  const { values } = parseCommandArgs(args, {
    home: { type: "string" },
    "dry-run": { type: "boolean" },
  });
  const { plan } = planFor(deps, io, values.home, null);
  if (values["dry-run"]) {
    io.out("Would run:");
    printSteps(io, plan, plan.uninstall);
    io.out(`Would remove ${plan.file.path}`);
    if (plan.afterRemove.length > 0) {
      io.out("Then would run:");
      printSteps(io, plan, plan.afterRemove);
    }
    return EXIT.ok;
  }

  const installed = await exists(plan.file.path);
  const failure = await runSteps(deps.runner, io, plan, plan.uninstall);
  if (installed) {
    await Deno.remove(plan.file.path);
    io.out(`Removed ${plan.file.path}`);
  }
  const laterFailure = await runSteps(deps.runner, io, plan, plan.afterRemove);
  const problem = failure ?? laterFailure;
  if (problem !== null) {
    io.err(`svc service uninstall: ${problem}`);
    return EXIT.refused;
  }
  io.out(
    installed
      ? `Uninstalled the ${plan.description}`
      : `The ${plan.description} was not installed (no ${plan.file.path})`,
  );
  return EXIT.ok;
}

async function status(deps: ServiceCommandDeps, args: string[], io: Io): Promise<number> {
  parseCommandArgs(args, {});
  const { plan } = planFor(deps, io, undefined, null);
  if (!(await exists(plan.file.path))) {
    io.out(`svc service is not installed (no ${plan.file.path})`);
    return EXIT.unreachable;
  }
  const outcome = await deps.runner.run(plan.status);
  if (!outcome.started) {
    io.err(`svc service status: cannot run "${plan.status[0]}": ${outcome.reason}`);
    return EXIT.refused;
  }
  if (outcome.stdout.trim() !== "") io.out(outcome.stdout.trimEnd());
  if (outcome.stderr.trim() !== "") io.err(outcome.stderr.trimEnd());
  return statusIsRunning(plan.os, outcome.code, outcome.stdout) ? EXIT.ok : EXIT.unreachable;
}

/** The plan for this machine, from the flags, `io.env` and `deps`. */
function planFor(
  deps: ServiceCommandDeps,
  io: Io,
  homeFlag: string | undefined,
  tcp: string | null,
): { plan: ServicePlan; fromSource: boolean; svcHome: string } {
  const os = deps.os as ServiceOs;
  const homeVariable = os === "windows" ? "USERPROFILE" : "HOME";
  const homeDir = io.env(homeVariable);
  if (!homeDir) throw new ConfigError(`Cannot find the home directory: $${homeVariable} is unset`);
  // A relative home means the user's directory (issue 27 item 8), on the host the CLI runs on.
  const chosenHome = resolveHome(homeFlag, io.env);
  const svcHome = homePaths(os === Deno.build.os ? resolveCliPath(io, chosenHome) : chosenHome, os)
    .root;
  const program = serviceProgram(deps.execPath(), modulePath(deps.mainModule()));
  const userName = io.env("USERNAME");
  const domain = io.env("USERDOMAIN");
  const plan = planOrConfigError({
    os,
    homeDir,
    program,
    svcHome,
    tcp,
    uid: deps.uid() ?? undefined,
    user: userName && domain ? `${domain}\\${userName}` : userName,
    path: io.env("PATH"),
    xdgConfigHome: io.env("XDG_CONFIG_HOME"),
    localAppData: io.env("LOCALAPPDATA"),
  });
  return { plan, fromSource: program.fromSource, svcHome };
}

/** A plan the generators cannot write (a path systemd refuses, no user name) is exit 2. */
function planOrConfigError(input: Parameters<typeof servicePlan>[0]): ServicePlan {
  try {
    return servicePlan(input);
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
}

/** A `file:` URL as a path; other URLs (deno runs them as they are) unchanged. */
function modulePath(mainModule: string): string {
  return mainModule.startsWith("file:") ? fileURLToPath(mainModule) : mainModule;
}

/**
 * Runs the steps in order, echoing each. A program that cannot start (no
 * `systemctl` in a container), or a step that fails without `mayFail`, stops
 * the run: the returned text says why.
 */
async function runSteps(
  runner: CommandRunner,
  io: Io,
  plan: ServicePlan,
  steps: readonly ServiceStep[],
): Promise<string | null> {
  for (const step of steps) {
    const commandLine = formatCommandLine(step.argv, plan.os);
    io.out(`$ ${commandLine}`);
    const outcome = await runner.run(step.argv);
    if (!outcome.started) return `cannot run "${step.argv[0]}": ${outcome.reason}`;
    if (outcome.code !== 0 && !step.mayFail) {
      const detail = (outcome.stderr.trim() || outcome.stdout.trim()).split("\n")[0];
      return `"${commandLine}" failed (exit ${outcome.code})${detail ? `: ${detail}` : ""}`;
    }
  }
  return null;
}

function printSteps(io: Io, plan: ServicePlan, steps: readonly ServiceStep[]): void {
  for (const step of steps) {
    const note = step.mayFail ? "  (a failure is ignored)" : "";
    io.out(`  ${formatCommandLine(step.argv, plan.os)}${note}`);
  }
}

/** Writes the service file 0644, creating its directory. */
async function writeServiceFile(plan: ServicePlan): Promise<void> {
  await Deno.mkdir(dirname(plan.file.path), { recursive: true });
  await Deno.writeFile(plan.file.path, encodeServiceFile(plan.file), { mode: 0o644 });
  if (Deno.build.os !== "windows") await Deno.chmod(plan.file.path, 0o644);
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}
