/**
 * Ctrl-C stops the CLI's followers after a long quiet stream (issue 27 item
 * 1): `svc events --follow`, `svc watch` and `svc sessions start --follow`,
 * each in a real terminal, wait 60 s with nothing but keep-alives, then exit
 * 130 within a second of Ctrl-C. Skipped, with a warning, without tmux.
 */
import assert from "node:assert/strict";
import { removeTree, tempHome } from "../helpers/home.ts";
import { startCliDaemon } from "./cli_daemon.ts";
import { tmuxPanes } from "./tmux_panes.ts";
import { TMUX_INSTALLED } from "../helpers/tmux.ts";

if (!TMUX_INSTALLED) {
  console.warn("\n*** quiet_stream_tmux_test.ts SKIPPED: tmux is not installed ***\n");
}

/** Longer than the 45 s after which the fetch body stopped seeing the abort. */
const QUIET_MS = 60_000;

Deno.test({
  name: "events --follow, watch and sessions start --follow exit 130 at Ctrl-C after 60 s of quiet",
  ignore: !TMUX_INSTALLED,
  async fn() {
    await using d = await startCliDaemon();
    const launched = await d.client.post<{ id: string }>("/sessions", {
      projectRoot: d.project,
      harness: "agent",
      prompt: "hang",
    });
    assert.equal(launched.status, 201);
    const dir = await tempHome();
    const tmux = tmuxPanes(dir);
    const panes: Record<string, { args: string[]; ready: RegExp }> = {
      events: { args: ["events", launched.body.id, "--follow"], ready: /^you › hang$/m },
      watch: { args: ["watch"], ready: /^svc watch: connected/m },
      start: {
        args: [
          "sessions",
          "start",
          "--project-root",
          d.project,
          "--harness",
          "agent",
          "--follow",
          "hang",
        ],
        ready: /^you › hang$/m,
      },
    };
    try {
      for (const [name, { args }] of Object.entries(panes)) {
        await tmux.start(name, { home: d.home, cwd: d.project, args });
      }
      for (const [name, { ready }] of Object.entries(panes)) await tmux.waitFor(name, ready);
      await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
      await Promise.all(Object.keys(panes).map((name) => tmux.keys(name, "C-c")));
      const sent = Date.now();
      // The shell's "exit=" follows the echoed ^C on the same line.
      const screens = await Promise.all(
        Object.keys(panes).map((name) => tmux.waitFor(name, /exit=\d+$/m, 1_000)),
      );
      for (const [index, name] of Object.keys(panes).entries()) {
        assert.match(screens[index], /exit=130$/m, name);
      }
      assert.ok(Date.now() - sent <= 1_000, "every follower exited within 1 s");
    } finally {
      await tmux.kill();
      await removeTree(dir);
    }
  },
});
