import { loadConfig } from "../config/load.ts";
import { ConfigError } from "../config/config_error.ts";
import { homePaths } from "../config/home.ts";
import { buildRegistry, type HarnessSpec } from "../sessions/harnesses.ts";
import { readVersion, systemProber } from "../sessions/harness_probe.ts";
import { serviceFilePath, type ServiceOs } from "../service/service_plan.ts";
import { parseCommandArgs } from "./args.ts";
import { type Command, type Io } from "./command.ts";
import {
  type DaemonView,
  type HomeFacts,
  homeLines,
  queryDaemon,
  readHomeFacts,
  readStoreFacts,
  storeLine,
} from "./doctor_home.ts";
import { checkProvider, knownCli, type ProviderFacts } from "./doctor_providers.ts";
import { notificationLines } from "./doctor_notifications.ts";
import { desktopProgram } from "../notify/desktop_command.ts";
import { DEFAULT_CONFIG } from "../config/schema.ts";
import {
  doctorExitCode,
  type DoctorLine,
  formatDoctor,
  type HarnessReport,
} from "./doctor_report.ts";
import { terminalSafe } from "./terminal_text.ts";
import { resolveCliHome } from "./working_dir.ts";

/** A version probe gets this long: gemini and opencode take 2–4 s cold (agents-notes). */
const VERSION_TIMEOUT_MS = 10_000;
/** A provider host gets this long to accept a TCP connection. */
const CONNECT_TIMEOUT_MS = 2_000;

/** The npm package that installs each built-in, for the hint. */
const PACKAGES: Readonly<Record<string, string>> = {
  claude: "@anthropic-ai/claude-code",
  codex: "@openai/codex",
  gemini: "@google/gemini-cli",
  opencode: "opencode-ai",
};

/** Whether `host:port` accepts a TCP connection within `timeoutMs`; never sends a byte. */
export async function tcpAnswers(host: string, port: number, timeoutMs: number): Promise<boolean> {
  const signal = AbortSignal.timeout(timeoutMs);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const connecting = Deno.connect({ hostname: host, port, signal });
  // A connect that ends after the deadline is closed as it arrives.
  connecting.then((conn) => signal.aborted && conn.close(), () => {});
  try {
    const conn = await Promise.race([
      connecting,
      new Promise<null>((resolve) => timer = setTimeout(() => resolve(null), timeoutMs)),
    ]);
    if (conn === null) return false;
    conn.close();
    return true;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

/** `svc doctor`: what svc and its harnesses need on this machine, checked (issue 27 item 13). */
export const doctorCommand: Command = {
  name: "doctor",
  summary: "Check the harnesses, the home, the store and the service",
  usage: `Usage: svc doctor [--home DIR] [--json]

Checks, without ever calling a model:
  Harnesses  for each built-in (claude, codex, gemini, opencode) and each
             harness of config.json: the program on PATH and its version
             (--version, ${VERSION_TIMEOUT_MS / 1000} s at most), whether its credentials or
             provider settings are present (names only, never values), and
             whether the provider's host accepts a TCP connection within
             ${CONNECT_TIMEOUT_MS / 1000} s. When a daemon runs, its own view of each harness too.
  Home       owner-only (0700) and owned by you, config.json valid, the
             daemon answering on its socket, the store (svc.db and store.id).
  Notifications
             whether the desktop notifier (notify-send, osascript,
             PowerShell) is found, and each channel's last delivery as the
             running daemon reports it.
  Service    whether "svc service install" installed the per-user service.

Marks: ✓ fine, ! a warning, ✗ a problem. Exits 1 when there is a problem (a
harness that is installed or configured lacks its program or credentials, the
home is unsafe, the config or the store would stop the daemon, a channel's
last notification failed), else 0.
--json prints the report as one object.`,
  localOnly: true,
  async run(args, io) {
    const { values } = parseCommandArgs(args, {
      home: { type: "string" },
      json: { type: "boolean" },
    });
    const paths = homePaths(resolveCliHome(values.home, io));
    const home = readHomeFacts(paths);
    const lines: DoctorLine[] = [];
    const { specs, configLine } = harnessSpecs(paths.config);
    const [daemon, harnesses] = await Promise.all([
      queryDaemon(paths),
      Promise.all(specs.map((spec) => checkHarness(spec, io))),
    ]);
    for (const { report, lines: harnessLines } of harnesses) {
      report.daemonStatus = daemon.harnesses?.get(report.id) ?? null;
      lines.push(...harnessLines, ...daemonDisagrees(report));
    }
    lines.push(...homeLines(home, daemon), configLine, storeLine(readStoreFacts(paths), daemon));
    lines.push(...await notificationsCheck(paths.config, io, daemon));
    lines.push(serviceLine(io));
    if (values.json) {
      // JSON escapes C0 controls but not C1 or bidi marks a version line may carry.
      const report = jsonReport(lines, harnesses.map((h) => h.report), home, daemon);
      io.out(terminalSafe(JSON.stringify(report, null, 2)));
    } else {
      io.out(formatDoctor(lines));
    }
    return doctorExitCode(lines);
  },
};

function jsonReport(
  lines: DoctorLine[],
  harnesses: HarnessReport[],
  home: HomeFacts,
  daemon: DaemonView,
) {
  return {
    ok: doctorExitCode(lines) === 0,
    harnesses,
    home: { path: home.path, exists: home.exists, mode: home.mode },
    daemon: {
      running: daemon.health !== null,
      socket: daemon.socket,
      pid: daemon.health?.pid ?? null,
      svcVersion: daemon.health?.svcVersion ?? null,
      store: daemon.store,
    },
    lines,
  };
}

/** The built-ins and the configured harnesses, and the config.json line. */
function harnessSpecs(configPath: string): { specs: HarnessSpec[]; configLine: DoctorLine } {
  const line = (mark: DoctorLine["mark"], text: string, hint: string | null = null) => ({
    section: "home" as const,
    subject: "config",
    check: "config.json",
    mark,
    text,
    hint,
  });
  try {
    const config = loadConfig(configPath);
    const registry = buildRegistry(config.harnesses);
    const configured = Object.keys(config.harnesses).length;
    const exists = (() => {
      try {
        return Deno.statSync(configPath).isFile;
      } catch {
        return false;
      }
    })();
    if (!exists) {
      return {
        specs: [...registry.values()],
        configLine: line("ok", `no ${configPath}: the defaults (built-in harnesses only)`),
      };
    }
    return {
      specs: [...registry.values()],
      configLine: line(
        "ok",
        `${configPath}: ${configured} configured harness${configured === 1 ? "" : "es"}`,
      ),
    };
  } catch (error) {
    if (!(error instanceof ConfigError) && !(error instanceof TypeError)) throw error;
    return {
      specs: [...buildRegistry({}).values()],
      configLine: line("fail", error.message, "fix it: svc serve refuses to start with it"),
    };
  }
}

/** The desktop program found as the daemon would find it, and the channels' last deliveries. */
async function notificationsCheck(
  configPath: string,
  io: Io,
  daemon: DaemonView,
): Promise<DoctorLine[]> {
  let config = DEFAULT_CONFIG;
  try {
    config = loadConfig(configPath);
  } catch { /* the config line reports it */ }
  const program = desktopProgram(Deno.build.os);
  const prober = systemProber({ PATH: io.env("PATH"), PATHEXT: io.env("PATHEXT") });
  return notificationLines(
    config.notifications,
    { program, path: await prober.find(program) },
    daemon.notifications,
  );
}

/** The machine as the provider checks read it: the CLI's environment, files by path. */
function providerFacts(io: Io): ProviderFacts {
  const windows = Deno.build.os === "windows";
  return {
    env: (name) => io.env(name),
    readText: (path) => {
      try {
        return Deno.readTextFileSync(path);
      } catch {
        return null;
      }
    },
    userHome: (windows ? io.env("USERPROFILE") : io.env("HOME")) ?? "",
    os: Deno.build.os,
  };
}

/** Program, version, credentials and provider host of one harness. */
async function checkHarness(
  spec: HarnessSpec,
  io: Io,
): Promise<{ report: HarnessReport; lines: DoctorLine[] }> {
  const program = spec.command[0];
  const line = (
    check: string,
    mark: DoctorLine["mark"],
    text: string,
    hint: string | null = null,
  ) => ({
    section: "harnesses" as const,
    subject: spec.id,
    check,
    mark,
    text,
    hint,
  });
  const report: HarnessReport = {
    id: spec.id,
    label: spec.label,
    builtin: spec.builtin,
    program,
    path: null,
    version: null,
    versionAnswered: null,
    daemonStatus: null,
    credentials: null,
    provider: null,
  };
  const prober = systemProber({ PATH: io.env("PATH"), PATHEXT: io.env("PATHEXT") });
  report.path = await prober.find(program);
  if (report.path === null) {
    const lines = spec.builtin
      ? [
        line(
          "program",
          "warn",
          `not installed: "${program}" is not on PATH`,
          `to use it: npm install -g ${PACKAGES[spec.id] ?? program}`,
        ),
      ]
      : [
        line(
          "program",
          "fail",
          `"${program}" is not found (config.json harness)`,
          "install it, or fix its command in config.json",
        ),
      ];
    return { report, lines };
  }
  const lines: DoctorLine[] = [];
  if (spec.versionArgs !== null) {
    const version = await readVersion(report.path, spec.versionArgs, {
      timeoutMs: VERSION_TIMEOUT_MS,
      env: spec.probeEnv,
    });
    report.version = version.text;
    report.versionAnswered = version.answered;
    lines.push(
      version.answered
        ? line("program", "ok", `${report.path} (${version.text ?? "no version printed"})`)
        : line(
          "program",
          "warn",
          `${report.path} did not answer ${spec.versionArgs.join(" ")} with success within ${
            VERSION_TIMEOUT_MS / 1000
          } s`,
          "run it by hand to see why; the daemon reports it degraded",
        ),
    );
  } else {
    lines.push(line("program", "ok", `${report.path} (configured: no version probe)`));
  }
  const cli = knownCli(program);
  if (cli === null) return { report, lines };
  const provider = checkProvider(cli, providerFacts(io));
  report.credentials = { mark: provider.mark, found: provider.found };
  lines.push(line("credentials", provider.mark, provider.text, provider.hint));
  if (provider.endpoint === null) return { report, lines };
  const { host, port, source } = provider.endpoint;
  const answers = await tcpAnswers(host, port, CONNECT_TIMEOUT_MS);
  report.provider = { host, port, source, answers };
  const where = `${host}:${port} (${source === "default" ? "the vendor's default" : source})`;
  lines.push(
    answers ? line("provider", "ok", `${where} accepts a connection`) : line(
      "provider",
      "warn",
      `${where} does not accept a connection within ${CONNECT_TIMEOUT_MS / 1000} s`,
      "check the network, a proxy, or the base URL",
    ),
  );
  return { report, lines };
}

/** A warning when the running daemon sees a harness otherwise than this shell (another PATH). */
function daemonDisagrees(report: HarnessReport): DoctorLine[] {
  const status = report.daemonStatus;
  if (status === null) return [];
  const foundHere = report.path !== null;
  const foundThere = status !== "disabled";
  if (foundHere === foundThere) return [];
  return [{
    section: "harnesses",
    subject: report.id,
    check: "daemon",
    mark: "warn",
    text: foundHere
      ? `the running daemon reports it ${status}: its PATH lacks "${report.program}"`
      : `the running daemon finds it (${status}), this shell does not`,
    hint: 'restart the daemon from this shell, or "svc service install" again to record this PATH',
  }];
}

/** Whether the per-user service file exists where `svc service install` writes it. */
function serviceLine(io: Io): DoctorLine {
  const os = Deno.build.os;
  const line = (mark: DoctorLine["mark"], text: string, hint: string | null = null) => ({
    section: "service" as const,
    subject: "unit",
    check: "installed",
    mark,
    text,
    hint,
  });
  if (os !== "linux" && os !== "darwin" && os !== "windows") {
    return line("warn", `svc service does not support "${os}"`);
  }
  const homeDir = os === "windows" ? io.env("USERPROFILE") : io.env("HOME");
  if (!homeDir) return line("warn", "cannot tell: the home directory ($HOME) is unset");
  const path = serviceFilePath(os as ServiceOs, {
    homeDir,
    xdgConfigHome: io.env("XDG_CONFIG_HOME"),
    localAppData: io.env("LOCALAPPDATA"),
  });
  let installed = false;
  try {
    installed = Deno.statSync(path).isFile;
  } catch {
    installed = false;
  }
  return installed
    ? line("ok", `installed: ${path}`)
    : line("warn", `not installed (no ${path})`, 'to start svc at login: "svc service install"');
}
