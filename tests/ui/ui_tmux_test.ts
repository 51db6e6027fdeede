/**
 * `svc ui` in a real terminal (D25): a tmux pane runs it against a real
 * daemon with the scripted stream-json agent, and the test types keys and
 * reads the screen. Skipped, with a warning, where tmux is not installed.
 */
import assert from "node:assert/strict";
import { restartTestDaemon, startTestDaemon, type TestDaemon } from "../helpers/daemon.ts";
import { removeTree, tempHome } from "../helpers/home.ts";
import { MAIN } from "../helpers/process.ts";
import { shellQuote, TMUX_INSTALLED, tmuxPane } from "../helpers/tmux.ts";

if (!TMUX_INSTALLED) {
  console.warn(
    "\n*** ui_tmux_test.ts SKIPPED: tmux is not installed, so `svc ui` is not tested in a real " +
      "terminal. Install it (apt-get install -y tmux) to run this test. ***\n",
  );
}

const agentScript = new URL("../fixtures/stream_json_agent.ts", import.meta.url).pathname;
const CONFIG = {
  harnesses: {
    agent: { command: [Deno.execPath(), "run", "-A", agentScript], protocol: "claude" },
  },
  ui: { stalledAfterSeconds: 600 },
};
const HOSTILE = "\x1b]0;pwned\x07\x1b[2J\x1b]52;c;SGVsbG8=\x07\x9b1m\x07";

/**
 * Runs `svc ui` in the pane. CI is unset (Ink draws only a final frame when
 * it believes it runs in CI); NO_COLOR is set so the screen reads plainly.
 * After svc exits the pane prints its exit code and the terminal's mode.
 */
function uiCommand(home: string): string {
  const svc = [Deno.execPath(), "run", "--allow-all", MAIN, "ui", "--home", home]
    .map(shellQuote).join(" ");
  return `env -u CI NO_COLOR=1 ${svc}; echo "ui-exit=$?"; ` +
    `echo "tty=$(stty -a | tr ' ;' '\\n\\n' | grep -x -- '-*icanon')"; exec sleep 600`;
}

Deno.test({
  name: "svc ui in tmux: launch from the form, approve with y, interrupt, n, resize, restart, quit",
  ignore: !TMUX_INSTALLED,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const home = await tempHome();
    const project = await Deno.realPath(await tempHome());
    const dir = await tempHome();
    let daemon: TestDaemon = await startTestDaemon({ home, configJson: CONFIG });
    const pane = tmuxPane(dir, "ui");
    try {
      await pane.start(uiCommand(home), { cwd: project, columns: 120, rows: 30 });
      await pane.waitFor(/No sessions\. c starts one\./);
      assert.equal(await pane.format("#{alternate_on}"), "1", "the alternate screen");

      // A session from the form; its tool call waits for the owner.
      await pane.keys(["c"], true);
      await pane.waitFor(/harness +‹ agent/);
      await pane.keys(["ask Bash npm test"], true);
      await pane.keys(["Enter"]);
      await pane.waitFor(/\? Bash: Bash: npm test/);
      assert.equal(await pane.format("#{pane_title}"), "svc — 1 need you");

      // y from the approvals view: the tool ran and the agent says so.
      await pane.keys(["3"], true);
      await pane.waitFor(/Approvals.*\n(.*\n)*›ses_\w+ +agent +Bash/);
      await pane.keys(["y"], true);
      await pane.waitFor(/Allowed/);
      await pane.keys(["4"], true);
      await pane.waitFor(/agent › allowed/);
      await pane.waitFor(/✓ turn 1 completed/);

      // A turn interrupted with Ctrl-C.
      await pane.keys(["i", "hang"], true);
      await pane.keys(["Enter"]);
      await pane.waitFor(/you › hang/);
      await pane.keys(["C-c"]);
      await pane.waitFor(/⊘ turn 2 interrupted/);

      // Another agent asks; n jumps to it from the session view.
      const other = await daemon.client.post<{ id: string }>("/sessions", {
        harness: "agent",
        projectRoot: project,
        prompt: `ask Tool${HOSTILE} ls`,
        title: `hostile ${HOSTILE}`,
      });
      await pane.waitFor(/3 Approvals\(1\)/);
      await pane.keys(["n"], true);
      await pane.waitFor(new RegExp(`${other.body.id} agent`));
      const hostileScreen = await pane.waitFor(/\? Tool\^\[\]0;pwned\^G/);
      assert.match(hostileScreen, /hostile \^\[\]0;pwned\^G\^\[\[2J/);
      // deno-lint-ignore no-control-regex
      assert.doesNotMatch(await pane.screen(true), /\x1b\]|\x1b\[2J|\x07/);
      assert.match(await pane.format("#{pane_title}"), /^svc/, "OSC 0 never reached tmux");

      // 80×24 and back: the header and the fleet still fit.
      await pane.keys(["1"], true);
      await pane.resize(80, 24);
      let screen = await pane.waitFor(/^1 Fleet 2 Attention/m);
      for (const line of screen.split("\n")) assert.ok([...line].length <= 80, line);
      assert.match(screen, /2 sessions live/);
      await pane.resize(120, 30);
      screen = await pane.waitFor(/PROJECT/);

      // The daemon stops: a banner; it comes back: a resync and a banner saying so.
      await daemon[Symbol.asyncDispose]();
      await pane.waitFor(/No daemon answers|went away/);
      daemon = await restartTestDaemon({ home, configJson: CONFIG });
      await pane.waitFor(/The daemon restarted: everything was read again/, 30_000);

      // q: the terminal is given back as it was.
      await pane.keys(["q"], true);
      screen = await pane.waitFor(/^tty=/m);
      assert.match(screen, /^ui-exit=0$/m);
      assert.match(screen, /^tty=icanon$/m);
      assert.equal(await pane.format("#{alternate_on}"), "0");
      assert.equal(await pane.format("#{cursor_flag}"), "1");
    } finally {
      await pane.kill();
      await daemon[Symbol.asyncDispose]();
      await removeTree(dir);
      await removeTree(project);
      await removeTree(home);
    }
  },
});

Deno.test({
  name: "svc ui in tmux: SIGTERM gives the terminal back; no terminal is exit 2",
  ignore: !TMUX_INSTALLED,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const home = await tempHome();
    const dir = await tempHome();
    await using _daemon = await startTestDaemon({ home, configJson: CONFIG });
    const pane = tmuxPane(dir, "ui");
    try {
      await pane.start(uiCommand(home), { cwd: dir, columns: 100, rows: 30 });
      await pane.waitFor(/No sessions/);
      const pid = (await pane.format("#{pane_pid}")).trim();
      // The shell's child is `deno run … ui`: signal it as a window manager or `kill` would.
      const children = await new Deno.Command("pgrep", { args: ["-P", pid], stdout: "piped" })
        .output();
      const uiPid = new TextDecoder().decode(children.stdout).trim().split("\n")[0];
      Deno.kill(Number(uiPid), "SIGTERM");
      const screen = await pane.waitFor(/^tty=/m);
      assert.match(screen, /^ui-exit=143$/m);
      assert.match(screen, /^tty=icanon$/m);
      assert.equal(await pane.format("#{alternate_on}"), "0");
      assert.equal(await pane.format("#{cursor_flag}"), "1");

      const piped = await new Deno.Command(Deno.execPath(), {
        args: ["run", "--allow-all", MAIN, "ui", "--home", home],
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert.equal(piped.code, 2);
      assert.match(
        new TextDecoder().decode(piped.stderr),
        /svc ui needs a terminal \(try svc watch\)/,
      );
    } finally {
      await pane.kill();
      await removeTree(dir);
      await removeTree(home);
    }
  },
});
