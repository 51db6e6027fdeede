/** What `systemdUnit` writes into `svc.service`. */
export interface SystemdUnitOptions {
  /** Absolute path of the program systemd executes. */
  readonly execPath: string;
  /** Its arguments (`serve`, `--tcp …`; `run -A main.ts serve` from source). */
  readonly args: readonly string[];
  /** The daemon's home, exported as `SVC_HOME`. */
  readonly home: string;
  /** Extra environment (for instance the installing shell's `PATH`), in key order. */
  readonly env?: Readonly<Record<string, string>>;
}

/**
 * The `systemd --user` unit that runs the daemon: restarted when it fails,
 * never when it exits 0 (`svc stop`) or 2 (bad configuration, or another
 * daemon already owns the home: restarting cannot help). `KillMode=mixed`
 * sends SIGTERM to the daemon alone, so it ends its sessions itself and
 * records them as killed.
 */
export function systemdUnit(options: SystemdUnitOptions): string {
  const environment = [["SVC_HOME", options.home], ...Object.entries(options.env ?? {})]
    .map(([name, value]) => `Environment=${systemdEnvironmentValue(name, value)}`);
  return [
    '# Written by "svc service install"; run it again rather than editing this file.',
    "[Unit]",
    "Description=svc daemon (coding-agent sessions and automations)",
    "",
    "[Service]",
    "Type=simple",
    ...environment,
    `ExecStart=${systemdExecLine(options.execPath, options.args)}`,
    "Restart=on-failure",
    "RestartSec=2",
    "RestartPreventExitStatus=2",
    "KillMode=mixed",
    "TimeoutStopSec=30",
    // Issue 13: room for many connections and sessions (the default soft limit is 1024).
    "LimitNOFILE=65536",
    "",
    "[Install]",
    "WantedBy=default.target",
    "",
  ].join("\n");
}

/**
 * An `ExecStart=` command line. Every word is quoted as systemd reads it:
 * words with whitespace, quotes or backslashes are double-quoted with `\\`
 * and `\"` escaped, `%` becomes `%%` (specifiers), and in the arguments `$`
 * becomes `$$` (variable expansion). systemd never expands variables in the
 * executable's path, so there `$` stays as it is; quotes and backslashes
 * there are refused, as systemd itself refuses them.
 */
export function systemdExecLine(execPath: string, args: readonly string[]): string {
  if (!execPath.startsWith("/")) {
    throw new Error(`Cannot write a systemd unit: "${execPath}" is not an absolute path`);
  }
  if (/["'\\]/.test(execPath)) {
    // systemd rejects such a unit ("Executable name contains special characters").
    throw new Error(
      `Cannot write a systemd unit: systemd refuses an executable path holding quotes or ` +
        `backslashes, "${execPath}": move the program to another directory`,
    );
  }
  return [systemdWord(execPath, false), ...args.map((arg) => systemdWord(arg, true))].join(" ");
}

/** `"NAME=value"` for `Environment=`: quoted, C-escaped, `%` doubled; `$` is literal there. */
export function systemdEnvironmentValue(name: string, value: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
    throw new Error(`Cannot write a systemd unit: "${name}" is not a variable name`);
  }
  return `"${escapeQuoted(checkLine(`${name}=${value}`))}"`;
}

function systemdWord(word: string, expandsVariables: boolean): string {
  checkLine(word);
  const escaped = expandsVariables ? word.replaceAll("$", () => "$$") : word;
  // A bare ";" would separate commands: quoting keeps it an argument.
  const needsQuotes = word === "" || word === ";" || /[\s"'\\]/.test(word);
  return needsQuotes ? `"${escapeQuoted(escaped)}"` : escaped.replaceAll("%", "%%");
}

function escapeQuoted(text: string): string {
  return text.replaceAll("\\", "\\\\").replaceAll('"', '\\"').replaceAll("%", "%%");
}

function checkLine(text: string): string {
  if (/[\n\r\0]/.test(text)) {
    throw new Error(`Cannot write a systemd unit: ${JSON.stringify(text)} holds a line break`);
  }
  return text;
}
