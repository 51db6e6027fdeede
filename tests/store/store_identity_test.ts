/** openStore() (D24, issue 28 item 8): which homes start, and which are refused before any write. */
import assert from "node:assert/strict";
import { ConfigError } from "../../src/config/config_error.ts";
import { homePaths } from "../../src/config/home.ts";
import { openStore, storeFiles, writeStoreId } from "../../src/store/store_identity.ts";
import { openDatabase } from "../../src/store/db.ts";
import { removeTree, tempHome } from "../helpers/home.ts";

async function withHome(run: (paths: ReturnType<typeof homePaths>) => Promise<void>) {
  const home = await tempHome();
  try {
    await run(homePaths(home));
  } finally {
    await removeTree(home);
  }
}

Deno.test("openStore() on a new home creates svc.db and store.id with the same id", () =>
  withHome(async (paths) => {
    const store = openStore(paths);
    store.db.close();
    assert.equal((await Deno.readTextFile(paths.storeId)).trim(), store.id);
    assert.equal((await Deno.stat(paths.storeId)).mode! & 0o777, 0o600);
    const again = openStore(paths);
    again.db.close();
    assert.equal(again.id, store.id);
  }));

Deno.test("openStore() gives a store from before D24 (no id anywhere) its id", () =>
  withHome(async (paths) => {
    openDatabase(paths.db).close();
    const store = openStore(paths);
    store.db.close();
    assert.equal((await Deno.readTextFile(paths.storeId)).trim(), store.id);
  }));

Deno.test("openStore() prefers store.id and removes a leftover svc.db.id", () =>
  withHome(async (paths) => {
    const store = openStore(paths);
    store.db.close();
    await Deno.writeTextFile(`${paths.db}.id`, "someone-else\n");
    openStore(paths).db.close();
    await assert.rejects(Deno.lstat(`${paths.db}.id`), Deno.errors.NotFound);
  }));

Deno.test("openStore() refuses an emptied store.id or one that is not a file, writing nothing", async (t) => {
  await t.step("empty", () =>
    withHome(async (paths) => {
      openStore(paths).db.close();
      await Deno.writeTextFile(paths.storeId, "");
      assert.throws(() => openStore(paths), ConfigError, "does not hold a store id");
      assert.equal(await Deno.readTextFile(paths.storeId), "");
    }));
  await t.step("a directory", () =>
    withHome(async (paths) => {
      await Deno.mkdir(paths.storeId);
      assert.throws(() => openStore(paths), ConfigError, "is not a regular file");
      await assert.rejects(Deno.lstat(paths.db), Deno.errors.NotFound);
    }));
  await t.step("a dangling symbolic link", () =>
    withHome(async (paths) => {
      await Deno.symlink(`${paths.root}/nowhere`, paths.storeId);
      assert.throws(() => openStore(paths), ConfigError, "is a symbolic link");
      await assert.rejects(Deno.lstat(paths.db), Deno.errors.NotFound);
    }));
});

Deno.test("writeStoreId() replaces the file whole, 0600, whatever a stale temporary was", () =>
  withHome(async (paths) => {
    await Deno.writeTextFile(`${paths.storeId}.tmp`, "stale stale stale", { mode: 0o644 });
    writeStoreId(paths.storeId, "abc");
    assert.equal(await Deno.readTextFile(paths.storeId), "abc\n");
    assert.equal((await Deno.stat(paths.storeId)).mode! & 0o777, 0o600);
    await assert.rejects(Deno.lstat(`${paths.storeId}.tmp`), Deno.errors.NotFound);
  }));

Deno.test("storeFiles() lists the database, its WAL, store.id and the old svc.db.id", () => {
  const paths = homePaths("/h");
  assert.deepEqual(storeFiles(paths), [
    "/h/svc.db",
    "/h/svc.db-wal",
    "/h/svc.db-shm",
    "/h/store.id",
    "/h/svc.db.id",
  ]);
});
