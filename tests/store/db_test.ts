import assert from "node:assert/strict";
import { openDatabase, transaction } from "../../src/store/db.ts";
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
