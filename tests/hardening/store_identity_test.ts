/**
 * D24: a store that is not the one svc made stops the daemon with what to do,
 * never a silent empty start; a store lost while running is reported;
 * backup and reset (issue 13).
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { ConfigError } from "../../src/config/config_error.ts";
import { restartTestDaemon, startTestDaemon } from "../helpers/daemon.ts";
import { removeTree, tempHome } from "../helpers/home.ts";
import { runSvc } from "../helpers/process.ts";
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
  const id = (await Deno.readTextFile(`${home}/svc.db.id`)).trim();
  assert.match(id, /^[0-9a-f-]{36}$/);
  assert.equal((await Deno.stat(`${home}/svc.db.id`)).mode! & 0o777, 0o600);
  return { home, id };
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
      assert.match(message, /is empty, but .*svc\.db\.id" says store /);
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
    await using fresh = await restartTestDaemon({ home, scheduler: false });
    const list = await fresh.client.post<Json>("/actions", { action: "svc.automations.list" });
    assert.deepEqual(list.body.result.routines, []);
    assert.notEqual((await Deno.readTextFile(`${home}/svc.db.id`)).trim(), id);
  } finally {
    await removeTree(home);
    await removeTree(out);
  }
});
