import { join } from "node:path";
import { ConfigError } from "./config_error.ts";
import { isAbsoluteHostPath } from "../validate.ts";

/** The files of a home directory (D2). */
export interface HomePaths {
  readonly root: string;
  readonly socket: string;
  readonly lock: string;
  readonly db: string;
  /** The store's id (D24), named so that `rm svc.db*` leaves it: the mark of a used home. */
  readonly storeId: string;
  readonly config: string;
  readonly artifacts: string;
  readonly importDir: string;
  readonly logs: string;
  readonly logFile: string;
  /** Worktrees of isolated sessions and runs (D20). */
  readonly worktrees: string;
  /** Run results of routines whose `outputTarget` is the inbox (D21). */
  readonly inbox: string;
}

/** `--home`, else `$SVC_HOME`, else `~/.svc` (`%USERPROFILE%\.svc` on Windows) (D1). */
export function resolveHome(flag: string | undefined, env: (name: string) => string | undefined) {
  const chosen = flag ?? env("SVC_HOME");
  if (chosen) return chosen;
  const userHome = Deno.build.os === "windows" ? env("USERPROFILE") : env("HOME");
  if (!userHome) throw new ConfigError("Cannot find the home directory: set SVC_HOME or --home");
  return join(userHome, ".svc");
}

/**
 * The paths of home `root` (absolute after this call), judged for `os`
 * (the host's; `svc service` plans for the OS it writes a unit for).
 */
export function homePaths(root: string, os: typeof Deno.build.os = Deno.build.os): HomePaths {
  const abs = isAbsoluteHostPath(root, os) ? root : join(Deno.cwd(), root);
  return {
    root: abs,
    socket: join(abs, "svc.sock"),
    lock: join(abs, "svc.lock"),
    db: join(abs, "svc.db"),
    storeId: join(abs, "store.id"),
    config: join(abs, "config.json"),
    artifacts: join(abs, "artifacts"),
    importDir: join(abs, "import"),
    logs: join(abs, "logs"),
    logFile: join(abs, "logs", "daemon.log"),
    worktrees: join(abs, "worktrees"),
    inbox: join(abs, "inbox"),
  };
}

/**
 * Creates the home 0700 (chmod explicitly: mkdir's mode is masked), or
 * checks an existing one: a home that group or others can write is refused,
 * since anyone who can replace the socket can impersonate the daemon (C5.3).
 */
export function prepareHome(paths: HomePaths): void {
  try {
    const info = Deno.statSync(paths.root);
    if (!info.isDirectory) throw new ConfigError(`Home "${paths.root}" is not a directory`);
    if (Deno.build.os !== "windows" && info.mode !== null && (info.mode & 0o022) !== 0) {
      throw new ConfigError(
        `Home "${paths.root}" is writable by group or others (mode ${
          (info.mode & 0o777).toString(8)
        }): run chmod 700 on it`,
      );
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    Deno.mkdirSync(paths.root, { recursive: true, mode: 0o700 });
  }
  if (Deno.build.os !== "windows") Deno.chmodSync(paths.root, 0o700);
  for (const dir of [paths.logs, paths.artifacts]) {
    Deno.mkdirSync(dir, { recursive: true, mode: 0o700 });
  }
}
