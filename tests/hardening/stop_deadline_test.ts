/**
 * svc stop ends the daemon even while a client holds a request open (issue
 * 13); launches and resumes during the stop are refused or waited for (issue
 * 33 item 8).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { removeTree, tempHome } from "../helpers/home.ts";
import { alive, runSvc, startServe } from "../helpers/process.ts";
import { DatabaseSync } from "node:sqlite";
import { startTestDaemon, waitForEnd } from "../helpers/daemon.ts";
import { gitRepository } from "../helpers/git.ts";
import { agentConfig, launchAgent, waitForKind } from "../helpers/scripted_agent.ts";
import { markedProcesses } from "../../src/sessions/process_tree.ts";
import { UNIX_PEER } from "../../src/policy/peer.ts";

// deno-lint-ignore no-explicit-any
type Json = Record<string, any>;

Deno.test("an unfinished request body does not keep a stopping daemon alive: exit 0, socket and lock released", async () => {
  const home = await tempHome();
  const serve = await startServe(home);
  const socket = join(home, "svc.sock");
  const conn = await Deno.connect({ transport: "unix", path: socket });
  try {
    // A body announced as 100 bytes, of which 10 arrive.
    await conn.write(new TextEncoder().encode(
      "POST /api/v1/sessions HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n" +
        'Content-Length: 100\r\n\r\n{"project',
    ));
    await new Promise((resolve) => setTimeout(resolve, 200));
    const started = Date.now();
    const stop = await runSvc(["stop", "--home", home]);
    const status = await serve.stop("SIGCONT"); // Waits for the exit without signalling it.
    assert.equal(status.code, 0, serve.stderr());
    assert.ok(Date.now() - started < 20_000, "the stop deadline held");
    assert.equal(stop.code, 0, stop.stderr);
    await assert.rejects(Deno.stat(socket), Deno.errors.NotFound);
    // The home is free: a new daemon starts on it.
    const again = await startServe(home);
    assert.equal((await again.stop()).code, 0);
  } finally {
    try {
      conn.close();
    } catch { /* closed by the daemon */ }
    await removeTree(home);
  }
});

/** Rows of the stopped daemon's store: id, status and recorded pid. */
function storedSessions(home: string): Array<{ id: string; status: string; pid: number | null }> {
  const db = new DatabaseSync(join(home, "svc.db"), { readOnly: true });
  try {
    return db.prepare("SELECT id, status, pid FROM sessions").all() as Array<
      { id: string; status: string; pid: number | null }
    >;
  } finally {
    db.close();
  }
}

Deno.test({
  name:
    "a launch in flight when the stop begins answers 503 daemon_stopping; no agent outlives the daemon (issue 33 item 8)",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    const repo = await gitRepository();
    const bin = await Deno.realPath(await tempHome());
    const started = join(bin, "started");
    const path = Deno.env.get("PATH") ?? "";
    const realGit = new TextDecoder().decode(
      (await new Deno.Command("sh", { args: ["-c", "command -v git"] }).output()).stdout,
    ).trim();
    const t = await startTestDaemon({ configJson: agentConfig() });
    try {
      // A git on PATH that holds `git worktree add`, so the launch, for a second.
      await Deno.writeTextFile(
        join(bin, "git"),
        `#!/bin/sh\ncase " $* " in *" worktree add "*) touch '${started}'; sleep 1;; esac\n` +
          `exec '${realGit}' "$@"\n`,
        { mode: 0o755 },
      );
      Deno.env.set("PATH", `${bin}:${path}`);
      const launch = t.client.post<Json>("/sessions", {
        projectRoot: repo,
        harness: "agent",
        prompt: "pwd",
        isolation: "worktree",
      });
      const deadline = Date.now() + 10_000;
      while (!await Deno.stat(started).then(() => true, () => false)) {
        assert.ok(Date.now() < deadline, "git worktree add never ran");
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const stopping = t.daemon.stop();
      const response = await launch;
      await stopping;
      assert.equal(response.status, 503, JSON.stringify(response.body));
      assert.equal(response.body.error.code, "daemon_stopping");
      for (const row of storedSessions(t.home)) {
        assert.notEqual(row.status, "running", `session ${row.id} is left running`);
        assert.ok(
          row.pid === null || !alive(row.pid),
          `the agent of ${row.id} outlived the stop`,
        );
        assert.deepEqual(markedProcesses(await Deno.realPath(t.home), row.id), []);
      }
    } finally {
      Deno.env.set("PATH", path);
      await t[Symbol.asyncDispose]();
      await removeTree(repo);
      await removeTree(bin);
    }
  },
});

Deno.test("once the stop begins, launches and resumes answer 503 daemon_stopping (issue 33 item 8)", async () => {
  const project = await Deno.realPath(await tempHome());
  const t = await startTestDaemon({ configJson: agentConfig() });
  try {
    const id = await launchAgent(t, project, { prompt: "pwd" });
    await waitForKind(t, id, "agent.turn", 1);
    await t.client.post(`/sessions/${id}/close`, {});
    await waitForEnd(t.client, id);
    const stopping = t.daemon.stop();
    // Through the daemon's handler: its listeners no longer take new connections.
    const post = (path: string, body: Json) =>
      t.daemon.handler(
        new Request(`http://localhost/api/v1${path}`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body),
        }),
        UNIX_PEER,
      );
    const [resumed, launched] = await Promise.all([
      post(`/sessions/${id}/resume`, {}),
      post("/sessions", { projectRoot: project, harness: "agent", prompt: "pwd" }),
    ]);
    await stopping;
    for (const response of [resumed, launched]) {
      assert.equal(response.status, 503);
      assert.equal((await response.json()).error.code, "daemon_stopping");
    }
    assert.deepEqual(
      storedSessions(t.home).map((row) => [row.id, row.status]),
      [[id, "completed"]],
      "nothing was started or resumed",
    );
  } finally {
    await t[Symbol.asyncDispose]();
    await removeTree(project);
  }
});
