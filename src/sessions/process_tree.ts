/**
 * Which processes belong to a session (issue 13), beyond its process group:
 *
 * - every session's process gets `SVC_SESSION_ID=<id>`,
 *   `SVC_SESSION_HOME=<the daemon's home, real path>` and
 *   `SVC_SESSION_START=<which start of the session: 0 at launch, then one
 *   more per resume>` in its environment,
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
/**
 * The environment variable that names which start of the session (its
 * generation) a process belongs to: the sweep after one start's end must
 * spare the agent of the next (issue 38 item 5).
 */
export const GENERATION_MARKER = "SVC_SESSION_START";

/** The environment that marks a process as home `home`'s session `sessionId`, start `generation`. */
export function sessionMarkers(
  home: string,
  sessionId: string,
  generation: number,
): Record<string, string> {
  return { [SESSION_MARKER]: sessionId, [HOME_MARKER]: home, [GENERATION_MARKER]: `${generation}` };
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

/**
 * Signals the marked processes of home `home`'s sessions, with one scan;
 * returns how many. `sessions` maps a session id to the starts whose
 * processes are meant, or to null for all of its starts.
 */
export function signalMarked(
  home: string,
  sessions: ReadonlyMap<string, ReadonlySet<number> | null>,
  signal: Deno.Signal,
): number {
  if (sessions.size === 0) return 0;
  let signalled = 0;
  for (const [pid, sessionId, start] of scanMarkers(home)) {
    const starts = sessions.get(sessionId);
    if (starts === undefined || (starts !== null && !starts.has(Number(start ?? 0)))) continue;
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
  /** Signals queued per session start, keyed `<session id> <generation>`. */
  #pending = new Map<string, { sessionId: string; generation: number; signal: Deno.Signal }>();
  #timer: ReturnType<typeof setTimeout> | null = null;

  /** Reaps processes of home `home` only (its real path). */
  constructor(home: string) {
    this.#home = home;
  }

  /**
   * Queues `signal` for the marked processes of session `sessionId`'s start
   * `generation`, never those of another start (SIGKILL wins over SIGTERM).
   */
  signal(sessionId: string, generation: number, signal: Deno.Signal): void {
    if (Deno.build.os !== "linux") return;
    const key = `${sessionId} ${generation}`;
    if (this.#pending.get(key)?.signal !== "SIGKILL") {
      this.#pending.set(key, { sessionId, generation, signal });
    }
    this.#timer ??= setTimeout(() => this.#run(), 0);
  }

  #run(): void {
    this.#timer = null;
    const pending = [...this.#pending.values()];
    this.#pending = new Map();
    for (const signal of new Set(pending.map((entry) => entry.signal))) {
      const starts = new Map<string, Set<number>>();
      for (const entry of pending.filter((entry) => entry.signal === signal)) {
        const set = starts.get(entry.sessionId) ?? new Set();
        starts.set(entry.sessionId, set.add(entry.generation));
      }
      signalMarked(this.#home, starts, signal);
    }
  }
}

/**
 * Every process of this user carrying home `home`'s markers, with its
 * session id and start (null: unmarked, a launch of a daemon before starts were; read as 0) (Linux).
 */
function* scanMarkers(home: string): Iterable<[number, string, string | null]> {
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
      yield [Number(entry.name), markers.sessionId, markers.generation ?? null];
    }
  }
}

/** The markers in process `pid`'s environment; null when it cannot be read (Linux). */
function readMarkers(
  pid: number,
): { sessionId?: string; home?: string; generation?: string } | null {
  let environ: string;
  try {
    environ = Deno.readTextFileSync(`/proc/${pid}/environ`);
  } catch {
    return null;
  }
  const markers: { sessionId?: string; home?: string; generation?: string } = {};
  for (const variable of environ.split("\0")) {
    const at = variable.indexOf("=");
    const name = variable.slice(0, at);
    if (name === SESSION_MARKER) markers.sessionId = variable.slice(at + 1);
    else if (name === HOME_MARKER) markers.home = variable.slice(at + 1);
    else if (name === GENERATION_MARKER) markers.generation = variable.slice(at + 1);
  }
  return markers;
}
