/**
 * Stop signals of `svc serve` (D1): SIGTERM right after the socket answers,
 * and SIGHUP (its terminal closed, issue 38 item 6), stop the daemon
 * gracefully: exit 0.
 */
import assert from "node:assert/strict";
import { SvcClient } from "../../src/client/client.ts";
import { fixtureHarnesses, restartTestDaemon } from "../helpers/daemon.ts";
import { removeTree, tempHome } from "../helpers/home.ts";
import { TMUX_INSTALLED } from "../helpers/tmux.ts";
import { tmuxPanes } from "./tmux_panes.ts";
import { runSvc, startServe } from "../helpers/process.ts";

Deno.test("SIGTERM at once after start is a graceful stop, not a kill (exit 0)", async () => {
  for (let i = 0; i < 3; i++) {
    const home = await tempHome();
    try {
      const serve = await startServe(home);
      const status = await serve.stop("SIGTERM");
      assert.equal(status.code, 0, serve.stderr());
    } finally {
      await removeTree(home);
    }
  }
});

Deno.test("svc serve's help and bad usage read the same through its own start path (D1, issue 26)", async () => {
  const help = await runSvc(["serve", "--help"]);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /^Usage: svc serve \[--home DIR\]/);
  const bad = await runSvc(["serve", "--bogus"]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /^svc serve: unknown option --bogus\n\nUsage: svc serve/);
  const badTcp = await runSvc(["serve", "--tcp", "0.0.0.0:1"]);
  assert.equal(badTcp.code, 2, badTcp.stderr);
  assert.match(badTcp.stderr, /^svc serve: /);
  // The command table still lists it.
  const listed = await runSvc(["help", "serve"]);
  assert.equal(listed.stdout, help.stdout);
});

/** A home whose config holds the fixture harnesses, and a project to launch in. */
async function fixtureHome(): Promise<{ home: string; project: string }> {
  const home = await tempHome();
  const project = await Deno.realPath(await tempHome());
  await Deno.writeTextFile(
    `${home}/config.json`,
    JSON.stringify({ harnesses: fixtureHarnesses() }),
  );
  return { home, project };
}

/** Launches a `fixture-stdin` session, which runs until its stdin closes; returns its id. */
async function launchWaiting(home: string, project: string): Promise<string> {
  const client = new SvcClient({ socketPath: `${home}/svc.sock` });
  try {
    const launched = await client.post<{ id: string; status: string }>("/sessions", {
      projectRoot: project,
      harness: "fixture-stdin",
      prompt: "waits for input",
    });
    assert.equal(launched.status, 201, JSON.stringify(launched.body));
    assert.equal(launched.body.status, "running");
    return launched.body.id;
  } finally {
    client.close();
  }
}

/** The session's status as a daemon started again on `home` records it. */
async function statusAfterRestart(home: string, sessionId: string): Promise<string> {
  // Start-up recovery records a session left `running` as `orphaned`.
  await using after = await restartTestDaemon({ home });
  return (await after.client.get<{ status: string }>(`/sessions/${sessionId}`)).body.status;
}

/** `svc serve` (under `wrapper`) on a fixture home, with one live session. */
async function serveWithLiveSession(wrapper: string[] = []) {
  const { home, project } = await fixtureHome();
  const serve = await startServe(home, [], {}, wrapper);
  return {
    home,
    serve,
    sessionId: await launchWaiting(home, project),
    async [Symbol.asyncDispose]() {
      await serve.stop("SIGKILL");
      await removeTree(home);
      await removeTree(project);
    },
  };
}

Deno.test("SIGHUP (its terminal closed) stops svc serve as SIGTERM does: sessions end killed, exit 0", async () => {
  await using served = await serveWithLiveSession();
  const status = await served.serve.stop("SIGHUP");
  assert.equal(status.signal, null, served.serve.stderr());
  assert.equal(status.code, 0, served.serve.stderr());
  assert.match(served.serve.stderr(), /INFO svc daemon stopping\n/);
  assert.match(served.serve.stderr(), /INFO svc daemon stopped\n/);
  assert.equal(await statusAfterRestart(served.home, served.sessionId), "killed");
});

Deno.test({
  name: "svc serve in a terminal that is closed stops gracefully: logged, sessions end killed",
  ignore: !TMUX_INSTALLED,
  async fn() {
    const { home, project } = await fixtureHome();
    const dir = await tempHome();
    const tmux = tmuxPanes(dir);
    try {
      await tmux.start("serve", { home, cwd: project, args: ["serve"] });
      await tmux.waitFor("serve", /INFO svc daemon started/);
      const sessionId = await launchWaiting(home, project);
      // The terminal goes away: its processes get SIGHUP, and stderr no longer writes.
      await tmux.run("kill-session", "-t", "serve");
      const deadline = Date.now() + 30_000;
      let log = "";
      while (!/INFO svc daemon stopped\n/.test(log)) {
        assert.ok(Date.now() < deadline, `The daemon never logged its stop:\n${log}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
        log = await Deno.readTextFile(`${home}/logs/daemon.log`);
      }
      assert.match(log, /INFO svc daemon stopping\n/);
      assert.equal(await statusAfterRestart(home, sessionId), "killed");
    } finally {
      await tmux.kill();
      await removeTree(dir);
      await removeTree(home);
      await removeTree(project);
    }
  },
});

Deno.test({
  name: "SIGHUP ignored when svc serve started (nohup) stays ignored: the daemon keeps running",
  ignore: Deno.build.os !== "linux",
  async fn() {
    await using served = await serveWithLiveSession(["nohup"]);
    served.serve.child.kill("SIGHUP");
    const client = new SvcClient({ socketPath: `${served.home}/svc.sock` });
    try {
      // A SIGHUP handled would have the daemon stopping within this wait.
      await new Promise((resolve) => setTimeout(resolve, 500));
      const record = await client.get<{ status: string }>(`/sessions/${served.sessionId}`);
      assert.equal(record.body.status, "running");
    } finally {
      client.close();
    }
    assert.doesNotMatch(served.serve.stderr(), /svc daemon stopping/);
    const status = await served.serve.stop("SIGTERM");
    assert.equal(status.code, 0, served.serve.stderr());
  },
});
