/**
 * What `svc store restore FILE` takes (D24, issue 33 item 16): a regular,
 * non-empty SQLite file holding svc's schema, at a version this svc knows,
 * with its store id. Anything else is refused before the home changes.
 */
import { DatabaseSync } from "node:sqlite";
import { MIGRATIONS } from "./migrations.ts";
import { readStoredId } from "./store_identity.ts";

/** The first 16 bytes of every SQLite 3 database file. */
const SQLITE_HEADER = "SQLite format 3\0";

/**
 * Checks that `source` is an svc store and copies it (`VACUUM INTO`: one
 * consistent copy) into `target`, which must be absent or empty; returns its
 * store id, null for a store from before D24. Throws an Error saying why
 * `source` is not a store to restore.
 */
export async function copyBackup(source: string, target: string): Promise<string | null> {
  await checkSqliteFile(source);
  const db = new DatabaseSync(source, { readOnly: true, timeout: 5000 });
  try {
    const check = db.prepare("PRAGMA quick_check").all() as Array<{ quick_check: string }>;
    if (check.length !== 1 || check[0].quick_check !== "ok") {
      throw new Error(`quick_check found: ${check[0]?.quick_check ?? "nothing"}`);
    }
    const id = storeIdOf(db);
    db.prepare("VACUUM INTO ?").run(target);
    return id;
  } finally {
    db.close();
  }
}

/**
 * Refuses what is not a regular, non-empty file starting with SQLite's
 * header: looked at with stat before any open (opening a FIFO waits for a
 * writer), then its first 16 bytes read from the very file stat saw.
 */
async function checkSqliteFile(path: string): Promise<void> {
  const info = await Deno.stat(path);
  if (!info.isFile) throw new Error("it is not a regular file");
  if (info.size === 0) throw new Error("it is empty (0 bytes), not an svc store");
  const file = await Deno.open(path, { read: true });
  try {
    const opened = await file.stat();
    if (opened.dev !== info.dev || opened.ino !== info.ino) {
      throw new Error("it was replaced while being checked");
    }
    const header = new Uint8Array(SQLITE_HEADER.length);
    let filled = 0;
    while (filled < header.length) {
      const read = await file.read(header.subarray(filled));
      if (read === null) break;
      filled += read;
    }
    if (new TextDecoder().decode(header.subarray(0, filled)) !== SQLITE_HEADER) {
      throw new Error("it is not an SQLite database");
    }
  } finally {
    file.close();
  }
}

/**
 * The store id of `db` once it holds every table of svc's schema at its
 * `user_version`; null for a store from before D24 (no `store_meta` yet).
 */
function storeIdOf(db: DatabaseSync): string | null {
  const { user_version: version } = db.prepare("PRAGMA user_version").get() as {
    user_version: number;
  };
  if (version > MIGRATIONS.length) {
    throw new Error(
      `its schema version ${version} is newer than this svc (${MIGRATIONS.length}): upgrade svc`,
    );
  }
  if (version === 0) {
    throw new Error("it is not an svc store: an SQLite database without svc's schema");
  }
  const present = new Set(tableNames(db));
  const expected = schemaTables(version);
  const missing = expected.filter((name) => !present.has(name));
  if (missing.length > 0) {
    throw new Error(
      `it is not an svc store: it lacks ${missing.map((name) => `"${name}"`).join(", ")} of ` +
        `svc's schema version ${version}`,
    );
  }
  if (!expected.includes("store_meta")) return null;
  const id = readStoredId(db);
  if (id === null) throw new Error("it is an svc store without its store id");
  return id;
}

/** The tables of svc's schema at `version`: migrations 1 to `version` applied to an empty database. */
function schemaTables(version: number): string[] {
  const db = new DatabaseSync(":memory:");
  try {
    for (const migration of MIGRATIONS.slice(0, version)) db.exec(migration);
    return tableNames(db);
  } finally {
    db.close();
  }
}

function tableNames(db: DatabaseSync): string[] {
  const rows = db.prepare(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
  ).all() as Array<{ name: string }>;
  return rows.map((row) => row.name);
}
