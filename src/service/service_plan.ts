import { posix, win32 } from "node:path";
import { launchdPlist } from "./launchd_plist.ts";
import { systemdUnit } from "./systemd_unit.ts";
import {
  schtasksCreate,
  schtasksDelete,
  schtasksEnd,
  schtasksQuery,
  schtasksRun,
  windowsCommandLine,
  windowsTaskXml,
} from "./windows_task.ts";

/** The operating systems `svc service` supports (`Deno.build.os` values). */
export type ServiceOs = "linux" | "darwin" | "windows";

/** The systemd unit's name. */
export const SYSTEMD_UNIT_NAME = "svc.service";

/** The LaunchAgent's label (and the plist's base name), after the contract's `svc.daemon`. */
export const LAUNCHD_LABEL = "svc.daemon";

/** The program that runs the daemon: its path and the arguments before `serve`. */
export interface ServiceProgram {
  readonly execPath: string;
  readonly args: readonly string[];
  /** True when it is `deno run -A main.ts`, a service meant for development. */
  readonly fromSource: boolean;
}

/**
 * The compiled svc when the running executable is one (its name starts with
 * `svc`), else `deno run -A <main module>`: a service run from source, for
 * development.
 */
export function serviceProgram(execPath: string, mainModulePath: string): ServiceProgram {
  const name = execPath.split(/[\\/]/).pop() ?? "";
  if (/^svc/i.test(name)) return { execPath, args: [], fromSource: false };
  return { execPath, args: ["run", "-A", mainModulePath], fromSource: true };
}

/** Everything a service plan depends on, gathered by the CLI. */
export interface ServicePlanInput {
  readonly os: ServiceOs;
  /** The user's home directory (`$HOME`, `%USERPROFILE%`). */
  readonly homeDir: string;
  readonly program: ServiceProgram;
  /** The daemon's home (absolute): `SVC_HOME` of the service. */
  readonly svcHome: string;
  /** A validated loopback `--tcp` address to pass through, or null. */
  readonly tcp: string | null;
  /** The user id (macOS: the `gui/<uid>` launchd domain). */
  readonly uid?: number;
  /** `DOMAIN\user` (Windows: whose logon starts the task). */
  readonly user?: string;
  /** The installing shell's `PATH`, recorded so the service finds the same harness programs. */
  readonly path?: string;
  /** `$XDG_CONFIG_HOME` when set (Linux: where systemd looks for user units). */
  readonly xdgConfigHome?: string;
  /** `%LOCALAPPDATA%` when set (Windows: where the task XML is kept). */
  readonly localAppData?: string;
}

/** A command of a plan; `mayFail` when failing is expected (nothing installed or running). */
export interface ServiceStep {
  readonly argv: readonly string[];
  readonly mayFail: boolean;
}

/** The file a plan writes. Task Scheduler's XML is UTF-16. */
export interface ServiceFile {
  readonly path: string;
  readonly content: string;
  readonly encoding: "utf-8" | "utf-16le";
}

/** Per OS: the file to write and the commands that enable, remove and query the service. */
export interface ServicePlan {
  readonly os: ServiceOs;
  /** What the service is, for messages: `systemd --user unit "svc.service"`. */
  readonly description: string;
  readonly file: ServiceFile;
  /** Run after the file is written: registers and (re)starts the service. */
  readonly install: readonly ServiceStep[];
  /** Run before the file is removed: stops and unregisters the service. */
  readonly uninstall: readonly ServiceStep[];
  /** Run after the file is removed. */
  readonly afterRemove: readonly ServiceStep[];
  /** Prints the service manager's view of the service. */
  readonly status: readonly string[];
}

/** Where the service file of `os` lives: what `svc service install` writes and `svc doctor` looks for. */
export function serviceFilePath(
  os: ServiceOs,
  input: Pick<ServicePlanInput, "homeDir" | "xdgConfigHome" | "localAppData">,
): string {
  switch (os) {
    case "linux":
      return posix.join(
        input.xdgConfigHome || posix.join(input.homeDir, ".config"),
        "systemd",
        "user",
        SYSTEMD_UNIT_NAME,
      );
    case "darwin":
      return posix.join(input.homeDir, "Library", "LaunchAgents", `${LAUNCHD_LABEL}.plist`);
    case "windows":
      return win32.join(
        input.localAppData || win32.join(input.homeDir, "AppData", "Local"),
        "svc",
        "svc-task.xml",
      );
  }
}

/** The service plan for `input.os`; pure, so each OS is testable anywhere. */
export function servicePlan(input: ServicePlanInput): ServicePlan {
  const daemonArgs = ["serve", ...(input.tcp === null ? [] : ["--tcp", input.tcp])];
  const env = input.path ? { PATH: input.path } : undefined;
  switch (input.os) {
    case "linux":
      return systemdPlan(input, daemonArgs, env);
    case "darwin":
      return launchdPlan(input, daemonArgs, env);
    case "windows":
      return windowsPlan(input, daemonArgs);
  }
}

function systemdPlan(
  input: ServicePlanInput,
  daemonArgs: string[],
  env: Record<string, string> | undefined,
): ServicePlan {
  const systemctl = (...args: string[]) => ["systemctl", "--user", ...args];
  return {
    os: "linux",
    description: `systemd --user unit "${SYSTEMD_UNIT_NAME}"`,
    file: {
      path: serviceFilePath("linux", input),
      content: systemdUnit({
        execPath: input.program.execPath,
        args: [...input.program.args, ...daemonArgs],
        home: input.svcHome,
        env,
      }),
      encoding: "utf-8",
    },
    install: [
      { argv: systemctl("daemon-reload"), mayFail: false },
      { argv: systemctl("enable", SYSTEMD_UNIT_NAME), mayFail: false },
      { argv: systemctl("restart", SYSTEMD_UNIT_NAME), mayFail: false },
    ],
    uninstall: [{ argv: systemctl("disable", "--now", SYSTEMD_UNIT_NAME), mayFail: true }],
    afterRemove: [{ argv: systemctl("daemon-reload"), mayFail: true }],
    status: systemctl("status", "--no-pager", SYSTEMD_UNIT_NAME),
  };
}

function launchdPlan(
  input: ServicePlanInput,
  daemonArgs: string[],
  env: Record<string, string> | undefined,
): ServicePlan {
  if (input.uid === undefined) throw new Error("A launchd plan needs the user id");
  const domain = `gui/${input.uid}`;
  const target = `${domain}/${LAUNCHD_LABEL}`;
  const path = serviceFilePath("darwin", input);
  return {
    os: "darwin",
    description: `launchd LaunchAgent "${LAUNCHD_LABEL}"`,
    file: {
      path,
      content: launchdPlist({
        label: LAUNCHD_LABEL,
        execPath: input.program.execPath,
        args: [...input.program.args, ...daemonArgs],
        home: input.svcHome,
        logDir: posix.join(input.svcHome, "logs"),
        env,
      }),
      encoding: "utf-8",
    },
    install: [
      // A loaded job keeps its old definition: unload it first (fails when none is loaded).
      { argv: ["launchctl", "bootout", target], mayFail: true },
      { argv: ["launchctl", "enable", target], mayFail: false },
      { argv: ["launchctl", "bootstrap", domain, path], mayFail: false },
    ],
    uninstall: [{ argv: ["launchctl", "bootout", target], mayFail: true }],
    afterRemove: [],
    status: ["launchctl", "print", target],
  };
}

function windowsPlan(input: ServicePlanInput, daemonArgs: string[]): ServicePlan {
  if (!input.user) throw new Error("A Scheduled Task plan needs the user name");
  const path = serviceFilePath("windows", input);
  const svc = (...args: string[]) => [input.program.execPath, ...input.program.args, ...args];
  // `svc stop` ends the daemon gracefully; `schtasks /End` would kill it outright.
  const stopDaemon = { argv: svc("stop", "--home", input.svcHome), mayFail: true };
  return {
    os: "windows",
    description: `Scheduled Task "\\svc"`,
    file: {
      path,
      content: windowsTaskXml({
        execPath: input.program.execPath,
        args: [...input.program.args, ...daemonArgs, "--home", input.svcHome],
        user: input.user,
      }),
      encoding: "utf-16le",
    },
    install: [
      stopDaemon,
      { argv: schtasksCreate(path), mayFail: false },
      { argv: schtasksRun(), mayFail: false },
    ],
    uninstall: [
      stopDaemon,
      { argv: schtasksEnd(), mayFail: true },
      { argv: schtasksDelete(), mayFail: true },
    ],
    afterRemove: [],
    status: schtasksQuery(),
  };
}

/** Whether the status command's result says the daemon runs. */
export function statusIsRunning(os: ServiceOs, code: number, stdout: string): boolean {
  if (code !== 0) return false;
  switch (os) {
    case "linux":
      return true; // `systemctl status` exits 0 only for an active unit.
    case "darwin":
      return /^\s*state = running\s*$/m.test(stdout);
    case "windows":
      return /^Status:\s+Running\s*$/m.test(stdout);
  }
}

/** The file's bytes: UTF-8, or UTF-16LE with a byte-order mark. */
export function encodeServiceFile(file: ServiceFile): Uint8Array {
  if (file.encoding === "utf-8") return new TextEncoder().encode(file.content);
  const bytes = new Uint8Array(2 + file.content.length * 2);
  const view = new DataView(bytes.buffer);
  view.setUint16(0, 0xfeff, true);
  for (let i = 0; i < file.content.length; i++) {
    view.setUint16(2 + i * 2, file.content.charCodeAt(i), true);
  }
  return bytes;
}

/** argv as the user would type it: a POSIX shell line, or a Windows command line. */
export function formatCommandLine(argv: readonly string[], os: ServiceOs): string {
  if (os === "windows") return windowsCommandLine(argv);
  return argv.map((arg) => /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`)
    .join(" ");
}
