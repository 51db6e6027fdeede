/**
 * `svc ui --all-contexts` in a real terminal over a real OpenSSH (D32): a
 * local daemon and a second one reached through a private sshd, one fleet
 * with a HOST column, a remote agent's permission request answered from the
 * UI, and the remote's banner when its daemon stops, gone when it is back.
 * Skipped, loudly, without tmux or sshd.
 */
import assert from "node:assert/strict";
import { restartTestDaemon, startTestDaemon, type TestDaemon } from "../helpers/daemon.ts";
import { removeTree, tempHome } from "../helpers/home.ts";
import { MAIN, runSvc } from "../helpers/process.ts";
import { HOSTS, sshdInstalled, startSshd } from "../helpers/sshd.ts";
import { shellQuote, TMUX_INSTALLED, tmuxPane } from "../helpers/tmux.ts";

const RUNNABLE = TMUX_INSTALLED && sshdInstalled();
if (!RUNNABLE) {
  console.warn(
    "\n*** contexts_tmux_test.ts SKIPPED: tmux or sshd is not installed, so `svc ui " +
      "--all-contexts` is not tested over ssh. Install them (apt-get install -y tmux " +
      "openssh-server) to run this test. ***\n",
  );
}

const agentScript = new URL("../fixtures/stream_json_agent.ts", import.meta.url).pathname;
const CONFIG = {
  harnesses: {
    agent: { command: [Deno.execPath(), "run", "-A", agentScript], protocol: "claude" },
  },
  ui: { stalledAfterSeconds: 600 },
};

/** An away host's banner (the feed dropped, or no daemon answers the next connection). */
const BOX_AWAY = /^box: (No daemon answers|The daemon went away)/m;

Deno.test({
  name: "svc ui --all-contexts in tmux: both hosts' fleets, a remote approval answered, " +
    "the remote's banner while its daemon is down",
  ignore: !RUNNABLE,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    await using sshd = await startSshd();
    const localHome = await tempHome();
    const remoteHome = await tempHome();
    const project = await Deno.realPath(await tempHome());
    const dir = await tempHome();
    await using local = await startTestDaemon({ home: localHome, configJson: CONFIG });
    let remote: TestDaemon = await startTestDaemon({ home: remoteHome, configJson: CONFIG });
    const url = `ssh://${HOSTS.ok}?home=${encodeURIComponent(remoteHome)}&svc=${
      encodeURIComponent(sshd.svcPath)
    }`;
    const added = await runSvc(["context", "add", "box", url], sshd.env);
    assert.equal(added.code, 0, added.stderr);
    const pane = tmuxPane(dir, "ui");
    try {
      const localId = await launch(local, project, "say hello", "local work");
      const remoteId = await launch(remote, project, "ask Bash touch remote-file", "remote asks");

      const env = Object.entries({ ...sshd.env, NO_COLOR: "1" })
        .map(([name, value]) => `${name}=${shellQuote(value)}`).join(" ");
      const svc = [Deno.execPath(), "run", "--allow-all", MAIN, "ui", "--all-contexts"]
        .concat(["--home", localHome]).map(shellQuote).join(" ");
      await pane.start(`env -u CI ${env} ${svc}; echo "ui-exit=$?"; exec sleep 600`, {
        cwd: project,
        columns: 120,
        rows: 30,
      });

      // One fleet: each session on its host's row, its id as that daemon names it.
      const fleet = await pane.waitFor(
        new RegExp(
          `box +${remoteId.slice(0, 12)}[\\s\\S]*local +${localId.slice(0, 12)}|` +
            `local +${localId.slice(0, 12)}[\\s\\S]*box +${remoteId.slice(0, 12)}`,
        ),
        60_000,
      );
      assert.match(fleet, /^ HOST +ID +STATE/m);
      assert.match(fleet, /svc · 2 hosts/);

      // The remote agent's request, in the one approval queue; answered from its session view.
      await pane.keys(["3"], true);
      await pane.waitFor(new RegExp(`›box +${remoteId.slice(0, 12)}\\w* +agent +Bash`), 30_000);
      await pane.keys(["Enter"]);
      await pane.waitFor(new RegExp(`${remoteId} on box agent`));
      await pane.waitFor(/\? Bash: touch remote-file/);
      await pane.keys(["y"], true);
      await pane.waitFor(/Allowed/);
      // The focused session's stream comes from its own host: the agent's reply, over ssh.
      await pane.waitFor(/agent › allowed/, 30_000);
      await pane.waitFor(/✓ turn 1 completed/, 30_000);
      const decisions = await remote.client.get("/approvals/log");
      assert.match(JSON.stringify(decisions.body), new RegExp(`"sessionId":"${remoteId}"`));

      // The remote daemon stops: box's banner, local's fleet still there.
      await pane.keys(["1"], true);
      await remote[Symbol.asyncDispose]();
      const away = await pane.waitFor(BOX_AWAY, 30_000);
      assert.match(away, new RegExp(`local +${localId.slice(0, 12)}`));
      assert.doesNotMatch(away, /^local:/m, "local has no banner");
      assert.match(away, /2 hosts \(1 away\)/);

      // It comes back: the away banner goes by itself (box says it restarted, then that goes too).
      remote = await restartTestDaemon({ home: remoteHome, configJson: CONFIG });
      await pane.waitFor(/^box: The daemon restarted/m, 45_000);
      const back = await pane.screen();
      assert.doesNotMatch(back, BOX_AWAY);
      assert.doesNotMatch(back, /\(1 away\)/);
      await pane.waitFor(/^(?![\s\S]*^box:)[\s\S]*HOST/m, 20_000);

      // Local's session is live: q asks first.
      await pane.keys(["q"], true);
      await pane.waitFor(/live and keeps? running after svc ui quits/);
      await pane.keys(["y"], true);
      const end = await pane.waitFor(/^ui-exit=\d+$/m);
      assert.match(end, /^ui-exit=0$/m);
    } finally {
      await pane.kill();
      await remote[Symbol.asyncDispose]().catch(() => {}); // Already stopped when a step failed.
      await removeTree(dir);
      await removeTree(project);
      await removeTree(remoteHome);
      await removeTree(localHome);
    }
  },
});

/** Launches the scripted agent on `daemon`; returns the session id. */
async function launch(
  daemon: TestDaemon,
  project: string,
  prompt: string,
  title: string,
): Promise<string> {
  const launched = await daemon.client.post<{ id: string }>("/sessions", {
    harness: "agent",
    projectRoot: project,
    prompt,
    title,
  });
  assert.equal(launched.status, 201, JSON.stringify(launched.body));
  return launched.body.id;
}
