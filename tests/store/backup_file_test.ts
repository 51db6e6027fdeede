/** copyBackup(): what `svc store restore` takes (D24, issue 33 item 16). */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { copyBackup } from "../../src/store/backup_file.ts";
import { migrate } from "../../src/store/db.ts";
import { MIGRATIONS } from "../../src/store/migrations.ts";
import { removeTree, tempHome } from "../helpers/home.ts";

/** A store file at `dir/name` made by `make` on a fresh database. */
function storeFile(dir: string, name: string, make: (db: DatabaseSync) => void): string {
  const db = new DatabaseSync(`${dir}/${name}`);
  make(db);
  db.close();
  return `${dir}/${name}`;
}

Deno.test("copyBackup() copies an svc store with its id, and one from before D24 without", async () => {
  const dir = await tempHome();
  try {
    const current = storeFile(dir, "current.db", (db) => {
      migrate(db);
      db.exec("INSERT INTO store_meta (key, value) VALUES ('id', 'store-1')");
    });
    assert.equal(await copyBackup(current, `${dir}/copy.db`), "store-1");
    const copy = new DatabaseSync(`${dir}/copy.db`, { readOnly: true });
    assert.equal(copy.prepare("SELECT value FROM store_meta").get()!.value, "store-1");
    copy.close();
    const old = storeFile(dir, "old.db", (db) => {
      for (const [index, migration] of MIGRATIONS.slice(0, 4).entries()) {
        db.exec(migration);
        db.exec(`PRAGMA user_version = ${index + 1}`);
      }
    });
    assert.equal(await copyBackup(old, `${dir}/old-copy.db`), null);
  } finally {
    await removeTree(dir);
  }
});

Deno.test("copyBackup() refuses a newer schema, a missing table and a missing id", async () => {
  const dir = await tempHome();
  try {
    const newer = storeFile(dir, "newer.db", (db) => {
      migrate(db);
      db.exec(`PRAGMA user_version = ${MIGRATIONS.length + 1}`);
    });
    await assert.rejects(copyBackup(newer, `${dir}/a.db`), /is newer than this svc/);
    const partial = storeFile(dir, "partial.db", (db) => {
      migrate(db);
      db.exec("DROP TABLE runs");
    });
    await assert.rejects(copyBackup(partial, `${dir}/b.db`), /it lacks "runs" of svc's schema/);
    const anonymous = storeFile(dir, "anonymous.db", migrate);
    await assert.rejects(copyBackup(anonymous, `${dir}/c.db`), /without its store id/);
  } finally {
    await removeTree(dir);
  }
});
