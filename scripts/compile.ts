/**
 * `deno task compile`: one self-contained `svc` executable per release target,
 * `dist/svc-<target>[.exe]`, plus `dist/SHA256SUMS`.
 *
 * The version (`git describe --tags --dirty --always`) is stamped into a
 * temporary copy of the sources (`scripts/stamp_version.ts`) and each binary is
 * compiled from that copy, so the working tree is never modified.
 *
 * `deno compile` downloads Deno's runtime (`denort`) for each target from
 * dl.deno.land. Where that host is unreachable (our build machines), this
 * script stops at the first target with a one-line explanation and exit 1:
 * build releases on a machine with internet access (docs/release.md).
 *
 *   deno task compile [--target T]... [--out-dir DIR] [--version V]
 */
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { PROVIDER_ENV_VARS } from "../src/cli/doctor_providers.ts";
import { BuildError } from "./bundle.ts";
import { describeVersion, REPO_ROOT, stageStampedTree } from "./stamp_version.ts";

/** The release targets, in build order. */
export const TARGETS = [
  "x86_64-unknown-linux-gnu",
  "aarch64-unknown-linux-gnu",
  "x86_64-apple-darwin",
  "aarch64-apple-darwin",
  "x86_64-pc-windows-msvc",
] as const;

/** One release target. */
export type Target = typeof TARGETS[number];

/** The checksum file written next to the binaries. */
export const SHA256SUMS = "SHA256SUMS";

/**
 * The environment variables the daemon and the CLI read (docs/release.md).
 * tests/scripts/compile_test.ts fails when src/ reads a name missing here.
 * `TZ` is read by the runtime itself (Temporal), listed for clarity.
 */
export const ENV_VARS: readonly string[] = [
  "HOME",
  "SVC_HOME",
  // The context a CLI command talks to (D32).
  "SVC_CONTEXT",
  "CODEX_HOME",
  "PATH",
  "PATHEXT",
  "USERPROFILE",
  "NO_COLOR",
  "TZ",
  // svc service (src/cli/service.ts): the unit's location, user and PATH.
  "USERNAME",
  "USERDOMAIN",
  "XDG_CONFIG_HOME",
  "LOCALAPPDATA",
  "APPDATA",
  // deno task sets INIT_CWD to the user's directory (the CLI resolves paths against it).
  "INIT_CWD",
  // svc worktrees diff: the user's pager.
  "PAGER",
  "LESS",
  // svc ui (D25): every variable Ink, React, chalk's colour detection, ansi-escapes and
  // is-in-ci read (listed from the bundle; any other read fails the binary), and EDITOR_URL of
  // React's devtools, which load only with DEV=true.
  "NODE_ENV",
  "DEV",
  "TERM",
  "TERM_PROGRAM",
  "TERM_PROGRAM_VERSION",
  "COLORTERM",
  "FORCE_COLOR",
  "TMUX",
  "CI",
  "CONTINUOUS_INTEGRATION",
  "CI_NAME",
  "TF_BUILD",
  "AGENT_NAME",
  "TEAMCITY_VERSION",
  "GITHUB_ACTIONS",
  "GITEA_ACTIONS",
  "CIRCLECI",
  "TRAVIS",
  "APPVEYOR",
  "GITLAB_CI",
  "BUILDKITE",
  "DRONE",
  "INK_SCREEN_READER",
  "EDITOR_URL",
  // D33: Gemini CLI's home, where svc discovers its sessions (the other agents' homes are below).
  "GEMINI_CLI_HOME",
  // svc doctor (issue 27 item 13): whether each agent CLI's credentials and provider settings are
  // present (never their values) and the base URL it would connect to.
  ...PROVIDER_ENV_VARS,
];

/**
 * The permissions baked into every binary; docs/release.md explains each.
 * Unscoped where the resource is only known at run time: the home
 * (`--home`/`SVC_HOME`/`~/.svc`), project roots, harness programs from the
 * config and PATH, and the socket path (`--allow-net=unix:<path>` matches one
 * exact path, no prefix or wildcard). `--allow-sys` is unscoped because
 * `Deno.umask` has no `--allow-sys=<name>` descriptor. No `--allow-ffi`,
 * `--allow-import`, and env limited to `ENV_VARS`.
 */
export const PERMISSION_FLAGS: readonly string[] = [
  "--no-prompt",
  "--allow-read",
  "--allow-write",
  "--allow-run",
  "--allow-net",
  "--allow-sys",
  `--allow-env=${ENV_VARS.join(",")}`,
];

/** Whether `value` names a release target. */
export function isTarget(value: string): value is Target {
  return (TARGETS as readonly string[]).includes(value);
}

/** `svc-<target>`, with `.exe` for Windows. */
export function binaryName(target: Target): string {
  return `svc-${target}${target.includes("windows") ? ".exe" : ""}`;
}

/** Options of `compileArgs`. */
export interface CompileArgsOptions {
  /** Directory of the binaries (absolute, or relative to the staged copy). */
  outDir: string;
  /** Entry module, relative to the staged copy (default `main.ts`). */
  entry?: string;
}

/** The `deno` arguments that compile the staged entry for `target` (pure). */
export function compileArgs(target: Target, options: CompileArgsOptions): string[] {
  return [
    "compile",
    ...PERMISSION_FLAGS,
    // The owner-only named pipe is created through FFI (src/transport/named_pipe_windows.ts).
    ...(target.includes("windows") ? ["--allow-ffi"] : []),
    "--target",
    target,
    "--output",
    join(options.outDir, binaryName(target)),
    options.entry ?? "main.ts",
  ];
}

/** One line of `sha256sum` output: `<hex>  <file>` (two spaces: binary-safe text mode). */
export function sha256sumsLine(hex: string, fileName: string): string {
  if (!/^[0-9a-f]{64}$/.test(hex)) throw new Error(`Not a SHA-256 hex digest: "${hex}"`);
  if (fileName.includes("\n")) throw new Error(`A file name with a newline: "${fileName}"`);
  return `${hex}  ${fileName}`;
}

/** The whole SHA256SUMS text for `[hex, fileName]` pairs, sorted by file name. */
export function sha256sumsText(entries: ReadonlyArray<readonly [string, string]>): string {
  const sorted = [...entries].sort(([, a], [, b]) => a < b ? -1 : a > b ? 1 : 0);
  return sorted.map(([hex, name]) => sha256sumsLine(hex, name) + "\n").join("");
}

/** The SHA-256 of a file, lowercase hex. */
export async function sha256File(path: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", await Deno.readFile(path));
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** Strips ANSI colour codes (Deno colours its errors unless NO_COLOR is set). */
function plain(text: string): string {
  // deno-lint-ignore no-control-regex
  return text.replace(/\x1b\[[0-9;]*m/g, "");
}

const NETWORK_SIGNS = [
  /dns error/i,
  /failed to lookup address/i,
  /error sending request/i,
  /client error \(Connect\)/i,
  /connection refused/i,
  /connection reset/i,
  /network is unreachable/i,
  /timed out/i,
  /certificate/i,
];

/** Whether deno compile's output says it could not download `denort`. */
export function isDenortDownloadFailure(stderr: string): boolean {
  const text = plain(stderr);
  const aboutRuntime = /denort|dl\.deno\.land|Setting up base binary/i.test(text);
  return aboutRuntime && NETWORK_SIGNS.some((sign) => sign.test(text));
}

/** The most specific cause line of a Rust error chain (`4: failed to lookup …`), if any. */
function rootCause(stderr: string): string | null {
  const causes = plain(stderr).split("\n")
    .map((line) => line.match(/^\s*\d+:\s+(.*\S)\s*$/)?.[1])
    .filter((line): line is string => line !== undefined && !/^<unknown>$/.test(line));
  return causes.at(-1) ?? null;
}

/**
 * The user-facing message for a failed `deno compile` of `target`: a
 * one-line explanation for a `denort` download failure, otherwise deno's own
 * error without the backtrace.
 */
export function explainCompileFailure(target: Target, stderr: string): string {
  if (isDenortDownloadFailure(stderr)) {
    const cause = rootCause(stderr);
    return `deno compile could not download its runtime (denort) for ${target}: ` +
      `no network access to dl.deno.land${cause ? ` (${cause})` : ""}; ` +
      "build releases on a machine with internet access (docs/release.md)";
  }
  const text = plain(stderr).split(/\n\s*Stack backtrace:/)[0].trim();
  return `deno compile failed for ${target}${text ? `:\n${text}` : ""}`;
}

/** Options of `compileAll`. */
export interface CompileOptions {
  targets?: readonly Target[];
  /** Output directory; relative paths are taken from `root` (default `dist`). */
  outDir?: string;
  version?: string;
  root?: string;
  /** Progress lines (default: stderr). */
  log?: (line: string) => void;
}

/** What `compileAll` produced. */
export interface CompileResult {
  readonly version: string;
  readonly binaries: readonly string[];
  readonly sumsFile: string;
}

/**
 * Compiles every target, then writes SHA256SUMS. Stops at the first failure
 * with a `BuildError` (no SHA256SUMS is written, a stale one is removed first,
 * so a checksum file always matches a complete set).
 */
export async function compileAll(options: CompileOptions = {}): Promise<CompileResult> {
  const root = options.root ?? REPO_ROOT;
  const targets = options.targets ?? TARGETS;
  const outDir = resolve(root, options.outDir ?? "dist");
  const log = options.log ?? ((line: string) => console.error(line));
  const denortBin = Deno.env.get("DENORT_BIN");
  if (denortBin && targets.length !== 1) {
    throw new BuildError(
      `DENORT_BIN is set (${denortBin}): it is one target's runtime, so pass exactly one --target`,
    );
  }
  const version = options.version ?? await describeVersion(root);
  await Deno.mkdir(outDir, { recursive: true });
  const sumsFile = join(outDir, SHA256SUMS);
  await Deno.remove(sumsFile).catch(() => {});
  await using staged = await stageStampedTree(root, version);
  const binaries: string[] = [];
  for (const target of targets) {
    log(`svc compile: ${target} (version ${version})`);
    const output = await new Deno.Command(Deno.execPath(), {
      args: compileArgs(target, { outDir }),
      cwd: staged.dir,
      env: { NO_COLOR: "1", RUST_BACKTRACE: "0" },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!output.success) {
      const decoder = new TextDecoder();
      throw new BuildError(
        explainCompileFailure(
          target,
          decoder.decode(output.stderr) + "\n" + decoder.decode(output.stdout),
        ),
      );
    }
    binaries.push(join(outDir, binaryName(target)));
  }
  const entries: Array<[string, string]> = [];
  for (const target of targets) {
    const name = binaryName(target);
    entries.push([await sha256File(join(outDir, name)), name]);
  }
  await Deno.writeTextFile(sumsFile, sha256sumsText(entries));
  return { version, binaries, sumsFile };
}

async function main(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      target: { type: "string", multiple: true },
      "out-dir": { type: "string" },
      version: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    console.log(
      "Usage: deno task compile [--target T]... [--out-dir DIR] [--version V]\n\n" +
        `Targets (default all): ${TARGETS.join(", ")}.\n` +
        "Writes DIR/svc-<target>[.exe] and DIR/SHA256SUMS (DIR defaults to dist).\n" +
        "Needs internet access: deno compile downloads its runtime from dl.deno.land.",
    );
    return 0;
  }
  const targets: Target[] = [];
  for (const value of values.target ?? []) {
    if (!isTarget(value)) {
      throw new BuildError(`unknown target "${value}" (one of: ${TARGETS.join(", ")})`);
    }
    targets.push(value);
  }
  const result = await compileAll({
    targets: targets.length > 0 ? targets : TARGETS,
    outDir: values["out-dir"],
    version: values.version,
  });
  for (const binary of result.binaries) console.log(binary);
  console.log(result.sumsFile);
  return 0;
}

if (import.meta.main) {
  try {
    Deno.exit(await main(Deno.args));
  } catch (error) {
    console.error(`svc compile: ${(error as Error).message}`);
    Deno.exit(1);
  }
}
