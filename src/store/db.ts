import { DatabaseSync } from "node:sqlite";
import { MIGRATIONS } from "./migrations.ts";

/**
 * The page size of a new store: output events are kilobytes to 64 KiB, and
 * with 16 KiB pages storing them costs about 30% less than with SQLite's
 * default 4 KiB (fewer overflow pages and B-tree updates; issue 14).
 */
export const PAGE_BYTES = 16384;

/** WAL bytes between automatic checkpoints: SQLite's default of 1000 pages of 4 KiB. */
const CHECKPOINT_BYTES = 1000 * 4096;

/**
 * Opens the store at `path` (created 0600): WAL with `synchronous=NORMAL`,
 * which survives any process crash (kill -9) with every committed
 * transaction intact; a power loss may roll back the last few commits, never
 * corrupt the file (docs/operations.md). Applies pending migrations.
 */
export function openDatabase(path: string): DatabaseSync {
  const db = new DatabaseSync(path, { timeout: 5000 });
  try {
    // Takes effect only when the file is created; an older store keeps its page size.
    db.exec(`PRAGMA page_size = ${PAGE_BYTES}`);
    db.exec("PRAGMA journal_mode = WAL");
    db.exec("PRAGMA synchronous = NORMAL");
    db.exec("PRAGMA foreign_keys = ON");
    // SQLite's default checkpoints every 1000 pages: keep that many bytes whatever the page size.
    const { page_size } = db.prepare("PRAGMA page_size").get() as { page_size: number };
    db.exec(`PRAGMA wal_autocheckpoint = ${Math.ceil(CHECKPOINT_BYTES / page_size)}`);
    migrate(db);
  } catch (error) {
    db.close();
    throw error;
  }
  if (path !== ":memory:" && Deno.build.os !== "windows") {
    for (const suffix of ["", "-wal", "-shm"]) {
      try {
        Deno.chmodSync(path + suffix, 0o600);
      } catch (error) {
        if (!(error instanceof Deno.errors.NotFound)) throw error;
      }
    }
  }
  return db;
}

/** Brings the schema to the newest version, one transaction per migration. */
export function migrate(db: DatabaseSync): void {
  const row = db.prepare("PRAGMA user_version").get() as { user_version: number };
  const current = row.user_version;
  if (current > MIGRATIONS.length) {
    throw new Error(
      `Store schema version ${current} is newer than this svc (${MIGRATIONS.length}): upgrade svc`,
    );
  }
  for (let version = current + 1; version <= MIGRATIONS.length; version++) {
    transaction(db, () => {
      db.exec(MIGRATIONS[version - 1]);
      db.exec(`PRAGMA user_version = ${version}`);
    });
  }
}

/** Runs `fn` inside `BEGIN IMMEDIATE … COMMIT`, rolling back when it throws. */
export function transaction<T>(db: DatabaseSync, fn: () => T): T {
  db.exec("BEGIN IMMEDIATE");
  try {
    const result = fn();
    db.exec("COMMIT");
    return result;
  } catch (error) {
    if (db.isTransaction) db.exec("ROLLBACK");
    throw error;
  }
}
