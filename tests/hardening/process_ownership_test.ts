/**
 * Process ownership (issue 13): kill and recovery reach a session's
 * daemonized descendants (Linux: the environment marker), and recovery never
 * signals a process that merely reuses a recorded id. Issue 28 item 15: a
 * harness version probe does not outlive the daemon.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { SvcClient } from "../../src/client/client.ts";
import { markedProcesses, processStartTime } from "../../src/sessions/process_tree.ts";
import {
  allEvents,
  fixtureHarnesses,
  restartTestDaemon,
  startTestDaemon,
  type TestDaemon,
  waitForEnd,
} from "../helpers/daemon.ts";
import { removeTree, tempHome } from "../helpers/home.ts";
import { alive, runSvc, startServe } from "../helpers/process.ts";

const linux = Deno.build.os === "linux";

async function eventually(what: string, check: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    assert.ok(Date.now() < deadline, what);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function escapedPid(client: SvcClient, sessionId: string): Promise<number> {
  for (let i = 0; i < 200; i++) {
    const text = (await allEvents(client, sessionId)).filter((e) => e.kind === "output")
      .map((e) => e.payload.data).join("");
    const match = /escaped (\d+)/.exec(text);
    if (match) return Number(match[1]);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error("no escaped pid");
}

/** Launches the fixture with `prompt` in a fresh daemon and returns its escaped pid. */
async function withEscapee(
  prompt: string,
  fn: (t: TestDaemon, id: string, pid: number) => Promise<void>,
): Promise<void> {
  const project = await Deno.realPath(await tempHome());
  await using t = await startTestDaemon({ configJson: { harnesses: fixtureHarnesses() } });
  try {
    const launched = await t.client.post<{ id: string }>("/sessions", {
      projectRoot: project,
      harness: "fixture",
      prompt,
    });
    const id = launched.body.id;
    await fn(t, id, await escapedPid(t.client, id));
  } finally {
    await removeTree(project);
  }
}

Deno.test({
  name: "kill reaches a descendant that left the process group (setsid)",
  ignore: !linux,
  fn: () =>
    withEscapee("escape; sleep 60000", async (t, id, pid) => {
      assert.ok(alive(pid));
      assert.deepEqual(
        markedProcesses(await Deno.realPath(t.home), id).includes(pid),
        true,
        "the marker is inherited",
      );
      await t.client.post(`/sessions/${id}/kill`, {});
      await waitForEnd(t.client, id);
      await eventually("the escaped process outlived kill", () => !alive(pid));
    }),
});

Deno.test({
  name: "a session that ends on its own takes its escaped descendants with it",
  ignore: !linux,
  fn: () =>
    withEscapee("escape; sleep 300; exit 0", async (t, id, pid) => {
      await waitForEnd(t.client, id);
      await eventually("the escaped process outlived its session", () => !alive(pid));
    }),
});

Deno.test({
  name: "recovery after kill -9 reaches escaped descendants and spares a reused id",
  ignore: !linux,
  fn: async () => {
    const home = await tempHome();
    const project = await Deno.realPath(await tempHome());
    await Deno.writeTextFile(
      `${home}/config.json`,
      JSON.stringify({ harnesses: fixtureHarnesses() }),
    );
    // An unrelated process in its own group, standing in for one that reused a recorded id.
    const bystander = new Deno.Command("setsid", { args: ["sleep", "300"] }).spawn();
    const first = await startServe(home);
    let escaped = 0;
    let sessionId = "";
    try {
      const client = new SvcClient({ socketPath: `${home}/svc.sock` });
      const launched = await client.post<{ id: string }>("/sessions", {
        projectRoot: project,
        harness: "fixture",
        prompt: "escape; sleep 60000",
      });
      sessionId = launched.body.id;
      escaped = await escapedPid(client, sessionId);
      // A second crashed session whose recorded leader is now the bystander's id.
      const other = await client.post<{ id: string }>("/sessions", {
        projectRoot: project,
        harness: "fixture",
        prompt: "sleep 60000",
      });
      client.close();
      await first.stop("SIGKILL");
      const db = new DatabaseSync(`${home}/svc.db`);
      const real = db.prepare("SELECT pid FROM sessions WHERE id = ?").get(other.body.id)!;
      Deno.kill(Number(real.pid), "SIGKILL");
      db.prepare("UPDATE sessions SET pid = ?, pgid = ? WHERE id = ?").run(
        bystander.pid,
        bystander.pid,
        other.body.id,
      );
      db.close();
      assert.notEqual(processStartTime(bystander.pid), null);
    } catch (error) {
      await first.stop("SIGKILL");
      throw error;
    }
    const second = await startServe(home);
    try {
      await eventually("the escaped process outlived recovery", () => !alive(escaped));
      assert.ok(alive(bystander.pid), "recovery killed a process that reused a recorded id");
    } finally {
      await second.stop();
      bystander.kill("SIGKILL");
      await bystander.status;
      await removeTree(home);
      await removeTree(project);
    }
  },
});

Deno.test({
  name: "a restored backup of a live home leaves the first home's agents alone (issue 33 item 7)",
  ignore: !linux,
  fn: () =>
    withEscapee("escape; sleep 60000", async (first, id, escaped) => {
      const leader = (await first.client.get<{ pid: number }>(`/sessions/${id}`)).body.pid;
      const backup = `${first.home}/backup.db`;
      const second = await tempHome();
      try {
        const backedUp = await runSvc(["store", "backup", backup, "--home", first.home]);
        assert.equal(backedUp.code, 0, backedUp.stderr);
        const restored = await runSvc(["store", "restore", backup, "--home", second]);
        assert.equal(restored.code, 0, restored.stderr);
        {
          // The copy's row says `running`, with the live agent's pid, group and start time.
          await using copy = await restartTestDaemon({
            home: second,
            configJson: { harnesses: fixtureHarnesses() },
          });
          assert.equal((await waitForEnd(copy.client, id)).status, "orphaned");
        }
        await new Promise((resolve) => setTimeout(resolve, 300));
        assert.ok(alive(leader), "the copy's recovery killed the first home's agent");
        assert.ok(alive(escaped), "the copy's recovery killed the first home's escaped process");
        const record = await first.client.get<{ status: string }>(`/sessions/${id}`);
        assert.equal(record.body.status, "running");
      } finally {
        await removeTree(second);
      }
    }),
});

/** Pids of the processes whose command line contains `marker`, or whose process group is `pgid`. */
function processesOf(marker: string, pgid: number): number[] {
  const found: number[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    const pid = Number(entry.name);
    if (!Number.isInteger(pid) || !alive(pid)) continue;
    try {
      const cmdline = Deno.readTextFileSync(`/proc/${pid}/cmdline`);
      const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
      const group = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
      if (cmdline.includes(marker) || group === pgid) found.push(pid);
    } catch { /* it just exited */ }
  }
  return found;
}

Deno.test({
  name:
    "a version probe still running when the daemon stops ends with it and writes nothing (issue 28)",
  ignore: !linux,
  fn: async () => {
    const home = await tempHome();
    const bin = await Deno.realPath(await tempHome());
    // The built-in gemini found on PATH; its `--version` sleeps 30 s, then writes a file.
    await Deno.writeTextFile(
      `${bin}/gemini`,
      `#!/bin/sh\necho $$ > '${bin}/probe.pid'\nsleep 30\necho late > '${bin}/written'\n`,
      { mode: 0o755 },
    );
    const serve = await startServe(home, [], { PATH: `${bin}:/usr/bin:/bin` });
    let probe = 0;
    try {
      const started = Date.now();
      while (probe === 0) {
        probe = Number(await Deno.readTextFile(`${bin}/probe.pid`).catch(() => "0")) || 0;
        assert.ok(Date.now() - started < 10_000, "the version probe never started");
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.ok(alive(probe), "the probe runs while the daemon does");
      await new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() - started)));
      const stopped = await runSvc(["stop", "--home", home]);
      assert.equal(stopped.code, 0, stopped.stderr);
      await serve.stop();
      await eventually(
        "the version probe outlived the daemon",
        () => processesOf(bin, probe).length === 0,
      );
      assert.equal(
        await Deno.stat(`${bin}/written`).then(() => true, () => false),
        false,
        "the probe wrote after the daemon stopped",
      );
    } finally {
      await serve.stop("SIGKILL");
      if (probe !== 0) {
        try {
          Deno.kill(-probe, "SIGKILL");
        } catch { /* gone, as it should be */ }
      }
      await removeTree(home);
      await removeTree(bin);
    }
  },
});
