/**
 * Which processes belong to a session (issue 13), beyond its process group:
 *
 * - every session's process gets `SVC_SESSION_ID=<id>` in its environment,
 *   which its descendants inherit, daemonized ones (setsid, double fork)
 *   included; on Linux `/proc/<pid>/environ` finds them all;
 * - the leader's start time is recorded, so recovery after a crash signals
 *   the recorded group only while its leader is still that process, never
 *   one that merely reuses the id.
 *
 * macOS and Windows: no marker scan (their process environments are not
 * readable this way); macOS checks the leader's start time with `ps`;
 * Windows kills the leader's tree only while the daemon runs (docs/api.md).
 */

/** The environment variable that marks a session's processes. */
export const SESSION_MARKER = "SVC_SESSION_ID";

/**
 * An opaque start time of process `pid`, equal for the same process and
 * different for a later one with the same id; null when it is gone or the
 * OS does not say.
 */
export function processStartTime(pid: number): string | null {
  if (Deno.build.os === "linux") {
    try {
      const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
      // Field 22 (starttime), counted after the command name, which may hold spaces and ")".
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      return fields[19] ?? null;
    } catch {
      return null;
    }
  }
  if (Deno.build.os === "darwin") {
    try {
      const output = new Deno.Command("ps", { args: ["-o", "lstart=", "-p", String(pid)] })
        .outputSync();
      const text = new TextDecoder().decode(output.stdout).trim();
      return output.success && text !== "" ? text : null;
    } catch {
      return null;
    }
  }
  return null;
}

/**
 * The processes whose environment carries session `sessionId`'s marker
 * (Linux; elsewhere none are found), this daemon excluded.
 */
export function markedProcesses(sessionId: string): number[] {
  if (Deno.build.os !== "linux") return [];
  return [...scanMarkers()].filter(([, id]) => id === sessionId).map(([pid]) => pid);
}

/** Signals every marked process of the sessions, with one scan; returns how many. */
export function signalMarked(sessionIds: Iterable<string>, signal: Deno.Signal): number {
  const wanted = new Set(sessionIds);
  if (wanted.size === 0) return 0;
  let signalled = 0;
  for (const [pid, sessionId] of scanMarkers()) {
    if (!wanted.has(sessionId)) continue;
    try {
      Deno.kill(pid, signal);
      signalled++;
    } catch { /* exited meanwhile */ }
  }
  return signalled;
}

/**
 * Signals marked processes of many sessions with one `/proc` scan per
 * moment: 200 sessions ending together cost one scan, not 200.
 */
export class MarkedReaper {
  #pending = new Map<string, Deno.Signal>();
  #timer: ReturnType<typeof setTimeout> | null = null;

  /** Queues `signal` for session `sessionId`'s marked processes (SIGKILL wins over SIGTERM). */
  signal(sessionId: string, signal: Deno.Signal): void {
    if (Deno.build.os !== "linux") return;
    if (this.#pending.get(sessionId) !== "SIGKILL") this.#pending.set(sessionId, signal);
    this.#timer ??= setTimeout(() => this.#run(), 0);
  }

  #run(): void {
    this.#timer = null;
    const pending = this.#pending;
    this.#pending = new Map();
    for (const signal of new Set(pending.values())) {
      signalMarked([...pending].filter(([, s]) => s === signal).map(([id]) => id), signal);
    }
  }
}

/** Every process of this user carrying a session marker, with its session id (Linux). */
function* scanMarkers(): Iterable<[number, string]> {
  let entries: Iterable<Deno.DirEntry>;
  try {
    entries = Deno.readDirSync("/proc");
  } catch {
    return;
  }
  const prefix = `${SESSION_MARKER}=`;
  for (const entry of entries) {
    if (!/^\d+$/.test(entry.name) || Number(entry.name) === Deno.pid) continue;
    let environ: string;
    try {
      environ = Deno.readTextFileSync(`/proc/${entry.name}/environ`);
    } catch {
      continue;
    }
    for (const variable of environ.split("\0")) {
      if (variable.startsWith(prefix)) yield [Number(entry.name), variable.slice(prefix.length)];
    }
  }
}
