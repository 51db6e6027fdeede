/** What `launchdPlist` writes into `~/Library/LaunchAgents/<label>.plist`. */
export interface LaunchdPlistOptions {
  readonly label: string;
  /** Absolute path of the program launchd executes. */
  readonly execPath: string;
  /** Its arguments (`serve`, `--tcp …`; `run -A main.ts serve` from source). */
  readonly args: readonly string[];
  /** The daemon's home, exported as `SVC_HOME`. */
  readonly home: string;
  /** Where launchd sends the daemon's stdout and stderr (`launchd.out.log`, `launchd.err.log`). */
  readonly logDir: string;
  /** Extra environment (for instance the installing shell's `PATH`), in key order. */
  readonly env?: Readonly<Record<string, string>>;
}

/**
 * A LaunchAgent that starts the daemon at login and restarts it when it
 * exits unsuccessfully (`KeepAlive` with `SuccessfulExit` false), so that
 * `svc stop` (exit 0) leaves it stopped, as with systemd's
 * `Restart=on-failure`. `ExitTimeOut` gives a graceful stop time to end the
 * live sessions before launchd sends SIGKILL.
 */
export function launchdPlist(options: LaunchdPlistOptions): string {
  const environment = [["SVC_HOME", options.home], ...Object.entries(options.env ?? {})];
  const logPath = (name: string) => `${options.logDir.replace(/\/+$/, "")}/${name}`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" ' +
    '"http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
    '<plist version="1.0">',
    "<dict>",
    "  <key>Label</key>",
    `  <string>${xmlText(options.label)}</string>`,
    "  <key>ProgramArguments</key>",
    "  <array>",
    ...[options.execPath, ...options.args].map((arg) => `    <string>${xmlText(arg)}</string>`),
    "  </array>",
    "  <key>EnvironmentVariables</key>",
    "  <dict>",
    ...environment.flatMap(([name, value]) => [
      `    <key>${xmlText(name)}</key>`,
      `    <string>${xmlText(value)}</string>`,
    ]),
    "  </dict>",
    "  <key>RunAtLoad</key>",
    "  <true/>",
    "  <key>KeepAlive</key>",
    "  <dict>",
    "    <key>SuccessfulExit</key>",
    "    <false/>",
    "  </dict>",
    "  <key>ExitTimeOut</key>",
    "  <integer>30</integer>",
    "  <key>StandardOutPath</key>",
    `  <string>${xmlText(logPath("launchd.out.log"))}</string>`,
    "  <key>StandardErrorPath</key>",
    `  <string>${xmlText(logPath("launchd.err.log"))}</string>`,
    "</dict>",
    "</plist>",
    "",
  ].join("\n");
}

/**
 * `text` escaped for XML character data and attribute values. Control
 * characters XML 1.0 cannot carry are refused rather than silently dropped.
 */
export function xmlText(text: string): string {
  // deno-lint-ignore no-control-regex
  if (/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/.test(text)) {
    throw new Error(`Cannot write XML: ${JSON.stringify(text)} holds a control character`);
  }
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;").replaceAll("'", "&apos;");
}
