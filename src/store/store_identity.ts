import type { DatabaseSync } from "node:sqlite";
import { ConfigError } from "../config/config_error.ts";
import { openDatabase } from "./db.ts";

/**
 * The store's identity (D24): a random id kept inside `svc.db` and beside it
 * in `svc.db.id`, so an empty, truncated, replaced or foreign database is
 * noticed at start instead of silently starting over, and a `svc.db`
 * deleted or replaced while the daemon runs is noticed too.
 */

/** What the store file was when the daemon opened it. */
export interface OpenedStore {
  db: DatabaseSync;
  id: string;
  /** `ok`, or `lost` once `svc.db` was deleted or replaced under the running daemon. */
  state(): "ok" | "lost";
}

/** How often a running daemon looks whether `svc.db` is still its file. */
const STATE_CHECK_MS = 250;

/** The id file beside the database. */
export function idFilePath(dbPath: string): string {
  return `${dbPath}.id`;
}

/**
 * Opens `dbPath` and checks its identity (D24); a store that must not be
 * used stops the daemon (ConfigError, exit 2) with what to do.
 */
export function openStore(dbPath: string): OpenedStore {
  for (const suffix of ["", "-wal", "-shm"]) refuseSymlink(dbPath + suffix);
  const idPath = idFilePath(dbPath);
  const expected = readId(idPath);
  const existed = fileSize(dbPath);
  if (expected !== null && (existed === null || existed === 0)) {
    throw new ConfigError(
      `The store "${dbPath}" is ${existed === null ? "missing" : "empty"}, but "${idPath}" says ` +
        `store ${expected} was here: restore it from a backup (svc store backup), or run ` +
        `"svc store reset" to start with an empty store on purpose`,
    );
  }
  let db: DatabaseSync;
  try {
    db = openDatabase(dbPath);
    const check = db.prepare("PRAGMA quick_check").all() as Array<{ quick_check: string }>;
    if (check.length !== 1 || check[0].quick_check !== "ok") {
      db.close();
      throw new Error(
        `quick_check found: ${check.slice(0, 3).map((r) => r.quick_check).join("; ")}`,
      );
    }
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(
      `The store "${dbPath}" cannot be used: ${(error as Error).message}. Restore it from a ` +
        `backup, or run "svc store reset" to move it aside and start with an empty store`,
    );
  }
  const stored = storedId(db);
  if (expected !== null && stored !== expected) {
    db.close();
    throw new ConfigError(
      `The store "${dbPath}" is ${stored === null ? "not the one svc made" : `store ${stored}`}, ` +
        `but "${idPath}" says store ${expected}: it was replaced. Put the right file back, or run ` +
        `"svc store reset" to start with an empty store on purpose`,
    );
  }
  const id = stored ?? crypto.randomUUID();
  if (stored === null) db.prepare("INSERT INTO store_meta (key, value) VALUES ('id', ?)").run(id);
  // A store made before D24, or one restored without its id file, gets the file now.
  if (expected === null) writeIdFile(idPath, id);
  const identity = inode(dbPath);
  // Checked at most every STATE_CHECK_MS: health and every mutation ask, a stat each is waste.
  let checkedAt = -Infinity;
  let state: "ok" | "lost" = "ok";
  return {
    db,
    id,
    state: () => {
      const now = performance.now();
      if (state === "ok" && now - checkedAt >= STATE_CHECK_MS) {
        checkedAt = now;
        const current = inode(dbPath);
        if (current === null || current !== identity) state = "lost";
      }
      return state;
    },
  };
}

function storedId(db: DatabaseSync): string | null {
  const row = db.prepare("SELECT value FROM store_meta WHERE key = 'id'").get() as
    | { value: string }
    | undefined;
  return row?.value ?? null;
}

function refuseSymlink(path: string): void {
  let info: Deno.FileInfo;
  try {
    info = Deno.lstatSync(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return;
    throw error;
  }
  if (info.isSymlink) {
    throw new ConfigError(
      `"${path}" is a symbolic link: svc keeps its store inside its home and does not follow ` +
        `links out of it. Move the real file here, or remove the link`,
    );
  }
}

function readId(path: string): string | null {
  try {
    const text = Deno.readTextFileSync(path).trim();
    return text === "" ? null : text;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
}

/** Written to a temporary file and renamed: the id file is whole or absent. */
function writeIdFile(path: string, id: string): void {
  const temporary = `${path}.tmp`;
  Deno.writeTextFileSync(temporary, id + "\n", { mode: 0o600 });
  Deno.renameSync(temporary, path);
}

function fileSize(path: string): number | null {
  try {
    return Deno.statSync(path).size;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
}

/** Device and inode of `path` (null when it is gone): a replaced file has another. */
function inode(path: string): string | null {
  try {
    const info = Deno.statSync(path);
    return `${info.dev}:${info.ino}`;
  } catch {
    return null;
  }
}
