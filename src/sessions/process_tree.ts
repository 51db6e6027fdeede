/**
 * Which processes belong to a session (issue 13), beyond its process group:
 *
 * - every session's process gets `SVC_SESSION_ID=<id>` and
 *   `SVC_SESSION_HOME=<the daemon's home, real path>` in its environment,
 *   which its descendants inherit, daemonized ones (setsid, double fork)
 *   included; on Linux `/proc/<pid>/environ` finds them all. Only both
 *   together mark a process as this home's: a store restored into another
 *   home holds the same session ids (issue 33 item 7);
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
/** The environment variable that names the home whose daemon started them. */
export const HOME_MARKER = "SVC_SESSION_HOME";

/** The environment that marks session `sessionId`'s processes as home `home`'s. */
export function sessionMarkers(home: string, sessionId: string): Record<string, string> {
  return { [SESSION_MARKER]: sessionId, [HOME_MARKER]: home };
}

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
 * The processes whose environment carries home `home`'s session
 * `sessionId` markers (Linux; elsewhere none are found), this daemon excluded.
 */
export function markedProcesses(home: string, sessionId: string): number[] {
  if (Deno.build.os !== "linux") return [];
  return [...scanMarkers(home)].filter(([, id]) => id === sessionId).map(([pid]) => pid);
}

/**
 * Whether process `pid` carries home `home`'s markers of session
 * `sessionId`: true on Linux only when its environment says so, elsewhere
 * (no environment to read) true.
 */
export function carriesMarkers(pid: number, home: string, sessionId: string): boolean {
  if (Deno.build.os !== "linux") return true;
  const markers = readMarkers(pid);
  return markers?.home === home && markers.sessionId === sessionId;
}

/** Signals every marked process of home `home`'s sessions, with one scan; returns how many. */
export function signalMarked(
  home: string,
  sessionIds: Iterable<string>,
  signal: Deno.Signal,
): number {
  const wanted = new Set(sessionIds);
  if (wanted.size === 0) return 0;
  let signalled = 0;
  for (const [pid, sessionId] of scanMarkers(home)) {
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
  readonly #home: string;
  #pending = new Map<string, Deno.Signal>();
  #timer: ReturnType<typeof setTimeout> | null = null;

  /** Reaps processes of home `home` only (its real path). */
  constructor(home: string) {
    this.#home = home;
  }

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
      signalMarked(
        this.#home,
        [...pending].filter(([, s]) => s === signal).map(([id]) => id),
        signal,
      );
    }
  }
}

/** Every process of this user carrying home `home`'s markers, with its session id (Linux). */
function* scanMarkers(home: string): Iterable<[number, string]> {
  let entries: Iterable<Deno.DirEntry>;
  try {
    entries = Deno.readDirSync("/proc");
  } catch {
    return;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry.name) || Number(entry.name) === Deno.pid) continue;
    const markers = readMarkers(Number(entry.name));
    if (markers?.home === home && markers.sessionId !== undefined) {
      yield [Number(entry.name), markers.sessionId];
    }
  }
}

/** The markers in process `pid`'s environment; null when it cannot be read (Linux). */
function readMarkers(pid: number): { sessionId?: string; home?: string } | null {
  let environ: string;
  try {
    environ = Deno.readTextFileSync(`/proc/${pid}/environ`);
  } catch {
    return null;
  }
  const markers: { sessionId?: string; home?: string } = {};
  for (const variable of environ.split("\0")) {
    const at = variable.indexOf("=");
    const name = variable.slice(0, at);
    if (name === SESSION_MARKER) markers.sessionId = variable.slice(at + 1);
    else if (name === HOME_MARKER) markers.home = variable.slice(at + 1);
  }
  return markers;
}
