import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository's `main.ts`, run as the real `svc` program. */
export const MAIN = fileURLToPath(new URL("../../main.ts", import.meta.url));

/**
 * This test process's Deno cache (Linux's default place, read before any test
 * changes the environment). A `svc` started with another HOME or
 * XDG_CACHE_HOME (a real agent's isolated one) keeps it: an empty cache would
 * fetch every module again, and under load that outlasted startServe's wait.
 */
const TEST_DENO_DIR: Record<string, string> = ((): Record<string, string> => {
  const set = Deno.env.get("DENO_DIR");
  if (set) return { DENO_DIR: set };
  if (Deno.build.os !== "linux") return {};
  const cache = Deno.env.get("XDG_CACHE_HOME") ?? join(Deno.env.get("HOME") ?? "/", ".cache");
  return { DENO_DIR: join(cache, "deno") };
})();

/**
 * Runs `svc …` to completion and returns its exit code and output; with
 * `timeoutMs`, a command still running then is killed (SIGKILL, exit 137), so
 * a hang fails its test instead of stalling the suite.
 */
export async function runSvc(
  args: string[],
  env: Record<string, string> = {},
  { timeoutMs }: { timeoutMs?: number } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", MAIN, ...args],
    env: { NO_COLOR: "1", ...TEST_DENO_DIR, ...env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const timer = timeoutMs === undefined
    ? undefined
    : setTimeout(() => child.kill("SIGKILL"), timeoutMs);
  const output = await child.output().finally(() => clearTimeout(timer));
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

/** A `svc serve` process, started and waited for until its socket answers. */
export interface ServeProcess {
  readonly child: Deno.ChildProcess;
  /** Collected stderr text (filled while the process runs). */
  stderr(): string;
  /** Sends a signal and waits for the exit status. */
  stop(signal?: Deno.Signal): Promise<Deno.CommandStatus>;
}

/**
 * Starts `svc serve --home home …` and waits until `socket` accepts
 * connections. `env` is added to the daemon's environment (its sessions inherit it).
 */
export async function startServe(
  home: string,
  extraArgs: string[] = [],
  env: Record<string, string> = {},
  /** A program that runs the daemon's command line (`prlimit --nofile=…`). */
  wrapper: string[] = [],
): Promise<ServeProcess> {
  const command = [Deno.execPath(), "run", "--allow-all", MAIN, "serve", "--home", home];
  const [program, ...args] = [...wrapper, ...command, ...extraArgs];
  const child = new Deno.Command(program, {
    args,
    env: { NO_COLOR: "1", ...TEST_DENO_DIR, ...env },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let text = "";
  const reading = (async () => {
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) text += chunk;
  })();
  const socket = `${home}/svc.sock`;
  const deadline = Date.now() + 20_000;
  let exited = false;
  child.status.then(() => exited = true);
  while (!exited) {
    try {
      const conn = await Deno.connect({ transport: "unix", path: socket });
      conn.close();
      break;
    } catch {
      if (Date.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  let status: Promise<Deno.CommandStatus> | null = null;
  return {
    child,
    stderr: () => text,
    stop: async (signal = "SIGTERM") => {
      if (!exited) {
        try {
          child.kill(signal);
        } catch { /* already exited */ }
      }
      status ??= child.status;
      const result = await status;
      await reading;
      return result;
    },
  };
}

/** Whether process `pid` exists and is not a zombie (Linux `/proc`). */
export function alive(pid: number): boolean {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    return !stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return false;
  }
}
