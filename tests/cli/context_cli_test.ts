/** `svc context` and the global `--context` over unix:// contexts, against a real `svc serve` (D32). */
import assert from "node:assert/strict";
import { takeContextOption } from "../../src/cli/run_command.ts";
import { UsageError } from "../../src/cli/command.ts";
import { runSvc } from "../helpers/process.ts";
import { startCliDaemon } from "./cli_daemon.ts";

Deno.test("takeContextOption() takes --context NAME and --context=NAME before --", () => {
  assert.deepEqual(takeContextOption(["list", "--context", "box", "--json"]), {
    contexts: ["box"],
    args: ["list", "--json"],
  });
  assert.deepEqual(takeContextOption(["--context=box", "show", "x"]), {
    contexts: ["box"],
    args: ["show", "x"],
  });
  assert.deepEqual(takeContextOption(["input", "x", "--", "--context", "y"]), {
    contexts: [],
    args: ["input", "x", "--", "--context", "y"],
  });
  assert.deepEqual(takeContextOption(["--context", "a", "--context=b"]), {
    contexts: ["a", "b"],
    args: [],
  });
  assert.throws(() => takeContextOption(["list", "--context"]), UsageError);
  assert.throws(() => takeContextOption(["list", "--context="]), UsageError);
});

/** A fresh config directory and the environment that points svc at it (no SVC_HOME). */
async function configEnv(): Promise<{ env: Record<string, string>; dir: string }> {
  const dir = await Deno.makeTempDir();
  return { dir, env: { XDG_CONFIG_HOME: dir, HOME: dir } };
}

Deno.test("svc context add|ls|use|rm keep contexts.json 0600 and say what they did", async () => {
  const { dir, env } = await configEnv();
  try {
    const svc = (...args: string[]) => runSvc(["context", ...args], env);
    const added = await svc("add", "box", "ssh://me@box:2222?home=%2Fsrv%2Fsvc");
    assert.equal(added.code, 0, added.stderr);
    assert.equal(added.stdout, 'Added context "box" (ssh://me@box:2222?home=%2Fsrv%2Fsvc)\n');
    assert.equal((await Deno.stat(`${dir}/svc/contexts.json`)).mode! & 0o777, 0o600);
    assert.equal((await svc("add", "box", "unix:///tmp/x.sock")).code, 1, "a name is added once");
    const bad = await svc("add", "web", "http://box");
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /"http:\/\/box" is not a context URL/);
    assert.equal((await svc("add", "local", "unix:///tmp/x.sock")).code, 2);
    assert.equal((await svc("use", "nope")).code, 1);
    assert.equal((await svc("use", "box")).code, 0);
    const listed = await svc("ls");
    assert.match(listed.stdout, /^NAME\s+ENDPOINT$/m);
    assert.match(listed.stdout, /^local\s+this machine/m);
    assert.match(listed.stdout, /^box \*\s+ssh:\/\/me@box:2222\?home=%2Fsrv%2Fsvc$/m);
    const json = JSON.parse(
      (await runSvc(["context", "ls", "--json"], {
        ...env,
        SVC_CONTEXT: "local",
      })).stdout,
    );
    assert.deepEqual(json.map((c: { name: string; current: boolean }) => [c.name, c.current]), [
      ["local", true],
      ["box", false],
    ], "SVC_CONTEXT outranks the used context");
    const removed = await svc("rm", "box");
    assert.equal(removed.stdout, `Removed context "box"; the current context is now "local"\n`);
    assert.match((await svc("ls")).stdout, /^local \*/m);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("--context, SVC_CONTEXT and svc context use send a command to another daemon", async () => {
  await using d = await startCliDaemon();
  const { dir, env } = await configEnv();
  try {
    const socket = `unix://${d.home}/svc.sock`;
    assert.equal((await runSvc(["context", "add", "other", socket], env)).code, 0);
    const sessionId = await d.start("fixture", "hello");
    // No SVC_HOME: without a context these would ask ~/.svc, which has no daemon.
    const viaFlag = await runSvc(["sessions", "list", "--context", "other"], env);
    assert.equal(viaFlag.code, 0, viaFlag.stderr);
    assert.match(viaFlag.stdout, new RegExp(sessionId));
    const viaEnv = await runSvc(["sessions", "show", sessionId], { ...env, SVC_CONTEXT: "other" });
    assert.equal(viaEnv.code, 0, viaEnv.stderr);
    assert.equal((await runSvc(["context", "use", "other"], env)).code, 0);
    const viaUse = await runSvc(["status"], env);
    assert.equal(viaUse.code, 0, viaUse.stderr);
    const local = await runSvc(["status", "--context", "local"], {
      ...env,
      SVC_CONTEXT: "other",
      SVC_HOME: `${dir}/no-daemon`,
    });
    assert.equal(local.code, 3, "--context outranks SVC_CONTEXT");
    const withHome = await runSvc(["status", "--home", d.home], env);
    assert.equal(withHome.code, 2);
    assert.match(
      withHome.stderr,
      /--home names a daemon on this machine, but the context is "other"/,
    );
    const unknown = await runSvc(["status", "--context", "nope"], env);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /No context "nope"/);
    const localOnly = await runSvc(["logs", "--context", "other"], env);
    assert.equal(localOnly.code, 2);
    assert.match(localOnly.stderr, /--context is not accepted: "svc logs" works on this machine/);
    const twice = await runSvc(["status", "--context", "other", "--context", "local"], env);
    assert.equal(twice.code, 2, "one daemon, not the last named");
    assert.match(twice.stderr, /--context is given 2 times: "svc status" talks to one daemon/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("svc ui names a bad --context or --all-contexts with --context before asking for a terminal", async () => {
  const { dir, env } = await configEnv();
  try {
    const unknown = await runSvc(["ui", "--context", "local", "--context", "nope"], env);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /No context "nope"/);
    const both = await runSvc(["ui", "--all-contexts", "--context", "local"], env);
    assert.equal(both.code, 2);
    assert.match(both.stderr, /--all-contexts already shows every context: leave --context out/);
    const noTerminal = await runSvc(["ui", "--context", "local", "--context", "local"], env);
    assert.equal(noTerminal.code, 2);
    assert.match(noTerminal.stderr, /svc ui needs a terminal/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("--all-contexts lists local and every context in one table; a dead one is named on stderr", async () => {
  await using d = await startCliDaemon();
  const { dir, env } = await configEnv();
  try {
    await runSvc(["context", "add", "other", `unix://${d.home}/svc.sock`], env);
    await runSvc(["context", "add", "gone", `unix://${dir}/none.sock`], env);
    const sessionId = await d.start("fixture", "hello");
    const listed = await runSvc(["sessions", "list", "--all-contexts", "--home", d.home], env);
    assert.equal(listed.code, 3, "one context did not answer");
    assert.match(listed.stdout, /^CONTEXT\s+ID\s+STATUS/m);
    assert.match(listed.stdout, new RegExp(`^local\\s+${sessionId}`, "m"));
    assert.match(listed.stdout, new RegExp(`^other\\s+${sessionId}`, "m"));
    assert.match(listed.stderr, /^gone: svc is not running: no daemon answers on ".*none\.sock"/m);
    const json = await runSvc(["approvals", "--all-contexts", "--json", "--home", d.home], env);
    assert.deepEqual(JSON.parse(json.stdout), []);
    assert.match(json.stderr, /^gone: /m);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("svc context use|rm of an unknown name quote it escaped: no ESC, BEL or OSC 52 reaches the terminal", async () => {
  const { dir, env } = await configEnv();
  try {
    for (const verb of ["use", "rm"]) {
      const refused = await runSvc(["context", verb, "x\x1b]52;c;SGk=\x07\x1b[31my"], env);
      assert.equal(refused.code, 1, refused.stderr);
      assert.match(refused.stderr, /no context/);
      const printed = refused.stderr + refused.stdout;
      assert.ok(!printed.includes("\x1b") && !printed.includes("\x07"), printed);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
