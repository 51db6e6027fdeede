/** `svc serve`, `status` and `stop` as real processes (D1, D2, issue 2). */
import assert from "node:assert/strict";
import { removeTree, tempHome } from "../helpers/home.ts";
import { runSvc, startServe } from "../helpers/process.ts";

Deno.test("svc serve: status shows the endpoint, SIGTERM removes the socket", async () => {
  const home = await tempHome();
  const serve = await startServe(home);
  try {
    const status = await runSvc(["status", "--home", home]);
    assert.equal(status.code, 0, status.stderr);
    assert.ok(status.stdout.includes(`${home}/svc.sock`), status.stdout);
    const json = await runSvc(["status", "--home", home, "--json"]);
    assert.equal(JSON.parse(json.stdout).apiVersion, "svc.daemon.v1");
  } finally {
    const result = await serve.stop("SIGTERM");
    assert.equal(result.code, 0, serve.stderr());
  }
  await assert.rejects(() => Deno.lstat(`${home}/svc.sock`), Deno.errors.NotFound);
  assert.ok((await Deno.readTextFile(`${home}/logs/daemon.log`)).includes("svc daemon stopped"));
  await removeTree(home);
});

Deno.test("svc serve: a second serve on the same home exits 2 naming the pid", async () => {
  const home = await tempHome();
  const serve = await startServe(home);
  try {
    const second = await runSvc(["serve", "--home", home]);
    assert.equal(second.code, 2);
    assert.match(second.stderr, new RegExp(`already running \\(pid ${serve.child.pid}\\)`));
  } finally {
    await serve.stop();
    await removeTree(home);
  }
});

Deno.test("svc serve: a stale socket left by kill -9 is replaced", async () => {
  const home = await tempHome();
  const crashed = await startServe(home);
  await crashed.stop("SIGKILL");
  assert.ok((await Deno.lstat(`${home}/svc.sock`)).isSocket, "kill -9 leaves the socket file");
  const serve = await startServe(home);
  try {
    const status = await runSvc(["status", "--home", home, "--json"]);
    assert.equal(status.code, 0, serve.stderr());
    assert.equal(JSON.parse(status.stdout).pid, serve.child.pid);
  } finally {
    await serve.stop();
    await removeTree(home);
  }
});

Deno.test("svc serve: a non-socket file at the socket path is never removed", async () => {
  const home = await tempHome();
  await Deno.writeTextFile(`${home}/svc.sock`, "precious");
  const result = await runSvc(["serve", "--home", home]);
  assert.equal(result.code, 2);
  assert.match(result.stderr, /is not a socket/);
  assert.equal(await Deno.readTextFile(`${home}/svc.sock`), "precious");
  await removeTree(home);
});

Deno.test("svc serve: bad flags, non-loopback --tcp, bad home and bad config exit 2", async (t) => {
  const home = await tempHome();
  await t.step("--tcp 0.0.0.0:3000", async () => {
    const result = await runSvc(["serve", "--home", home, "--tcp", "0.0.0.0:3000"]);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /not a loopback address/);
  });
  await t.step("an unknown flag", async () => {
    const result = await runSvc(["serve", "--home", home, "--bogus"]);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /bogus/);
    assert.match(result.stderr, /Usage: svc serve/);
  });
  await t.step("an invalid config names the field", async () => {
    await Deno.writeTextFile(`${home}/config.json`, JSON.stringify({ maxLiveSessions: "many" }));
    const result = await runSvc(["serve", "--home", home]);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /"maxLiveSessions"/);
    await Deno.remove(`${home}/config.json`);
  });
  await t.step("a home that others can write", async () => {
    await Deno.chmod(home, 0o777);
    const result = await runSvc(["serve", "--home", home]);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /writable by group or others/);
    await Deno.chmod(home, 0o700);
  });
  await removeTree(home);
});

Deno.test("svc status and stop exit 3 with no daemon; stop ends a running one", async () => {
  const home = await tempHome();
  const none = await runSvc(["status", "--home", home]);
  assert.equal(none.code, 3);
  assert.match(none.stderr, /not running/);
  assert.equal((await runSvc(["stop", "--home", home])).code, 3);

  const serve = await startServe(home);
  const stop = await runSvc(["stop", "--home", home]);
  assert.equal(stop.code, 0, stop.stderr);
  const status = await serve.stop();
  assert.equal(status.code, 0);
  await assert.rejects(() => Deno.lstat(`${home}/svc.sock`), Deno.errors.NotFound);
  await removeTree(home);
});

Deno.test("svc --version, help and unknown commands", async () => {
  const version = await runSvc(["--version"]);
  assert.equal(version.code, 0);
  assert.match(version.stdout, /^svc \S+ \(svc\.daemon\.v1\)/);
  const help = await runSvc(["help", "serve"]);
  assert.match(help.stdout, /Usage: svc serve/);
  const unknown = await runSvc(["frobnicate"]);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /unknown command "frobnicate"/);
});
