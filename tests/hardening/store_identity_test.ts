/**
 * D24: a store that is not the one svc made stops the daemon with what to do,
 * never a silent empty start; a store lost while running is reported;
 * backup, restore and reset (issue 13). The identity lives in `store.id`,
 * which `rm svc.db*` leaves behind (issue 28 item 8).
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { ConfigError } from "../../src/config/config_error.ts";
import { restartTestDaemon, startTestDaemon } from "../helpers/daemon.ts";
import { removeTree, tempHome } from "../helpers/home.ts";
import { runSvc, startServe } from "../helpers/process.ts";
import { routineDefinition } from "../helpers/routine.ts";

// deno-lint-ignore no-explicit-any
type Json = Record<string, any>;

/** A home whose daemon ran once and made a routine; returns its path and store id. */
async function usedHome(): Promise<{ home: string; id: string }> {
  const home = await tempHome();
  await using t = await startTestDaemon({ home, scheduler: false });
  await t.client.post("/actions", {
    action: "svc.automations.create",
    definition: routineDefinition("kept", { name: "Kept", runtime: "claude", prompt: "p" }),
  });
  const id = (await Deno.readTextFile(`${home}/store.id`)).trim();
  assert.match(id, /^[0-9a-f-]{36}$/);
  assert.equal((await Deno.stat(`${home}/store.id`)).mode! & 0o777, 0o600);
  return { home, id };
}

/** Runs `svc serve` on `home`: its exit code and stderr when it stops by itself, null once it serves. */
async function serveRefusal(home: string): Promise<{ code: number; stderr: string } | null> {
  const serve = await startServe(home);
  const exited = await Promise.race([
    serve.child.status.then(() => true),
    new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 200)),
  ]);
  const status = await serve.stop();
  return exited ? { code: status.code, stderr: serve.stderr() } : null;
}

/** Removes `svc.db`, `svc.db-wal`, `svc.db-shm` and `svc.db.id`: what `rm svc.db*` does. */
async function removeDbGlob(home: string): Promise<void> {
  for (const entry of Deno.readDirSync(home)) {
    if (entry.name.startsWith("svc.db")) await Deno.remove(`${home}/${entry.name}`);
  }
}

async function routineIds(home: string): Promise<string[]> {
  await using t = await restartTestDaemon({ home, scheduler: false });
  const list = await t.client.post<Json>("/actions", { action: "svc.automations.list" });
  return list.body.result.routines.map((routine: Json) => routine.id);
}

async function refusal(home: string): Promise<string> {
  try {
    await using _t = await restartTestDaemon({ home, scheduler: false });
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    return error.message;
  }
  throw new Error("the daemon started");
}

Deno.test("a truncated, deleted, replaced, symlinked, damaged or newer store stops the start (D24)", async (t) => {
  const { home, id } = await usedHome();
  const other = await usedHome();
  try {
    const original = await Deno.readFile(`${home}/svc.db`);
    const restore = async () => {
      for (const suffix of ["-wal", "-shm"]) {
        await Deno.remove(`${home}/svc.db${suffix}`).catch(() => {});
      }
      await Deno.remove(`${home}/svc.db`).catch(() => {});
      await Deno.writeFile(`${home}/svc.db`, original);
    };
    await t.step("truncated", async () => {
      await Deno.truncate(`${home}/svc.db`, 0);
      const message = await refusal(home);
      assert.match(message, /is empty, but .*store\.id" says store /);
      assert.match(message, /svc store reset/);
      await restore();
    });
    await t.step("deleted", async () => {
      await Deno.remove(`${home}/svc.db`);
      assert.match(await refusal(home), /is missing, but/);
      await restore();
    });
    await t.step("replaced by another home's store", async () => {
      await Deno.copyFile(`${other.home}/svc.db`, `${home}/svc.db`);
      const message = await refusal(home);
      assert.match(message, new RegExp(`is store ${other.id}, but .* says store ${id}`));
      await restore();
    });
    await t.step("a symlink", async () => {
      await Deno.rename(`${home}/svc.db`, `${home}/real.db`);
      await Deno.symlink(`${home}/real.db`, `${home}/svc.db`);
      assert.match(await refusal(home), /is a symbolic link/);
      await Deno.remove(`${home}/svc.db`);
      await Deno.rename(`${home}/real.db`, `${home}/svc.db`);
    });
    await t.step("damaged", async () => {
      const garbage = new Uint8Array(8192).fill(0x41);
      await Deno.writeFile(`${home}/svc.db`, garbage);
      assert.match(await refusal(home), /cannot be used: .*Restore it from a backup/);
      await restore();
    });
    await t.step("a newer schema", async () => {
      const db = new DatabaseSync(`${home}/svc.db`);
      db.exec("PRAGMA user_version = 999");
      db.close();
      assert.match(await refusal(home), /newer than this svc/);
      await restore();
    });
    await t.step("restored: it starts with its data", async () => {
      await using r = await restartTestDaemon({ home, scheduler: false });
      const got = await r.client.post<Json>("/actions", {
        action: "svc.automations.get",
        id: "kept",
      });
      assert.equal(got.body.result.routine.id, "kept");
    });
  } finally {
    await removeTree(home);
    await removeTree(other.home);
  }
});

Deno.test("svc serve on a damaged store exits 2 with a message, no stack trace (D24)", async () => {
  const { home } = await usedHome();
  try {
    await Deno.writeFile(`${home}/svc.db`, new Uint8Array(4096).fill(0x42));
    const result = await runSvc(["serve", "--home", home]);
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /cannot be used/);
    assert.doesNotMatch(result.stderr, /\n\s+at /);
  } finally {
    await removeTree(home);
  }
});

Deno.test("a store deleted under the running daemon: health not ok, store lost, mutations 503 (D24)", async () => {
  await using t = await startTestDaemon({ scheduler: false });
  assert.equal((await t.client.get<Json>("/health")).body.store, "ok");
  await Deno.remove(`${t.home}/svc.db`);
  await new Promise((resolve) => setTimeout(resolve, 300)); // The state is looked at every 250 ms.
  const health = (await t.client.get<Json>("/health")).body;
  assert.equal(health.ok, false);
  assert.equal(health.store, "lost");
  // Mutations are refused: nothing is acknowledged that would be lost at the next start.
  const launch = await t.client.post<Json>("/sessions", {
    projectRoot: t.home,
    harness: "claude",
    prompt: "x",
  });
  assert.equal(launch.status, 503);
  assert.equal(launch.body.error.code, "store_unavailable");
  const action = await t.client.post<Json>("/actions", { action: "svc.automations.tick" });
  assert.equal(action.status, 503);
  assert.equal(action.body.error.code, "store_unavailable");
  assert.equal(action.body.ok, false);
});

Deno.test("svc store backup copies a live store; svc store reset moves it aside (D24)", async () => {
  const { home, id } = await usedHome();
  const out = await tempHome();
  try {
    {
      await using _t = await restartTestDaemon({ home, scheduler: false });
      const backup = await runSvc(["store", "backup", `${out}/copy.db`, "--home", home]);
      assert.equal(backup.code, 0, backup.stderr);
      const again = await runSvc(["store", "backup", `${out}/copy.db`, "--home", home]);
      assert.equal(again.code, 2, "an existing file is never overwritten");
      const refused = await runSvc(["store", "reset", "--home", home]);
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /stop it first/);
    }
    assert.equal((await Deno.stat(`${out}/copy.db`)).mode! & 0o777, 0o600);
    const copy = new DatabaseSync(`${out}/copy.db`, { readOnly: true });
    assert.deepEqual(copy.prepare("SELECT id FROM routines").all().map((r) => r.id), ["kept"]);
    assert.equal(copy.prepare("SELECT value FROM store_meta WHERE key = 'id'").get()!.value, id);
    copy.close();

    const reset = await runSvc(["store", "reset", "--home", home]);
    assert.equal(reset.code, 0, reset.stderr);
    assert.match(reset.stdout, /svc\.db\.reset-/);
    assert.match(reset.stdout, /store\.id\.reset-/);
    assert.deepEqual(await routineIds(home), []);
    assert.notEqual((await Deno.readTextFile(`${home}/store.id`)).trim(), id);

    // The backup, restored into a new home (another machine): its store, its id.
    const restored = await tempHome();
    try {
      const restore = await runSvc(["store", "restore", `${out}/copy.db`, "--home", restored]);
      assert.equal(restore.code, 0, restore.stderr);
      assert.equal((await Deno.readTextFile(`${restored}/store.id`)).trim(), id);
      assert.equal((await Deno.stat(`${restored}/svc.db`)).mode! & 0o777, 0o600);
      assert.deepEqual(await routineIds(restored), ["kept"]);
      // ...and over a used home: the store there is moved aside, not deleted.
      const over = await runSvc(["store", "restore", `${out}/copy.db`, "--home", home]);
      assert.equal(over.code, 0, over.stderr);
      assert.match(over.stdout, /svc\.db\.before-restore-/);
      assert.deepEqual(await routineIds(home), ["kept"]);
      const junk = await runSvc(["store", "restore", `${home}/store.id`, "--home", restored]);
      assert.equal(junk.code, 1, "a file that is not a store is refused");
      assert.deepEqual(await routineIds(restored), ["kept"]);
    } finally {
      await removeTree(restored);
    }
  } finally {
    await removeTree(home);
    await removeTree(out);
  }
});

Deno.test("issue 28 item 8: a used home whose store is gone, foreign or emptied refuses svc serve (D24)", async (t) => {
  const { home, id } = await usedHome();
  const other = await usedHome();
  try {
    const refuses = async (pattern: RegExp) => {
      const refusal = await serveRefusal(home);
      assert.ok(refusal !== null, "svc serve started");
      assert.equal(refusal.code, 2, refusal.stderr);
      assert.match(refusal.stderr, pattern);
      assert.match(refusal.stderr, /svc store reset/);
      assert.doesNotMatch(refusal.stderr, /\n\s+at /);
    };
    await t.step("rm svc.db* (the home's store.id stays): exit 2", async () => {
      await removeDbGlob(home);
      await refuses(new RegExp(`svc\\.db" is missing, but .*store\\.id" says store ${id}`));
    });
    await t.step("another home's store with store.id deleted: exit 2", async () => {
      await Deno.copyFile(`${other.home}/svc.db`, `${home}/svc.db`);
      await Deno.remove(`${home}/store.id`);
      await refuses(new RegExp(`is store ${other.id}, but .*store\\.id" is missing`));
    });
    await t.step("store.id a symbolic link to another home's: exit 2", async () => {
      await Deno.symlink(`${other.home}/store.id`, `${home}/store.id`);
      await refuses(/store\.id" is a symbolic link/);
      await Deno.remove(`${home}/store.id`);
    });
    await t.step("the old svc.db.id a symbolic link to another home's id: exit 2", async () => {
      await Deno.symlink(`${other.home}/store.id`, `${home}/svc.db.id`);
      await refuses(/svc\.db\.id" is a symbolic link/);
      await Deno.remove(`${home}/svc.db.id`);
    });
    await t.step("a 0-byte svc.db without store.id: exit 2", async () => {
      await removeDbGlob(home);
      await Deno.writeFile(`${home}/svc.db`, new Uint8Array());
      await refuses(/svc\.db" is empty \(0 bytes\)/);
    });
    await t.step("svc store reset: it starts empty on purpose, and restarts as usual", async () => {
      const reset = await runSvc(["store", "reset", "--home", home]);
      assert.equal(reset.code, 0, reset.stderr);
      assert.equal(await serveRefusal(home), null);
      const fresh = (await Deno.readTextFile(`${home}/store.id`)).trim();
      assert.notEqual(fresh, id);
      assert.deepEqual(await routineIds(home), []);
      assert.equal(await serveRefusal(home), null);
      assert.equal((await Deno.readTextFile(`${home}/store.id`)).trim(), fresh);
    });
  } finally {
    await removeTree(home);
    await removeTree(other.home);
  }
});

Deno.test("issue 28 item 8: a home of the svc.db.id layout moves its id to store.id and keeps its data (D24)", async () => {
  const { home, id } = await usedHome();
  try {
    await Deno.rename(`${home}/store.id`, `${home}/svc.db.id`);
    assert.equal(await serveRefusal(home), null);
    assert.equal((await Deno.readTextFile(`${home}/store.id`)).trim(), id);
    assert.equal((await Deno.stat(`${home}/store.id`)).mode! & 0o777, 0o600);
    await assert.rejects(Deno.lstat(`${home}/svc.db.id`), Deno.errors.NotFound);
    assert.deepEqual(await routineIds(home), ["kept"]);
    // Migrated, the home is protected like any other: rm svc.db* no longer empties it.
    await removeDbGlob(home);
    assert.equal((await serveRefusal(home))?.code, 2);
  } finally {
    await removeTree(home);
  }
});

Deno.test("issue 28 item 8: the old layout with svc.db deleted still refuses (D24)", async () => {
  const { home, id } = await usedHome();
  try {
    await Deno.rename(`${home}/store.id`, `${home}/svc.db.id`);
    await Deno.remove(`${home}/svc.db`);
    const message = await refusal(home);
    assert.match(message, new RegExp(`is missing, but .*svc\\.db\\.id" says store ${id}`));
  } finally {
    await removeTree(home);
  }
});

Deno.test("issue 28 item 8: svc store restore of the home's own foreign svc.db adopts it on purpose (D24)", async () => {
  const { home } = await usedHome();
  const other = await usedHome();
  try {
    await Deno.remove(`${home}/store.id`);
    await removeDbGlob(home);
    await Deno.copyFile(`${other.home}/svc.db`, `${home}/svc.db`);
    const message = await refusal(home);
    assert.match(message, /svc store restore .*svc\.db/);
    const restore = await runSvc(["store", "restore", `${home}/svc.db`, "--home", home]);
    assert.equal(restore.code, 0, restore.stderr);
    assert.equal((await Deno.readTextFile(`${home}/store.id`)).trim(), other.id);
    assert.deepEqual(await routineIds(home), ["kept"]);
  } finally {
    await removeTree(home);
    await removeTree(other.home);
  }
});

Deno.test("issue 33 item 16: svc store restore refuses an empty file, another program's SQLite file and a FIFO, and touches nothing (D24)", async (t) => {
  const { home, id } = await usedHome();
  const files = await tempHome();
  try {
    const db = await Deno.readFile(`${home}/svc.db`);
    const refuses = async (file: string, pattern: RegExp) => {
      // Bounded: a restore that waits on a FIFO is killed, and fails here, instead of hanging.
      const restore = await runSvc(["store", "restore", file, "--home", home], {}, {
        timeoutMs: 30_000,
      });
      assert.equal(restore.code, 1, `exit ${restore.code}: ${restore.stderr}`);
      assert.match(restore.stderr, pattern);
      assert.equal((await Deno.readTextFile(`${home}/store.id`)).trim(), id);
      assert.deepEqual(await Deno.readFile(`${home}/svc.db`), db);
      const names = [...Deno.readDirSync(home)].map((entry) => entry.name);
      assert.deepEqual(names.filter((name) => /before-restore|restoring/.test(name)), []);
    };
    await t.step("an empty file", async () => {
      await Deno.writeFile(`${files}/empty.db`, new Uint8Array());
      await refuses(`${files}/empty.db`, /empty\.db" cannot be restored: it is empty \(0 bytes\)/);
    });
    await t.step("another application's SQLite database", async () => {
      const foreign = new DatabaseSync(`${files}/notes.db`);
      foreign.exec("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)");
      foreign.exec("INSERT INTO notes (text) VALUES ('hello')");
      foreign.close();
      await refuses(`${files}/notes.db`, /notes\.db" cannot be restored: it is not an svc store/);
    });
    await t.step("a file that is not SQLite", async () => {
      await Deno.writeTextFile(`${files}/text.db`, "not a database\n");
      await refuses(
        `${files}/text.db`,
        /text\.db" cannot be restored: it is not an SQLite database/,
      );
    });
    await t.step("a FIFO: refused at once, never opened", async () => {
      const mkfifo = await new Deno.Command("mkfifo", { args: [`${files}/pipe.db`] }).output();
      assert.ok(mkfifo.success);
      await refuses(`${files}/pipe.db`, /pipe\.db" cannot be restored: it is not a regular file/);
    });
    assert.deepEqual(await routineIds(home), ["kept"]);
  } finally {
    await removeTree(home);
    await removeTree(files);
  }
});
