/**
 * Every process the bench starts goes through one `ProcessRegistry`, so that a
 * failure, a timeout or Ctrl-C still ends all of them (by pid, never by name).
 */
import { fileURLToPath } from "node:url";
import { UnixHttpClient } from "./http_client.ts";

/** The repository's `main.ts`: the real `svc` program. */
export const MAIN = fileURLToPath(new URL("../../main.ts", import.meta.url));
/** Sibling scripts run as their own processes. */
export const LOAD_SCRIPT = fileURLToPath(new URL("./load.ts", import.meta.url));
export const BARE_SERVER_SCRIPT = fileURLToPath(new URL("./bare_server.ts", import.meta.url));
export const TICKER_SCRIPT = fileURLToPath(new URL("./ticker_harness.ts", import.meta.url));

/** Longest stderr tail kept per process (the pipe is always drained). */
const STDERR_TAIL_CHARS = 64 * 1024;

/** A started process, its collected stderr tail, and a bounded stop. */
export interface Tracked {
  readonly name: string;
  readonly child: Deno.ChildProcess;
  readonly pid: number;
  /** Resolves when the process exited. */
  readonly exited: Promise<Deno.CommandStatus>;
  hasExited(): boolean;
  stderr(): string;
  /** `signal`, then SIGKILL after `graceMs`; resolves with the exit status. */
  stop(signal?: Deno.Signal, graceMs?: number): Promise<Deno.CommandStatus>;
}

/** Tracks started processes and ends the ones still running. */
export class ProcessRegistry {
  readonly #live = new Set<Tracked>();
  #closed = false;

  /** Refuses new processes from now on (the run is ending). */
  close(): void {
    this.#closed = true;
  }

  /** Spawns `program args…` with stdin closed, stderr collected, stdout as asked. */
  spawn(
    name: string,
    program: string,
    args: string[],
    options: { stdout?: "piped" | "null"; env?: Record<string, string> } = {},
  ): Tracked {
    if (this.#closed) throw new Error(`Not starting ${name}: the bench is stopping`);
    const child = new Deno.Command(program, {
      args,
      env: { NO_COLOR: "1", ...options.env },
      stdin: "null",
      stdout: options.stdout ?? "null",
      stderr: "piped",
    }).spawn();
    let text = "";
    const reading = (async () => {
      try {
        for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) {
          text = (text + chunk).slice(-STDERR_TAIL_CHARS);
        }
      } catch { /* the pipe broke: keep what was read */ }
    })();
    let exited = false;
    const status = child.status.then(async (result) => {
      exited = true;
      this.#live.delete(tracked);
      await reading;
      return result;
    });
    const tracked: Tracked = {
      name,
      child,
      pid: child.pid,
      exited: status,
      hasExited: () => exited,
      stderr: () => text,
      stop: async (signal = "SIGTERM", graceMs = 15_000) => {
        if (!exited) signalProcess(child, signal);
        const timer = setTimeout(() => {
          if (!exited) signalProcess(child, "SIGKILL");
        }, graceMs);
        try {
          return await status;
        } finally {
          clearTimeout(timer);
        }
      },
    };
    this.#live.add(tracked);
    return tracked;
  }

  /** Stops every process still running (SIGTERM, then SIGKILL after `graceMs`). */
  async stopAll(graceMs = 10_000): Promise<void> {
    await Promise.allSettled([...this.#live].map((tracked) => tracked.stop("SIGTERM", graceMs)));
  }

  /** Synchronous last resort (an exit path that cannot await): SIGKILL everything. */
  killAllNow(): void {
    for (const tracked of this.#live) signalProcess(tracked.child, "SIGKILL");
  }
}

function signalProcess(child: Deno.ChildProcess, signal: Deno.Signal): void {
  try {
    child.kill(signal);
  } catch { /* already exited */ }
}

/** A server process whose socket answered `GET /api/v1/health`. */
export interface ServerProcess {
  readonly process: Tracked;
  readonly socket: string;
  /** Milliseconds from spawn to the first 200 answer. */
  readonly readyMs: number;
  stop(): Promise<Deno.CommandStatus>;
}

/**
 * Starts `svc serve --home home` (the real `main.ts`), optionally under
 * `--cpu-prof` and with more `serve` arguments (`--tcp 127.0.0.1:PORT`), and
 * waits until its socket answers `/health`.
 */
export async function startSvc(
  registry: ProcessRegistry,
  home: string,
  options: { cpuProfDir?: string; name?: string; args?: string[] } = {},
): Promise<ServerProcess> {
  const profile = options.cpuProfDir
    ? [
      "--cpu-prof",
      `--cpu-prof-dir=${options.cpuProfDir}`,
      `--cpu-prof-name=${options.name ?? "svc"}-${Date.now()}.cpuprofile`,
    ]
    : [];
  const started = performance.now();
  const process = registry.spawn(options.name ?? "svc serve", Deno.execPath(), [
    "run",
    "--allow-all",
    ...profile,
    MAIN,
    "serve",
    "--home",
    home,
    ...options.args ?? [],
  ]);
  return await awaitReady(process, `${home}/svc.sock`, started);
}

/** Starts a baseline server program (`deno run -A ARGS`) and waits until `socket` answers. */
export async function startServer(
  registry: ProcessRegistry,
  name: string,
  socket: string,
  args: string[],
): Promise<ServerProcess> {
  const started = performance.now();
  const process = registry.spawn(name, Deno.execPath(), ["run", "--allow-all", ...args]);
  return await awaitReady(process, socket, started);
}

/** Starts the bare `Deno.serve` baseline on `socket`, answering `bodyFile`'s JSON. */
export async function startBareServer(
  registry: ProcessRegistry,
  socket: string,
  bodyFile: string,
): Promise<ServerProcess> {
  const started = performance.now();
  const process = registry.spawn("bare Deno.serve", Deno.execPath(), [
    "run",
    "--allow-all",
    BARE_SERVER_SCRIPT,
    socket,
    bodyFile,
  ]);
  return await awaitReady(process, socket, started);
}

/** Polls `socket` every 2 ms (at most `timeoutMs`) until `/api/v1/health` answers 200. */
async function awaitReady(
  process: Tracked,
  socket: string,
  started: number,
  timeoutMs = 30_000,
): Promise<ServerProcess> {
  const deadline = started + timeoutMs;
  while (performance.now() < deadline) {
    if (process.hasExited()) {
      throw new Error(`${process.name} exited before answering: ${process.stderr().slice(-2000)}`);
    }
    let client: UnixHttpClient | null = null;
    try {
      client = await UnixHttpClient.connect(socket);
      const response = await client.request("GET", "/api/v1/health");
      if (response.status === 200) {
        const readyMs = performance.now() - started;
        return {
          process,
          socket,
          readyMs,
          stop: () => process.stop("SIGTERM"),
        };
      }
    } catch {
      // Not listening yet.
    } finally {
      client?.close();
    }
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  await process.stop("SIGKILL");
  throw new Error(`${process.name} did not answer within ${timeoutMs} ms`);
}

/** A process's resident set size in bytes (`VmRSS` of /proc/<pid>/status), or null. */
export function residentBytes(pid: number, field: "VmRSS" | "VmHWM" = "VmRSS"): number | null {
  try {
    const status = Deno.readTextFileSync(`/proc/${pid}/status`);
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status);
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}
