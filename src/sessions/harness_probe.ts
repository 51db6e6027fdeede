/**
 * Whether each harness program is installed (D3): found → `enabled`, missing
 * → `disabled`, a built-in whose version probe fails or times out →
 * `degraded`. The file system and processes sit behind `ProgramProber`, so the
 * decision is tested with a fake.
 */
import { posix, win32 } from "node:path";
import type { HarnessSpec } from "./harnesses.ts";
import type { OwnedProcesses } from "./owned_processes.ts";

/** A harness's status on this machine (D3). */
export type ProbeStatus = "enabled" | "disabled" | "degraded";

/** The outcome of probing one harness: its status and the program's resolved path. */
export interface ProbeResult {
  status: ProbeStatus;
  path: string | null;
}

/** The I/O a probe needs. */
export interface ProgramProber {
  /** The program's absolute path (PATH lookup for a bare name; an absolute path that is a file), or null. */
  find(program: string): Promise<string | null>;
  /** True when `path args…` exits 0 within `timeoutMs`, run with `env` added. */
  runVersion(
    path: string,
    args: string[],
    options: { timeoutMs: number; env: Readonly<Record<string, string>> },
  ): Promise<boolean>;
}

/** The environment `systemProber` looks programs up in. */
export interface ProbeEnv {
  PATH?: string;
  PATHEXT?: string;
}

/** Extensions Windows tries when PATHEXT is unset. */
const DEFAULT_PATHEXT = ".COM;.EXE;.BAT;.CMD";

/**
 * Where a bare program name may live, in lookup order: each absolute PATH
 * directory (relative entries are skipped), and on Windows each PATHEXT
 * extension unless the name already carries one.
 */
export function pathCandidates(program: string, env: ProbeEnv, windows: boolean): string[] {
  const path = windows ? win32 : posix;
  const dirs = (env.PATH ?? "").split(path.delimiter).filter((dir) => path.isAbsolute(dir));
  const extensions = (env.PATHEXT ?? DEFAULT_PATHEXT).split(";").filter((ext) => ext !== "");
  const hasExtension = extensions.some((ext) => program.toLowerCase().endsWith(ext.toLowerCase()));
  const names = !windows || hasExtension ? [program] : extensions.map((ext) => program + ext);
  return dirs.flatMap((dir) => names.map((name) => path.join(dir, name)));
}

/**
 * The real prober: stats files for `find`, runs `Deno.Command` for
 * `runVersion`, through `processes` when given so a stopping daemon kills
 * probes still running (issue 28 item 15).
 */
export function systemProber(
  env: ProbeEnv = { PATH: Deno.env.get("PATH"), PATHEXT: Deno.env.get("PATHEXT") },
  processes?: OwnedProcesses,
): ProgramProber {
  const windows = Deno.build.os === "windows";
  const path = windows ? win32 : posix;
  return {
    async find(program) {
      if (path.isAbsolute(program)) return (await fileMode(program)) !== null ? program : null;
      if (program.includes("/") || (windows && program.includes("\\"))) return null;
      for (const candidate of pathCandidates(program, env, windows)) {
        const mode = await fileMode(candidate);
        if (mode !== null && (windows || (mode & 0o111) !== 0)) return candidate;
      }
      return null;
    },
    runVersion: (program, args, options) =>
      runVersion(program, args, { ...options, windows, processes }),
  };
}

/** The permission bits of a regular file (0 where the platform has none), or null. */
async function fileMode(path: string): Promise<number | null> {
  try {
    const info = await Deno.stat(path);
    return info.isFile ? info.mode ?? 0 : null;
  } catch {
    return null;
  }
}

/**
 * Runs the version probe with no stdin and discarded output. On Unix the child
 * leads its own process group, so a timeout (or a stopping daemon) kills
 * whatever it started too; the child is always reaped and the timer always
 * cleared.
 */
async function runVersion(
  program: string,
  args: string[],
  { timeoutMs, env, windows, processes }: {
    timeoutMs: number;
    env: Readonly<Record<string, string>>;
    windows: boolean;
    processes: OwnedProcesses | undefined;
  },
): Promise<boolean> {
  let child: Deno.ChildProcess;
  try {
    const command = new Deno.Command(program, {
      args,
      env: { ...env },
      stdin: "null",
      stdout: "null",
      stderr: "null",
      detached: !windows,
    });
    child = processes?.spawn(command, { group: !windows, atStop: "kill" }) ?? command.spawn();
  } catch {
    return false;
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<null>((resolve) =>
    timer = setTimeout(() => resolve(null), timeoutMs)
  );
  try {
    const status = await Promise.race([child.status, timedOut]);
    if (status !== null) return status.success;
    killTree(child, windows);
    await child.status;
    return false;
  } finally {
    clearTimeout(timer);
  }
}

/** What a version probe printed, for `svc doctor`. */
export interface VersionText {
  /** True when the program exited 0 within the timeout. */
  answered: boolean;
  /** The first non-empty line it printed (stdout, else stderr), at most 200 characters, or null. */
  text: string | null;
}

/** The bytes of version output kept; the rest is read and dropped so the child never blocks. */
const VERSION_OUTPUT_BYTES = 4096;

/**
 * Runs `path args…` as the version probe does (no stdin, its own process
 * group, killed at `timeoutMs`), keeping the start of what it prints: the
 * daemon only needs "answered", `svc doctor` shows the version too.
 */
export async function readVersion(
  path: string,
  args: string[],
  { timeoutMs, env }: { timeoutMs: number; env: Readonly<Record<string, string>> },
): Promise<VersionText> {
  const windows = Deno.build.os === "windows";
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(path, {
      args,
      env: { ...env },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      detached: !windows,
    }).spawn();
  } catch {
    return { answered: false, text: null };
  }
  const reads = [readHead(child.stdout), readHead(child.stderr)];
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<null>((resolve) =>
    timer = setTimeout(() => resolve(null), timeoutMs)
  );
  try {
    const status = await Promise.race([child.status, timedOut]);
    if (status === null) {
      killTree(child, windows);
      await child.status;
    }
    // A grandchild may hold the pipes open: the reads get as long as the child had left.
    let readTimer: ReturnType<typeof setTimeout> | undefined;
    const [stdout, stderr] = await Promise.race([
      Promise.all(reads),
      new Promise<[string, string]>((resolve) =>
        readTimer = setTimeout(() => resolve(["", ""]), 500)
      ),
    ]).finally(() => clearTimeout(readTimer));
    const line = [stdout, stderr].flatMap((text) => text.split(/\r?\n/))
      .map((text) => text.trim()).find((text) => text !== "");
    return { answered: status?.success ?? false, text: line?.slice(0, 200) ?? null };
  } finally {
    clearTimeout(timer);
  }
}

/** The first VERSION_OUTPUT_BYTES of a stream as text; the rest is drained. */
async function readHead(stream: ReadableStream<Uint8Array>): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for await (const chunk of stream) {
      if (size < VERSION_OUTPUT_BYTES) chunks.push(chunk.subarray(0, VERSION_OUTPUT_BYTES - size));
      size += chunk.length;
    }
  } catch {
    // The stream closed under us (killed child): what came is enough.
  }
  const bytes = new Uint8Array(Math.min(size, VERSION_OUTPUT_BYTES));
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return new TextDecoder().decode(bytes);
}

/** Kills a probe and what it started (its process group on Unix). */
function killTree(child: Deno.ChildProcess, windows: boolean): void {
  try {
    if (windows) child.kill("SIGKILL");
    else Deno.kill(-child.pid, "SIGKILL");
  } catch {
    // It exited between the timeout and the kill.
  }
}

/**
 * Probes one harness (D3). `versions: false` only looks the program up
 * (found → `enabled`); with `versions: true` a built-in's version probe must
 * also answer within `timeoutMs`, else it is `degraded`.
 */
export async function probeHarness(
  spec: HarnessSpec,
  prober: ProgramProber,
  { timeoutMs, versions }: { timeoutMs: number; versions: boolean },
): Promise<ProbeResult> {
  const path = await prober.find(spec.command[0]);
  if (path === null) return { status: "disabled", path: null };
  if (!versions || !spec.builtin || spec.versionArgs === null) return { status: "enabled", path };
  const answered = await prober.runVersion(path, spec.versionArgs, {
    timeoutMs,
    env: spec.probeEnv,
  });
  return { status: answered ? "enabled" : "degraded", path };
}

/** Probes every harness of the registry concurrently, keyed by id. */
export async function probeAll(
  registry: ReadonlyMap<string, HarnessSpec>,
  prober: ProgramProber,
  options: { timeoutMs: number; versions: boolean },
): Promise<Map<string, ProbeResult>> {
  const specs = [...registry.values()];
  const results = await Promise.all(specs.map((spec) => probeHarness(spec, prober, options)));
  return new Map(specs.map((spec, index) => [spec.id, results[index]]));
}
