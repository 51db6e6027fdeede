import { DatabaseSync } from "node:sqlite";
import { MIGRATIONS } from "./migrations.ts";

/**
 * Opens the store at `path` (created 0600): WAL with `synchronous=NORMAL`,
 * which survives any process crash (kill -9) with every committed
 * transaction intact; a power loss may roll back the last few commits, never
 * corrupt the file (docs/operations.md). Applies pending migrations.
 */
export function openDatabase(path: string): DatabaseSync {
  const db = new DatabaseSync(path, { timeout: 5000 });
  try {
    db.exec("PRAGMA journal_mode = WAL");
    db.exec("PRAGMA synchronous = NORMAL");
    db.exec("PRAGMA foreign_keys = ON");
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
