/**
 * Starting harness processes, behind an interface so the supervisor and the
 * scheduler can be tested with a fake. The real spawner uses `Deno.Command`
 * with piped stdio in a new process group (`detached` calls setsid), so a
 * signal to `-pgid` reaches grandchildren too (deno-notes).
 */

/** How a process ended: exit code, or the signal that ended it. */
export interface ExitStatus {
  code: number;
  signal: string | null;
}

/** What to start. */
export interface SpawnRequest {
  argv: string[];
  cwd: string;
  /** Added to the daemon's environment (the session marker, process_tree.ts). */
  env?: Record<string, string>;
}

/** A started process. */
export interface SpawnedProcess {
  readonly pid: number;
  /** The process group it leads (its pid, after setsid). */
  readonly pgid: number;
  /** Byte streams (`type: "bytes"`): the supervisor reads them into a buffer of its own. */
  readonly stdout: ReadableStream<Uint8Array>;
  readonly stderr: ReadableStream<Uint8Array>;
  readonly stdin: WritableStream<Uint8Array>;
  readonly status: Promise<ExitStatus>;
  /** Signals the whole process group; a group that is gone is not an error. */
  killGroup(signal: Deno.Signal): void;
}

/** Starts processes; throws when the program cannot start (missing, not executable). */
export interface Spawner {
  spawn(request: SpawnRequest): SpawnedProcess;
}

/** Signals process group `pgid`; false when it no longer exists. */
export function killProcessGroup(pgid: number, signal: Deno.Signal): boolean {
  try {
    Deno.kill(Deno.build.os === "windows" ? pgid : -pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/** The real spawner. */
export const denoSpawner: Spawner = {
  spawn({ argv, cwd, env }) {
    const child = new Deno.Command(argv[0], {
      args: argv.slice(1),
      cwd,
      env,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
      detached: true,
    }).spawn();
    return {
      pid: child.pid,
      pgid: child.pid,
      stdout: child.stdout,
      stderr: child.stderr,
      stdin: child.stdin,
      status: child.status.then((status) => ({ code: status.code, signal: status.signal })),
      killGroup: (signal) => {
        if (!killProcessGroup(child.pid, signal)) {
          try {
            child.kill(signal);
          } catch { /* already exited */ }
        }
      },
    };
  },
};
