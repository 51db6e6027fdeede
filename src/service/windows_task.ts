import { xmlText } from "./launchd_plist.ts";

/** The Scheduled Task's name (root folder: `\svc`). */
export const WINDOWS_TASK_NAME = "svc";

/** What `windowsTaskXml` registers. */
export interface WindowsTaskOptions {
  /** Absolute path of the program the task executes (`svc.exe`, or `deno.exe` from source). */
  readonly execPath: string;
  /** Its arguments; the task has no environment of its own, so they carry `--home`. */
  readonly args: readonly string[];
  /** `DOMAIN\user` whose logon starts the task and as whom it runs. */
  readonly user: string;
}

/**
 * The task definition for `schtasks /Create /XML`: started at the user's
 * logon, in the user's session without elevation, with no run-time limit
 * (the default would stop it after 72 hours), on battery too, one instance
 * at a time, and restarted by Task Scheduler when a run fails. Written to
 * disk as UTF-16 with a byte-order mark, like Task Scheduler's own exports.
 */
export function windowsTaskXml(options: WindowsTaskOptions): string {
  const user = xmlText(options.user);
  return [
    '<?xml version="1.0" encoding="UTF-16"?>',
    '<Task version="1.2" xmlns="http://schemas.microsoft.com/windows/2004/02/mit/task">',
    "  <RegistrationInfo>",
    "    <Description>svc daemon (coding-agent sessions and automations), " +
    "written by &quot;svc service install&quot;</Description>",
    `    <URI>\\${WINDOWS_TASK_NAME}</URI>`,
    "  </RegistrationInfo>",
    "  <Triggers>",
    "    <LogonTrigger>",
    "      <Enabled>true</Enabled>",
    `      <UserId>${user}</UserId>`,
    "    </LogonTrigger>",
    "  </Triggers>",
    "  <Principals>",
    '    <Principal id="Author">',
    `      <UserId>${user}</UserId>`,
    "      <LogonType>InteractiveToken</LogonType>",
    "      <RunLevel>LeastPrivilege</RunLevel>",
    "    </Principal>",
    "  </Principals>",
    "  <Settings>",
    "    <MultipleInstancesPolicy>IgnoreNew</MultipleInstancesPolicy>",
    "    <DisallowStartIfOnBatteries>false</DisallowStartIfOnBatteries>",
    "    <StopIfGoingOnBatteries>false</StopIfGoingOnBatteries>",
    "    <AllowHardTerminate>true</AllowHardTerminate>",
    "    <StartWhenAvailable>false</StartWhenAvailable>",
    "    <RunOnlyIfNetworkAvailable>false</RunOnlyIfNetworkAvailable>",
    "    <IdleSettings>",
    "      <StopOnIdleEnd>false</StopOnIdleEnd>",
    "      <RestartOnIdle>false</RestartOnIdle>",
    "    </IdleSettings>",
    "    <AllowStartOnDemand>true</AllowStartOnDemand>",
    "    <Enabled>true</Enabled>",
    "    <Hidden>false</Hidden>",
    "    <RunOnlyIfIdle>false</RunOnlyIfIdle>",
    "    <WakeToRun>false</WakeToRun>",
    "    <ExecutionTimeLimit>PT0S</ExecutionTimeLimit>",
    "    <Priority>7</Priority>",
    "    <RestartOnFailure>",
    "      <Interval>PT1M</Interval>",
    "      <Count>3</Count>",
    "    </RestartOnFailure>",
    "  </Settings>",
    '  <Actions Context="Author">',
    "    <Exec>",
    `      <Command>${xmlText(options.execPath)}</Command>`,
    `      <Arguments>${xmlText(windowsCommandLine(options.args))}</Arguments>`,
    "    </Exec>",
    "  </Actions>",
    "</Task>",
    "",
  ].join("\r\n");
}

/** `schtasks` argv that registers (or replaces) the task from its XML file. */
export function schtasksCreate(xmlPath: string): string[] {
  return ["schtasks", "/Create", "/TN", WINDOWS_TASK_NAME, "/XML", xmlPath, "/F"];
}

/** `schtasks` argv that starts the task now (its trigger only fires at the next logon). */
export function schtasksRun(): string[] {
  return ["schtasks", "/Run", "/TN", WINDOWS_TASK_NAME];
}

/** `schtasks` argv that terminates the running task (a hard stop: run `svc stop` first). */
export function schtasksEnd(): string[] {
  return ["schtasks", "/End", "/TN", WINDOWS_TASK_NAME];
}

/** `schtasks` argv that unregisters the task. */
export function schtasksDelete(): string[] {
  return ["schtasks", "/Delete", "/TN", WINDOWS_TASK_NAME, "/F"];
}

/** `schtasks` argv that describes the task, its status ("Running") among the fields. */
export function schtasksQuery(): string[] {
  return ["schtasks", "/Query", "/TN", WINDOWS_TASK_NAME, "/FO", "LIST", "/V"];
}

/**
 * Joins argv into one Windows command line that `CommandLineToArgvW` (and
 * the Rust and MSVC runtimes) split back into the same words: words with
 * spaces, tabs or quotes are quoted, `"` becomes `\"`, and backslashes that
 * precede a quote (or the closing quote) are doubled.
 */
export function windowsCommandLine(args: readonly string[]): string {
  return args.map(quoteWindowsArg).join(" ");
}

function quoteWindowsArg(arg: string): string {
  if (arg !== "" && !/[\s"]/.test(arg)) return arg;
  let quoted = '"';
  let backslashes = 0;
  for (const char of arg) {
    if (char === "\\") {
      backslashes++;
      continue;
    }
    quoted += char === '"'
      ? "\\".repeat(backslashes * 2 + 1) + '"'
      : "\\".repeat(backslashes) + char;
    backslashes = 0;
  }
  return quoted + "\\".repeat(backslashes * 2) + '"';
}
