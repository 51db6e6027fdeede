/**
 * Contexts over a real OpenSSH (D32): a private sshd on 127.0.0.1 reaches a
 * second daemon home through `ssh … svc dial-stdio`; every read command, a
 * launch, an approval, a kill and `svc events --follow` go through it, and
 * each way it can fail is a clear error naming the context within 15 s.
 */
import assert from "node:assert/strict";
import { waitForEnd } from "../helpers/daemon.ts";
import { MAIN, runSvc } from "../helpers/process.ts";
import { HOSTS, sshdInstalled, startSshd, type TestSshd } from "../helpers/sshd.ts";
import { startCliDaemon, textReader } from "./cli_daemon.ts";

const SSHD_INSTALLED = sshdInstalled();
if (!SSHD_INSTALLED) {
  console.warn(
    "\n*** contexts_ssh_test.ts SKIPPED: sshd is not installed, so contexts over ssh are not " +
      "tested. Install it (apt-get install -y openssh-server) to run this test. ***\n",
  );
}

/** D32's bound on every failure, with the CLI's own start-up included. */
const ERROR_BOUND_MS = 15_000;

/** `ssh://ALIAS?…` running the checkout's svc on the "remote" side. */
function contextUrl(sshd: TestSshd, host: string, home: string | null): string {
  const query = [
    ...(home === null ? [] : [`home=${encodeURIComponent(home)}`]),
    `svc=${encodeURIComponent(sshd.svcPath)}`,
  ];
  return `ssh://${host}?${query.join("&")}`;
}

Deno.test({
  name: "a context over ssh carries every command, a follow, and names each failure",
  ignore: !SSHD_INSTALLED,
  async fn(t) {
    await using sshd = await startSshd();
    await using d = await startCliDaemon();
    // No SVC_HOME: the local daemon is ~/.svc of an empty HOME, so only the context can answer.
    const env: Record<string, string> = { ...sshd.env, HOME: `${sshd.env.XDG_CONFIG_HOME}/home` };
    const svc = (args: string[], options: { timeoutMs?: number } = {}) =>
      runSvc(args, env, { timeoutMs: options.timeoutMs ?? 60_000 });
    const added = await svc(["context", "add", "box", contextUrl(sshd, HOSTS.ok, d.home)]);
    assert.equal(added.code, 0, added.stderr);
    const box = (args: string[]) => svc([...args, "--context", "box"]);

    await t.step("the contexts file is 0600", async () => {
      const path = `${env.XDG_CONFIG_HOME}/svc/contexts.json`;
      assert.equal((await Deno.stat(path)).mode! & 0o777, 0o600);
    });

    const sessionId = await d.start("fixture", "out hello");
    await waitForEnd(d.client, sessionId);

    await t.step("every read command answers through the context", async () => {
      const reads: Array<[string[], RegExp]> = [
        [["status"], new RegExp(`endpoint:\\s+${d.home}/svc\\.sock \\(unix\\)`)],
        [["capabilities"], /svc\.sessions/],
        [["sessions", "list"], new RegExp(`^${sessionId}\\s+completed`, "m")],
        [["sessions", "show", sessionId], /^status:\s+completed$/m],
        [["events", sessionId], /hello/],
        [["approvals"], /^No pending approvals$/m],
        [["approvals", "rules"], /^No approval rules$/m],
        [["approvals", "log"], /^No decisions$/m],
        [["automations", "list"], /./],
        [["inbox"], /./],
        [["worktrees", "list"], /./],
        [["usage"], /./],
      ];
      for (const [args, expected] of reads) {
        const result = await box(args);
        assert.equal(result.code, 0, `svc ${args.join(" ")}: ${result.stderr}`);
        assert.match(result.stdout, expected, `svc ${args.join(" ")}`);
      }
    });

    await t.step("one command's requests share one ssh (keep-alive), not one each", async () => {
      const before = await sshd.sshCalls();
      // /health, then the routine list and the next routine: several requests on one connection.
      const result = await box(["status"]);
      assert.equal(result.code, 0, result.stderr);
      assert.equal(await sshd.sshCalls() - before, 1);
    });

    await t.step("a launch, an approval and a kill go through the context", async () => {
      const launch = ["sessions", "start", "--harness", "agent", "--approvals", "ask"];
      const started = await box([...launch, "--project-root", d.project, "ask Bash touch x"]);
      assert.equal(started.code, 0, started.stderr);
      const agentId = started.stdout.trim();
      let pending = "";
      const deadline = Date.now() + 30_000;
      while (!pending.includes("req_1") && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        pending = (await box(["approvals"])).stdout;
      }
      assert.match(pending, new RegExp(`^${agentId}\\s+req_1\\s+Bash`, "m"));
      const approved = await box(["approve", agentId, "req_1"]);
      assert.equal(approved.code, 0, approved.stderr);
      assert.equal(approved.stdout, `Allowed Bash: touch x (${agentId} req_1)\n`);

      const follow = new Deno.Command(Deno.execPath(), {
        args: ["run", "--allow-all", MAIN, "events", agentId, "--follow", "--context", "box"],
        env: { NO_COLOR: "1", ...env },
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      const hang = setTimeout(() => follow.kill("SIGKILL"), 60_000);
      const followed = textReader(follow.stdout);
      assert.match(await followed.until("turn 1 completed"), /✓ request req_1 allowed \(owner\)/);
      assert.equal((await box(["sessions", "close", agentId])).code, 0);
      const status = await follow.status;
      clearTimeout(hang);
      assert.equal(status.code, 0, "svc events --follow over ssh ends with the session");
      await followed.rest();
      await follow.stderr.cancel();

      const sleeperId = await d.start("fixture", "sleep 60000");
      const killed = await box(["sessions", "kill", sleeperId, "--signal", "SIGKILL"]);
      assert.equal(killed.code, 0, killed.stderr);
      assert.equal((await waitForEnd(d.client, sleeperId)).status, "killed");
    });

    await t.step("--all-contexts includes the context beside local", async () => {
      const listed = await svc(["sessions", "list", "--all-contexts"]);
      assert.match(listed.stdout, new RegExp(`^box\\s+${sessionId}`, "m"));
      assert.match(listed.stderr, /^local: svc is not running/m, "local has no daemon here");
      assert.equal(listed.code, 3);
    });

    const emptyHome = await Deno.makeTempDir();
    const oldApi = await fakeDaemon("svc.daemon.v0");
    const failures: Array<[string, string, RegExp]> = [
      [
        "unknown host key",
        contextUrl(sshd, HOSTS.unknownKey, d.home),
        /host key of "svc-test-unknown-key" is not in your known_hosts.*svc never adds one/,
      ],
      [
        "refused key",
        contextUrl(sshd, HOSTS.refusedKey, d.home),
        /ssh refused the login to "svc-test-refused-key" \(.*Permission denied/,
      ],
      [
        "unreachable host",
        contextUrl(sshd, HOSTS.unreachable, d.home),
        /host "svc-test-unreachable" is unreachable \(.*Connection refused\)/,
      ],
      [
        "no svc on the remote",
        `ssh://${HOSTS.ok}?home=${encodeURIComponent(d.home)}&svc=%2Fnowhere%2Fsvc`,
        /no svc on "svc-test": the remote shell cannot run "\/nowhere\/svc"/,
      ],
      [
        "no daemon on the remote",
        contextUrl(sshd, HOSTS.ok, emptyHome),
        /no daemon answers on "svc-test": svc is not running: no daemon answers on ".*svc\.sock"/,
      ],
    ];
    try {
      for (const [cause, url, message] of failures) {
        await t.step(`${cause}: exit 3 within 15 s, naming the context`, async () => {
          const name = cause.replaceAll(" ", "-");
          assert.equal((await svc(["context", "add", name, url])).code, 0);
          const startedAt = Date.now();
          const result = await svc(["status", "--context", name], { timeoutMs: ERROR_BOUND_MS });
          assert.ok(Date.now() - startedAt < ERROR_BOUND_MS, `${cause} took too long`);
          assert.equal(result.code, 3, result.stderr);
          assert.match(result.stderr, new RegExp(`^svc status: Cannot reach context "${name}": `));
          assert.match(result.stderr, message);
        });
      }
      await t.step("svc never adds the unknown host key to known_hosts", async () => {
        const knownHosts = `${sshd.binDir}/../empty_known_hosts`;
        assert.equal(await Deno.readTextFile(knownHosts), "");
      });
      await t.step(
        "a remote svc of another API version: exit 1 within 15 s, naming it",
        async () => {
          assert.equal(
            (await svc(["context", "add", "old", contextUrl(sshd, HOSTS.ok, oldApi.home)])).code,
            0,
          );
          const startedAt = Date.now();
          const result = await svc(["sessions", "list", "--context", "old"], {
            timeoutMs: ERROR_BOUND_MS,
          });
          assert.ok(Date.now() - startedAt < ERROR_BOUND_MS);
          assert.equal(result.code, 1, result.stderr);
          assert.match(
            result.stderr,
            /The daemon on context "old" speaks "svc\.daemon\.v0", this client needs "svc\.daemon\.v1"/,
          );
        },
      );
    } finally {
      await oldApi.stop();
      await Deno.remove(emptyHome, { recursive: true });
    }
  },
});

/** A daemon stand-in on a socket of its own home that answers `/health` with `apiVersion`. */
async function fakeDaemon(
  apiVersion: string,
): Promise<{ home: string; stop(): Promise<void> }> {
  const home = await Deno.makeTempDir();
  const server = Deno.serve(
    { path: `${home}/svc.sock`, onListen: () => {} },
    () => Response.json({ ok: true, apiVersion, instanceId: "old", capabilities: [] }),
  );
  return {
    home,
    async stop() {
      await server.shutdown();
      await Deno.remove(home, { recursive: true });
    },
  };
}
