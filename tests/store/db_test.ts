import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { openDatabase, PAGE_BYTES, transaction } from "../../src/store/db.ts";
import { MIGRATIONS } from "../../src/store/migrations.ts";
import { removeTree, tempHome } from "../helpers/home.ts";

Deno.test("openDatabase() migrates to the newest version, WAL, files 0600", async () => {
  const dir = await tempHome();
  const db = openDatabase(`${dir}/svc.db`);
  try {
    const version =
      (db.prepare("PRAGMA user_version").get() as { user_version: number }).user_version;
    assert.equal(version, MIGRATIONS.length);
    assert.equal(
      (db.prepare("PRAGMA journal_mode").get() as { journal_mode: string }).journal_mode,
      "wal",
    );
    assert.equal((await Deno.stat(`${dir}/svc.db`)).mode! & 0o777, 0o600);
  } finally {
    db.close();
  }
  // Re-opening applies nothing twice.
  openDatabase(`${dir}/svc.db`).close();
  await removeTree(dir);
});

function pragma(db: DatabaseSync, name: string): number {
  return (db.prepare(`PRAGMA ${name}`).get() as Record<string, number>)[name];
}

Deno.test("openDatabase() makes new stores with 16 KiB pages, checkpointing every 4 MB of WAL (issue 14)", async () => {
  const dir = await tempHome();
  const db = openDatabase(`${dir}/svc.db`);
  try {
    assert.equal(PAGE_BYTES, 16384);
    assert.equal(pragma(db, "page_size"), 16384);
    assert.equal(pragma(db, "wal_autocheckpoint"), 250);
  } finally {
    db.close();
    await removeTree(dir);
  }
});

Deno.test("openDatabase() keeps an older store's 4 KiB pages and SQLite's 1000-page checkpoints", async () => {
  const dir = await tempHome();
  const older = new DatabaseSync(`${dir}/svc.db`);
  older.exec("PRAGMA journal_mode = WAL");
  older.exec("CREATE TABLE before_v2 (x)");
  older.close();
  const db = openDatabase(`${dir}/svc.db`);
  try {
    assert.equal(pragma(db, "page_size"), 4096);
    assert.equal(pragma(db, "wal_autocheckpoint"), 1000);
    assert.equal(pragma(db, "user_version"), MIGRATIONS.length);
  } finally {
    db.close();
    await removeTree(dir);
  }
});

Deno.test("openDatabase() refuses a store from a newer svc", async () => {
  const dir = await tempHome();
  const db = openDatabase(`${dir}/svc.db`);
  db.exec(`PRAGMA user_version = ${MIGRATIONS.length + 1}`);
  db.close();
  assert.throws(() => openDatabase(`${dir}/svc.db`), /newer than this svc/);
  await removeTree(dir);
});

Deno.test("transaction() rolls back when the body throws", async () => {
  const dir = await tempHome();
  const db = openDatabase(`${dir}/svc.db`);
  db.exec("CREATE TABLE t (x INTEGER)");
  assert.throws(() =>
    transaction(db, () => {
      db.exec("INSERT INTO t VALUES (1)");
      throw new Error("boom");
    }), /boom/);
  assert.equal((db.prepare("SELECT COUNT(*) AS n FROM t").get() as { n: number }).n, 0);
  db.close();
  await removeTree(dir);
});
