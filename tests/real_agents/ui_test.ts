/**
 * `svc ui` with a real agent (D25): Claude Code against the fake provider
 * asks to run a shell command; the owner answers `y` in svc ui's approvals
 * view, in a real terminal (tmux), and the command runs.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { removeTree, tempHome } from "../helpers/home.ts";
import { MAIN } from "../helpers/process.ts";
import { shellQuote, TMUX_INSTALLED, tmuxPane } from "../helpers/tmux.ts";
import { startAgentDaemon } from "./agent_daemon.ts";
import { requireAgent, runAgentTests } from "./agents_gate.ts";

Deno.test({
  name: "claude: a permission request answered with y in svc ui, and the tool ran (D25)",
  ignore: !runAgentTests || !TMUX_INSTALLED,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    requireAgent("claude");
    await using d = await startAgentDaemon("claude", {
      config: { turnTimeoutMinutes: 1, approvals: { timeoutSeconds: 60 } },
    });
    d.provider.script([
      {
        toolCall: {
          name: "Bash",
          arguments: { command: "touch from-ui.txt", description: "Make it" },
        },
      },
      { text: "The file is there." },
    ]);
    const sessionId = await d.launch({ prompt: "make the file", title: "real agent in svc ui" });
    const dir = await tempHome();
    const pane = tmuxPane(dir, "ui");
    try {
      const svc = [Deno.execPath(), "run", "--allow-all", MAIN, "ui", "--home", d.home]
        .map(shellQuote).join(" ");
      await pane.start(`env -u CI NO_COLOR=1 ${svc}; exec sleep 600`, {
        cwd: d.project,
        columns: 120,
        rows: 30,
      });
      await pane.waitFor(/3 Approvals\(1\)/, 60_000);
      await pane.keys(["3"], true);
      await pane.waitFor(/›ses_\w+ +claude +Bash +.*touch from-ui\.txt/);
      await pane.keys(["y"], true);
      await pane.waitFor(/Allowed/);
      const resolved = await d.waitForKind(sessionId, "agent.permission.resolved", 1);
      assert.equal(resolved[0].decision, "allow");
      assert.equal(resolved[0].by, "owner");
      await d.waitForKind(sessionId, "agent.turn", 1);
      assert.ok(
        await Deno.stat(join(d.project, "from-ui.txt")).then(() => true, () => false),
        "the allowed command ran",
      );
      await pane.keys(["4"], true);
      await pane.keys(["1"], true);
      await pane.keys(["Enter"]);
      await pane.waitFor(/The file is there\./);
      await pane.keys(["q"], true);
    } finally {
      await pane.kill();
      await removeTree(dir);
    }
  },
});
