import type { DatabaseSync } from "node:sqlite";
import { ConfigError } from "../config/config_error.ts";
import type { HomePaths } from "../config/home.ts";
import { openDatabase } from "./db.ts";

/**
 * The store's identity (D24): a random id kept inside `svc.db` and in the
 * home's `store.id`, a name `svc.db*` does not match, so an empty,
 * truncated, deleted, replaced or foreign database is noticed at start
 * instead of silently starting over (issue 28 item 8), and a `svc.db`
 * deleted or replaced while the daemon runs is noticed too. A home with a
 * `store.id` has been used: only `svc store reset` or `svc store restore`
 * makes it start from another store.
 */

/** What the store file was when the daemon opened it. */
export interface OpenedStore {
  db: DatabaseSync;
  id: string;
  /** `ok`, or `lost` once `svc.db` was deleted or replaced under the running daemon. */
  state(): "ok" | "lost";
}

/** The files of a home that hold its store and its identity. */
export type StorePaths = Pick<HomePaths, "db" | "storeId">;

/** How often a running daemon looks whether `svc.db` is still its file. */
const STATE_CHECK_MS = 250;

/** Where svc before issue 28 kept the id: `svc.db.id`, which `rm svc.db*` removes too. */
export function legacyIdPath(dbPath: string): string {
  return `${dbPath}.id`;
}

/** The store's files a reset or a restore moves aside: the database, its WAL, and its identity. */
export function storeFiles(paths: StorePaths): string[] {
  const { db } = paths;
  return [db, `${db}-wal`, `${db}-shm`, paths.storeId, legacyIdPath(db)];
}

/**
 * Opens the store of `paths` and checks its identity (D24); a store that
 * must not be used stops the daemon (ConfigError, exit 2) with what to do.
 */
export function openStore(paths: StorePaths): OpenedStore {
  const { db: dbPath, storeId: idPath } = paths;
  for (const file of storeFiles(paths)) refuseOddFile(file);
  const { expected, source } = expectedId(paths);
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
  const stored = readStoredId(db);
  if (expected !== null && stored !== expected) {
    db.close();
    throw new ConfigError(
      `The store "${dbPath}" is ${stored === null ? "not the one svc made" : `store ${stored}`}, ` +
        `but "${source}" says store ${expected}: it was replaced. Put the right file back, or ` +
        `run "svc store reset" to start with an empty store on purpose`,
    );
  }
  if (expected === null && stored !== null) {
    db.close();
    throw new ConfigError(
      `The store "${dbPath}" is store ${stored}, but "${idPath}" is missing: it came from ` +
        `another home, or this home's identity was deleted. To use it here on purpose, run ` +
        `"svc store restore ${dbPath}"; or run "svc store reset" to move it aside and start ` +
        `with an empty store`,
    );
  }
  const id = stored ?? crypto.randomUUID();
  try {
    // A new home, or a store from before D24 (no id anywhere): it gets its id now.
    if (stored === null) db.prepare("INSERT INTO store_meta (key, value) VALUES ('id', ?)").run(id);
    // The id moves out of svc.db.id (before issue 28), which `rm svc.db*` would remove with the store.
    if (source !== idPath) writeStoreId(idPath, id);
    removeIfPresent(legacyIdPath(dbPath));
  } catch (error) {
    db.close();
    throw error;
  }
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

/**
 * The id the home says its store has, and the file that says it (`store.id`,
 * else the `svc.db.id` of a home from before issue 28); refuses a store file
 * that is missing or empty although the home has been used, or empty in any
 * case.
 */
function expectedId(paths: StorePaths): { expected: string | null; source: string } {
  const { db: dbPath, storeId: idPath } = paths;
  const current = readId(idPath);
  const source = current !== null ? idPath : legacyIdPath(dbPath);
  const expected = current ?? readId(legacyIdPath(dbPath));
  const size = fileSize(dbPath);
  const remedy = `restore it from a backup ("svc store restore FILE"), or run "svc store reset" ` +
    `to start with an empty store on purpose`;
  if (expected !== null && (size === null || size === 0)) {
    throw new ConfigError(
      `The store "${dbPath}" is ${size === null ? "missing" : "empty"}, but "${source}" says ` +
        `store ${expected} was here: ${remedy}`,
    );
  }
  if (size === 0) {
    // svc writes the schema as it creates the file: an empty one was emptied, not new (or its
    // very first start crashed within milliseconds, when there was nothing to lose).
    throw new ConfigError(
      `The store "${dbPath}" is empty (0 bytes): it was truncated, and what it held is gone ` +
        `unless there is a backup: ${remedy}`,
    );
  }
  return { expected, source };
}

/** The id kept inside a store, or null (a store from before D24). */
export function readStoredId(db: DatabaseSync): string | null {
  const row = db.prepare("SELECT value FROM store_meta WHERE key = 'id'").get() as
    | { value: string }
    | undefined;
  return row?.value ?? null;
}

/** A link, a directory or a device where a store file belongs is refused: never followed. */
function refuseOddFile(path: string): void {
  let info: Deno.FileInfo;
  try {
    info = Deno.lstatSync(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return;
    throw error;
  }
  if (info.isSymlink) {
    throw new ConfigError(
      `"${path}" is a symbolic link: svc keeps its store and its identity inside its home and ` +
        `does not follow links out of it. Move the real file here, or run "svc store reset" to ` +
        `move the link aside and start with an empty store on purpose`,
    );
  }
  if (!info.isFile) {
    throw new ConfigError(
      `"${path}" is not a regular file: move it out of the home, or run "svc store reset" to ` +
        `move it aside and start with an empty store on purpose`,
    );
  }
}

/** The id in an id file, or null when there is none; an empty one was emptied, not new. */
function readId(path: string): string | null {
  let text: string;
  try {
    text = Deno.readTextFileSync(path).trim();
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
  if (text === "" || /\s/.test(text)) {
    throw new ConfigError(
      `"${path}" does not hold a store id: it was emptied or overwritten. Put it back from a ` +
        `backup of the home, or run "svc store reset" to start with an empty store on purpose`,
    );
  }
  return text;
}

/**
 * Writes `id` to `path` (0600) through a temporary file renamed over it, so
 * the id file is whole or absent; used by the daemon and `svc store restore`.
 */
export function writeStoreId(path: string, id: string): void {
  const temporary = `${path}.tmp`;
  removeIfPresent(temporary);
  const file = Deno.openSync(temporary, { write: true, createNew: true, mode: 0o600 });
  try {
    const bytes = new TextEncoder().encode(id + "\n");
    for (let written = 0; written < bytes.length;) {
      written += file.writeSync(bytes.subarray(written));
    }
    file.syncSync();
  } finally {
    file.close();
  }
  Deno.renameSync(temporary, path);
}

function removeIfPresent(path: string): void {
  try {
    Deno.removeSync(path);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
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
