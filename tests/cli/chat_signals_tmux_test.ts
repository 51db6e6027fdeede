/**
 * `svc chat` leaves a sane terminal whatever signal reaches it (issue 27
 * item 2): SIGTERM and SIGHUP restore canonical mode and echo before the
 * process exits; Ctrl-Z restores them while stopped and `fg` re-arms cbreak.
 * Skipped, with a warning, without tmux.
 */
import assert from "node:assert/strict";
import { removeTree, tempHome } from "../helpers/home.ts";
import { startCliDaemon } from "./cli_daemon.ts";
import { svcCommandLine, tmuxPanes } from "./tmux_panes.ts";
import { TMUX_INSTALLED } from "../helpers/tmux.ts";

if (!TMUX_INSTALLED) {
  console.warn("\n*** chat_signals_tmux_test.ts SKIPPED: tmux is not installed ***\n");
}

/** Whether `stty -a` output shows canonical mode with echo (true) or cbreak without (false). */
function canonical(modes: string): boolean {
  const flags = modes.split(/[\s;]+/);
  const icanon = flags.includes("icanon") && !flags.includes("-icanon");
  const echo = flags.includes("echo") && !flags.includes("-echo");
  assert.equal(icanon, echo, `icanon and echo go together:\n${modes}`);
  return icanon;
}

Deno.test({
  name: "chatCommand in tmux: SIGTERM and SIGHUP restore the terminal before exiting",
  ignore: !TMUX_INSTALLED,
  async fn() {
    await using d = await startCliDaemon();
    const dir = await tempHome();
    const tmux = tmuxPanes(dir);
    try {
      for (
        const [name, signal, code] of [["term", "SIGTERM", 143], ["quit", "SIGQUIT", 131]] as const
      ) {
        await tmux.start(name, {
          home: d.home,
          cwd: d.project,
          args: ["chat", "--harness", "agent"],
        });
        await tmux.waitFor(name, /type the first message/);
        assert.equal(canonical(await tmux.ttyModes(name)), false, "cbreak while chatting");
        Deno.kill(await tmux.childPid(name, /main\.ts chat/), signal);
        // The pane prints `exit=CODE`, then its `stty -a`: wait for both (they come in two writes).
        const screen = await tmux.waitFor(name, /^exit=\d+$[\s\S]* -?icanon /m);
        assert.match(screen, new RegExp(`^exit=${code}$`, "m"));
        assert.equal(canonical(await tmux.ttyModes(name)), true, `${signal} restored the terminal`);
        assert.match(screen, / icanon /, "the pane's own stty -a agrees");
      }
      // SIGHUP: the chat's terminal goes away; it must still exit, not hang.
      await tmux.start("hup", {
        home: d.home,
        cwd: d.project,
        args: ["chat", "--harness", "agent"],
      });
      await tmux.waitFor("hup", /type the first message/);
      Deno.kill(await tmux.childPid("hup", /main\.ts chat/), "SIGHUP");
      assert.match(await tmux.waitFor("hup", /^exit=\d+$/m), /^exit=129$/m);
    } finally {
      await tmux.kill();
      await removeTree(dir);
    }
  },
});

Deno.test({
  name: "chatCommand in tmux: Ctrl-Z gives the shell a sane terminal and fg re-arms cbreak",
  ignore: !TMUX_INSTALLED,
  async fn() {
    await using d = await startCliDaemon();
    const dir = await tempHome();
    const tmux = tmuxPanes(dir);
    try {
      await tmux.shell("job", d.project);
      await tmux.waitFor("job", /^\$ $/m);
      await tmux.typeLine("job", svcCommandLine(d.home, ["chat", "--harness", "agent"]));
      await tmux.waitFor("job", /type the first message/);
      assert.equal(canonical(await tmux.ttyModes("job")), false);

      await tmux.keys("job", "C-z");
      await tmux.waitFor("job", /Stopped/);
      assert.equal(canonical(await tmux.ttyModes("job")), true, "stopped: the shell's modes");

      await tmux.typeLine("job", "fg");
      await tmux.waitFor("job", /^› $/m);
      // The shell hands the terminal back before the chat's SIGCONT re-arms it.
      const deadline = Date.now() + 5_000;
      while (canonical(await tmux.ttyModes("job")) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.equal(canonical(await tmux.ttyModes("job")), false, "fg re-armed cbreak");
      await tmux.typeLine("job", "hello again");
      await tmux.waitFor("job", /^agent › echo: hello again$/m);

      await tmux.typeLine("job", "/close");
      await tmux.waitFor("job", /session completed/);
      await tmux.waitFor("job", /^\$ $/m);
      assert.equal(canonical(await tmux.ttyModes("job")), true, "closed: restored");
    } finally {
      await tmux.kill();
      await removeTree(dir);
    }
  },
});
