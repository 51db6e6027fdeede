/**
 * The home part of `svc doctor` (issue 27 item 13): the home directory's
 * safety, the daemon on its socket, and the store's files (D24). Reading the
 * machine (`readHomeFacts`, `readStoreFacts`, `queryDaemon`) is kept apart
 * from judging it (`homeLines`, `storeLine`, pure).
 */
import { DatabaseSync } from "node:sqlite";
import { SvcClient } from "../client/client.ts";
import type { Health } from "../client/client.ts";
import type { HomePaths } from "../config/home.ts";
import type { CapabilityRecord } from "../sessions/capabilities.ts";
import { readStoredId } from "../store/store_identity.ts";
import { localEndpoint } from "../transport/local_endpoint.ts";
import { probeSocket, type SocketState } from "../transport/socket_probe.ts";
import type { DoctorLine } from "./doctor_report.ts";

/** How long the daemon gets to answer `/health` and `/capabilities`. */
const DAEMON_TIMEOUT_MS = 3_000;

/** The home directory as found. */
export interface HomeFacts {
  path: string;
  exists: boolean;
  isDirectory: boolean;
  /** Permission bits, or null where the platform has none (Windows). */
  mode: number | null;
  /** The owner's uid, or null where the platform has none. */
  uid: number | null;
  /** This process's uid, or null on Windows. */
  myUid: number | null;
}

/** The daemon as its socket answered. */
export interface DaemonView {
  socket: string;
  /** `absent`, `stale`, `not_socket`, `live` (named pipes: `live` or `absent`). */
  socketState: SocketState;
  health: Health | null;
  /** `/health`'s `store` field (`ok`, `degraded`, `lost`), or null when no daemon answers. */
  store: string | null;
  /** Each harness's capability status, by harness id, or null when no daemon answers. */
  harnesses: Map<string, string> | null;
  /** The notification channels with their last delivery (D31), or null when no daemon answers. */
  notifications: NotificationChannelView[] | null;
}

/** A channel as `GET /notifications` shows it. */
export interface NotificationChannelView {
  channel: string;
  kind: string;
  last: { status: string; at: string; error: string | null } | null;
}

/** The store's files as found, for a home without a running daemon. */
export interface StoreFacts {
  dbPath: string;
  dbSize: number | null;
  /** `store.id`'s text (trimmed), `""` when empty, null when missing. */
  fileId: string | null;
  /** The id inside svc.db: a string, null (none), or an Error when it cannot be read. */
  storedId: string | null | Error;
}

/** Reads the home directory's type, mode and owner. */
export function readHomeFacts(paths: HomePaths): HomeFacts {
  const myUid = Deno.build.os === "windows" ? null : Deno.uid();
  try {
    const info = Deno.statSync(paths.root);
    return {
      path: paths.root,
      exists: true,
      isDirectory: info.isDirectory,
      mode: Deno.build.os === "windows" ? null : info.mode,
      uid: info.uid,
      myUid,
    };
  } catch {
    return { path: paths.root, exists: false, isDirectory: false, mode: null, uid: null, myUid };
  }
}

/** Asks the home's daemon for `/health` and `/capabilities`, each bounded by DAEMON_TIMEOUT_MS. */
export async function queryDaemon(paths: HomePaths): Promise<DaemonView> {
  const local = await localEndpoint(paths);
  const view: DaemonView = {
    socket: local.address,
    socketState: "absent",
    health: null,
    store: null,
    harnesses: null,
    notifications: null,
  };
  if ("socketPath" in local.target) {
    try {
      view.socketState = await probeSocket(local.target.socketPath);
    } catch {
      view.socketState = "stale";
    }
    if (view.socketState !== "live") return view;
  }
  const client = new SvcClient(local.target);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<null>((resolve) =>
    timer = setTimeout(() => resolve(null), DAEMON_TIMEOUT_MS)
  );
  try {
    const health = await Promise.race([client.health().catch(() => null), deadline]);
    if (health === null) return view;
    view.socketState = "live";
    view.health = health;
    view.store = typeof health.store === "string" ? health.store : null;
    const capabilities = await Promise.race([
      client.get<{ capabilities: CapabilityRecord[] }>("/capabilities").catch(() => null),
      deadline,
    ]);
    if (capabilities?.ok) {
      view.harnesses = new Map(
        capabilities.body.capabilities
          .filter((record) => record.id.startsWith("svc.harness."))
          .map((record) => [record.owner, record.status]),
      );
    }
    const notifications = await Promise.race([
      client.get<{ channels: NotificationChannelView[] }>("/notifications").catch(() => null),
      deadline,
    ]);
    if (notifications?.ok) view.notifications = notifications.body.channels;
    return view;
  } finally {
    clearTimeout(timer);
    client.close();
  }
}

/** Reads svc.db's size, store.id, and (read-only) the id inside svc.db. */
export function readStoreFacts(paths: HomePaths): StoreFacts {
  let dbSize: number | null = null;
  try {
    dbSize = Deno.statSync(paths.db).size;
  } catch {
    dbSize = null;
  }
  let fileId: string | null = null;
  try {
    fileId = Deno.readTextFileSync(paths.storeId).trim();
  } catch {
    fileId = null;
  }
  let storedId: string | null | Error = null;
  if (dbSize !== null && dbSize > 0) {
    try {
      const db = new DatabaseSync(paths.db, { readOnly: true, timeout: 1000 });
      try {
        storedId = readStoredId(db);
      } finally {
        db.close();
      }
    } catch (error) {
      storedId = error instanceof Error ? error : new Error(String(error));
    }
  }
  return { dbPath: paths.db, dbSize, fileId, storedId };
}

function homeLine(
  subject: string,
  check: string,
  mark: DoctorLine["mark"],
  text: string,
  hint: string | null = null,
): DoctorLine {
  return { section: "home", subject, check, mark, text, hint };
}

/** The home's safety and the daemon's answer. */
export function homeLines(home: HomeFacts, daemon: DaemonView): DoctorLine[] {
  const lines: DoctorLine[] = [];
  if (!home.exists) {
    lines.push(
      homeLine(
        "home",
        "directory",
        "warn",
        `${home.path} does not exist yet`,
        "svc serve creates it (0700)",
      ),
    );
  } else if (!home.isDirectory) {
    lines.push(
      homeLine("home", "directory", "fail", `${home.path} is not a directory`, "move it aside"),
    );
  } else if (home.uid !== null && home.myUid !== null && home.uid !== home.myUid) {
    lines.push(
      homeLine(
        "home",
        "directory",
        "fail",
        `${home.path} belongs to uid ${home.uid}, not to you (${home.myUid})`,
        `chown it to yourself, or use another --home`,
      ),
    );
  } else if (home.mode !== null && (home.mode & 0o077) !== 0) {
    const mode = (home.mode & 0o777).toString(8);
    lines.push(
      homeLine(
        "home",
        "directory",
        "fail",
        `${home.path} is mode ${mode}: group or others can reach the socket and the store`,
        `chmod 700 ${home.path}`,
      ),
    );
  } else {
    const mode = home.mode === null ? "" : ` (mode ${(home.mode & 0o777).toString(8)})`;
    lines.push(homeLine("home", "directory", "ok", `${home.path}, yours and owner-only${mode}`));
  }
  const health = daemon.health;
  if (health !== null) {
    lines.push(
      homeLine(
        "daemon",
        "socket",
        "ok",
        `running: pid ${health.pid}, svc ${health.svcVersion}, on ${daemon.socket}`,
      ),
    );
  } else if (daemon.socketState === "not_socket") {
    lines.push(
      homeLine(
        "daemon",
        "socket",
        "fail",
        `${daemon.socket} is not a socket: svc serve will not start`,
        "move it out of the home",
      ),
    );
  } else if (daemon.socketState === "live") {
    lines.push(
      homeLine(
        "daemon",
        "socket",
        "warn",
        `${daemon.socket} accepts connections but does not answer /health within ${
          DAEMON_TIMEOUT_MS / 1000
        } s`,
        'see "svc logs"',
      ),
    );
  } else {
    const why = daemon.socketState === "stale"
      ? "a socket file left behind, nothing answers"
      : "no socket";
    lines.push(
      homeLine(
        "daemon",
        "socket",
        "warn",
        `the daemon is not running (${why}: ${daemon.socket})`,
        'start it: "svc serve", or "svc service install"',
      ),
    );
  }
  return lines;
}

const STORE_REMEDY = '"svc store restore FILE" from a backup, or "svc store reset" to start empty';

/**
 * The store's verdict: a running daemon's `/health` `store` when there is
 * one (it ran `PRAGMA quick_check` as it opened the store), else the D24
 * identity of the files, as `svc serve` will judge them at start. svc doctor
 * runs no quick_check itself: it can take long on a big store.
 */
export function storeLine(facts: StoreFacts, daemon: DaemonView): DoctorLine {
  const line = (mark: DoctorLine["mark"], text: string, hint: string | null = null) =>
    homeLine("store", "svc.db", mark, text, hint);
  if (daemon.store !== null) {
    if (daemon.store === "ok") {
      return line("ok", `${facts.dbPath}: the running daemon reports it ok`);
    }
    if (daemon.store === "lost") {
      return line(
        "fail",
        `${facts.dbPath} was deleted or replaced under the running daemon`,
        `stop the daemon, then ${STORE_REMEDY}`,
      );
    }
    return line(
      "warn",
      `the running daemon reports the store ${daemon.store} (writes refused: disk full or read-only?)`,
      'see "svc logs"',
    );
  }
  const { dbSize, fileId, storedId } = facts;
  if (fileId === "") {
    return line("fail", "store.id is empty: svc serve will refuse to start", STORE_REMEDY);
  }
  if (dbSize === null && fileId === null) {
    return line("warn", `no store yet (${facts.dbPath})`, "svc serve creates it");
  }
  if (fileId !== null && (dbSize === null || dbSize === 0)) {
    return line(
      "fail",
      `${facts.dbPath} is ${
        dbSize === null ? "missing" : "empty"
      }, but store.id says a store was here: svc serve will refuse to start`,
      STORE_REMEDY,
    );
  }
  if (dbSize === 0) {
    return line(
      "fail",
      `${facts.dbPath} is empty (0 bytes): svc serve will refuse to start`,
      STORE_REMEDY,
    );
  }
  if (storedId instanceof Error) {
    return line(
      "warn",
      `${facts.dbPath} cannot be read: ${storedId.message}`,
      "svc serve checks it as it starts",
    );
  }
  if (fileId === null) {
    return storedId === null
      ? line(
        "warn",
        `${facts.dbPath} has no id yet (a store from before D24)`,
        "svc serve gives it one",
      )
      : line(
        "fail",
        `${facts.dbPath} has an id but store.id is missing: it came from another home`,
        STORE_REMEDY,
      );
  }
  if (storedId !== fileId) {
    return line(
      "fail",
      `${facts.dbPath} is not the store store.id names: it was replaced`,
      STORE_REMEDY,
    );
  }
  return line("ok", `${facts.dbPath} and store.id match (svc serve runs quick_check as it starts)`);
}
