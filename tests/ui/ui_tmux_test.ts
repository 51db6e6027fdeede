/**
 * `svc ui` in a real terminal (D25): a tmux pane runs it against a real
 * daemon with the scripted stream-json agent, and the test types keys and
 * reads the screen. Skipped, with a warning, where tmux is not installed.
 */
import assert from "node:assert/strict";
import { restartTestDaemon, startTestDaemon, type TestDaemon } from "../helpers/daemon.ts";
import { removeTree, tempHome } from "../helpers/home.ts";
import { MAIN } from "../helpers/process.ts";
import { svcUiCommand, TMUX_INSTALLED, tmuxPane } from "../helpers/tmux.ts";
import { KEYMAP } from "../../src/ui/keymap.ts";

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
      await pane.start(svcUiCommand(home), { cwd: project, columns: 120, rows: 30 });
      await pane.waitFor(/No sessions\. c starts one\./);
      assert.equal(await pane.format("#{alternate_on}"), "1", "the alternate screen");

      // A session from the form; its tool call waits for the owner.
      await pane.keys(["c"], true);
      await pane.waitFor(/harness +‹ agent/);
      await pane.keys(["ask Bash npm test"], true);
      await pane.keys(["Enter"]);
      await pane.waitFor(/\? Bash: npm test\n/);
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

      // Another agent asks; ! jumps to it from the session view.
      const other = await daemon.client.post<{ id: string }>("/sessions", {
        harness: "agent",
        projectRoot: project,
        prompt: `ask Tool${HOSTILE} ls`,
        title: `hostile ${HOSTILE}`,
      });
      await pane.waitFor(/3 Approvals\(1\)/);
      await pane.keys(["!"], true);
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

      // q (no session is live after the restart, so it does not ask): the terminal is given back.
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
      await pane.start(svcUiCommand(home), { cwd: dir, columns: 100, rows: 30 });
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

/** The long command of issue 38 item 1: its dangerous tail is what a cut line hid. */
const LONG_COMMAND = `echo ${"padding ".repeat(30)}&& rm -rf /tmp/svc-ui38-precious`;

/** The screen's text with its wrapping undone. */
function flat(screen: string): string {
  return screen.replace(/\s+/g, " ");
}

for (const [columns, rows] of [[80, 24], [200, 50]]) {
  Deno.test({
    name: `svc ui in tmux at ${columns}×${rows}: a request whole before its keys, ` +
      "one meaning per key, every key in ? (issue 38 items 1, 9, 8)",
    ignore: !TMUX_INSTALLED,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn(t) {
      const home = await tempHome();
      const project = await Deno.realPath(await tempHome());
      const dir = await tempHome();
      await using daemon = await startTestDaemon({ home, configJson: CONFIG });
      const pane = tmuxPane(dir, "ui");
      const fits = (screen: string) => {
        for (const line of screen.split("\n")) assert.ok([...line].length <= columns, line);
      };
      try {
        await pane.start(svcUiCommand(home), { cwd: project, columns, rows });
        await pane.waitFor(/No sessions\. c starts one\./);
        const launched = await daemon.client.post<{ id: string }>("/sessions", {
          harness: "agent",
          projectRoot: project,
          prompt: `ask Bash ${LONG_COMMAND}`,
          title: "long request",
        });
        const id = launched.body.id;
        await pane.waitFor(/3 Approvals\(1\)/);

        await t.step("1: the request whole, wrapped, before its keys, in both views", async () => {
          const views = [
            { keys: ["3"], heading: /Pending requests, oldest first/ },
            { keys: ["Enter"], heading: new RegExp(`${id} agent`) },
          ];
          for (const { keys, heading } of views) {
            await pane.keys(keys);
            await pane.waitFor(heading);
            const screen = await pane.waitFor(/y allow · n deny · a always/);
            assert.ok(flat(screen).includes(flat(`Bash: ${LONG_COMMAND}`)), screen);
            const tail = screen.indexOf("rm -rf /tmp/svc-ui38-precious");
            assert.ok(tail >= 0 && screen.indexOf("y allow") > tail, screen);
            assert.doesNotMatch(screen, /Bash: Bash:/);
            fits(screen);
          }
        });

        await t.step(
          "9: n denies in the session view, j/k and g scroll it, i resumes, q asks",
          async () => {
            await pane.keys(["n"], true);
            await pane.waitFor(/agent › denied/);
            assert.match(await pane.screen(), new RegExp(`${id} agent`), "n did not jump away");
            const many = Array.from({ length: 120 }, (_, i) => `row ${i}`).join("\n");
            await daemon.client.post(`/sessions/${id}/input`, { data: `rows\n${many}` });
            // The input's own echo shows row 119 too: wait for the turn's end, after the agent's reply.
            await pane.waitFor(/idle · 2 turns(.*\n)*.*row 119\n/);
            await pane.keys(["k"], true);
            await pane.waitFor(/scrolled back 1 line · G follows live/);
            await pane.keys(["j"], true);
            await pane.waitFor(/following live/);
            await pane.keys(["g"], true);
            const top = await pane.waitFor(/session started/);
            const filled = top.split("\n").filter((line) => line.trim() !== "").length;
            assert.ok(filled >= rows - 3, `g shows a whole page of the oldest lines:\n${top}`);
            await pane.keys(["G", "x"], true);
            await pane.waitFor(/ended · i types a turn that resumes it/);
            await pane.keys(["i", "now quit"], true);
            await pane.waitFor(/Enter resumes the conversation and sends this/);
            await pane.keys(["Enter"]);
            await pane.waitFor(/echo \(resumed [^)]*\): now quit/);
            await pane.keys(["q"], true);
            await pane.waitFor(
              /1 session is live and keeps running after svc ui quits\.(.*\n)*.*Quit\? y quits, n stays/,
            );
            await pane.keys(["n"], true);
            await pane.waitFor(/following live/);
          },
        );

        await t.step("8: ? shows every key, the session's first, nothing cut", async () => {
          await pane.keys(["?"], true);
          const screens = [await pane.waitFor(/Keys · Session first/)];
          assert.match(screens[0], /Session \(this view\)/);
          for (let page = 0; page < 5 && /PgDn more/.test(screens.at(-1) ?? ""); page++) {
            await pane.keys(["NPage"]);
            screens.push(await pane.waitFor(new RegExp(`page ${page + 2} of`)));
          }
          const all = screens.join("\n");
          for (const binding of KEYMAP) assert.ok(all.includes(binding.help), binding.help);
          const overlay = all.split("\n").filter((line) => line.startsWith("│")).join("\n");
          assert.doesNotMatch(overlay, /…|k\/↑/);
          screens.forEach(fits);
          await pane.keys(["Escape"]);
          await pane.waitFor(new RegExp(`${id} agent`));
        });

        await pane.keys(["q"], true);
        await pane.waitFor(/Quit\? y quits, n stays/);
        await pane.keys(["y"], true);
        assert.match(await pane.waitFor(/^tty=/m), /^ui-exit=0$/m);
      } finally {
        await pane.kill();
        await removeTree(dir);
        await removeTree(project);
        await removeTree(home);
      }
    },
  });
}
