/**
 * Issue 38 item 2 in a real terminal: a tool call's 30-line output folded
 * to its first line, `o` shows it whole and folds it again, against a real
 * daemon and the scripted stream-json agent, at 80×24 and 200×50. Skipped
 * where tmux is not installed (ui_tmux_test.ts warns).
 */
import assert from "node:assert/strict";
import { startTestDaemon } from "../helpers/daemon.ts";
import { removeTree, tempHome } from "../helpers/home.ts";
import { svcUiPane, testAtTerminalSizes } from "../helpers/tmux.ts";

const agentScript = new URL("../fixtures/stream_json_agent.ts", import.meta.url).pathname;

/** Folds and unfolds a tool's output in the session view of a `columns`×`rows` pane. */
async function foldAndUnfold(columns: number, rows: number): Promise<void> {
  const home = await tempHome();
  const project = await Deno.realPath(await tempHome());
  await using daemon = await startTestDaemon({
    home,
    configJson: {
      harnesses: {
        agent: { command: [Deno.execPath(), "run", "-A", agentScript], protocol: "claude" },
      },
    },
  });
  try {
    await using pane = await svcUiPane(home, { cwd: project, columns, rows });
    await pane.waitFor(/No sessions\. c starts one\./);
    await daemon.client.post("/sessions", {
      harness: "agent",
      projectRoot: project,
      prompt: "ask Bash seq 30",
      title: "thirty lines",
    });
    await pane.waitFor(/3 Approvals\(1\)/);
    await pane.keys(["Enter"]);
    await pane.waitFor(/y allow · n deny · a always/);
    await pane.keys(["y"], true);
    const folded = await pane.waitFor(/→ line 1 \(\+29 lines\) · o shows all/);
    assert.doesNotMatch(folded, /line 30/);
    await pane.keys(["o"], true);
    const whole = await pane.waitFor(/^ +line 30$/m);
    for (const line of whole.split("\n")) assert.ok([...line].length <= columns, line);
    await pane.keys(["o"], true);
    // Folded: the agent's reply follows the summary again.
    assert.doesNotMatch(await pane.waitFor(/o shows all\nagent › allowed/), /^ +line 30$/m);
  } finally {
    await removeTree(project);
    await removeTree(home);
  }
}

testAtTerminalSizes("o shows a tool's whole output and folds it", foldAndUnfold);
