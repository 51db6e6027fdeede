import assert from "node:assert/strict";
import { systemClock } from "../../src/clock.ts";
import { OwnedProcesses } from "../../src/sessions/owned_processes.ts";
import { removeTree, tempHome } from "../helpers/home.ts";
import { alive } from "../helpers/process.ts";

const unix = Deno.build.os !== "windows";

/** `sh -c script`, leading its own process group when `detached`. */
function sh(script: string, detached = false): Deno.Command {
  return new Deno.Command("sh", {
    args: ["-c", script],
    stdin: "null",
    stdout: "null",
    stderr: "null",
    detached,
  });
}

Deno.test({
  name: "OwnedProcesses.drain() kills the `kill` processes' groups and starts no more of them",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    const dir = await tempHome();
    const processes = new OwnedProcesses();
    try {
      // The probe's own child (a grandchild of the daemon) writes its pid, then waits.
      const probe = processes.spawn(sh(`sleep 30 & echo $! > ${dir}/pid; wait`, true), {
        group: true,
        atStop: "kill",
      });
      const waited = processes.spawn(sh("sleep 0.3"), { group: false, atStop: "wait" });
      let grandchild = 0;
      while (grandchild === 0) {
        grandchild = Number(await Deno.readTextFile(`${dir}/pid`).catch(() => "0")) || 0;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      processes.drain();
      assert.equal((await probe.status).signal, "SIGKILL");
      for (let i = 0; i < 100 && alive(grandchild); i++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      assert.equal(alive(grandchild), false, "the probe's group was killed, not only its leader");
      assert.throws(
        () => processes.spawn(sh("true"), { group: false, atStop: "kill" }),
        Deno.errors.Interrupted,
      );
      const late = processes.spawn(sh("true"), { group: false, atStop: "wait" });
      assert.equal((await late.status).success, true, "a `wait` process may still start");
      assert.equal((await waited.status).success, true, "drain() leaves `wait` processes be");
      assert.equal(processes.size, 0);
    } finally {
      await removeTree(dir);
    }
  },
});

Deno.test({
  name: "OwnedProcesses.close() waits for `wait` processes until the deadline, then kills them",
  ignore: !unix,
  fn: async (t) => {
    await t.step("ending in time", async () => {
      const processes = new OwnedProcesses();
      const child = processes.spawn(sh("sleep 0.2"), { group: false, atStop: "wait" });
      assert.equal(await processes.close(systemClock, 5_000), true);
      assert.equal((await child.status).success, true);
    });
    await t.step("still running at the deadline", async () => {
      const processes = new OwnedProcesses();
      const child = processes.spawn(sh("sleep 30"), { group: false, atStop: "wait" });
      const started = Date.now();
      assert.equal(await processes.close(systemClock, 200), false);
      assert.ok(Date.now() - started < 5_000);
      assert.equal((await child.status).signal, "SIGKILL");
      assert.equal(processes.size, 0, "reaped before close() resolved");
      assert.throws(
        () => processes.spawn(sh("true"), { group: false, atStop: "wait" }),
        Deno.errors.Interrupted,
      );
    });
  },
});
