/**
 * Issue 38 item 10 in a real terminal: an isolated session's work landed
 * from the session view (the check shown first, D34), then its worktree
 * discarded, against a real daemon and a real repository, at 80×24 and
 * 200×50. Skipped where tmux is not installed (ui_tmux_test.ts warns).
 */
import assert from "node:assert/strict";
import { fixtureHarnesses, startTestDaemon } from "../helpers/daemon.ts";
import { git, gitRepository } from "../helpers/git.ts";
import { removeTree, tempHome } from "../helpers/home.ts";
import { isolatedSession } from "../helpers/isolated_session.ts";
import { svcUiPane, testAtTerminalSizes } from "../helpers/tmux.ts";

/** Lands and discards from the session view of a `columns`×`rows` pane. */
async function landAndDiscard(columns: number, rows: number): Promise<void> {
  const home = await tempHome();
  const repo = await gitRepository();
  await using daemon = await startTestDaemon({
    home,
    configJson: { harnesses: fixtureHarnesses() },
  });
  const fits = (screen: string) => {
    for (const line of screen.split("\n")) assert.ok([...line].length <= columns, line);
  };
  try {
    const { id, path } = await isolatedSession(daemon, repo);
    await Deno.writeTextFile(`${path}/fix.txt`, "fixed\n");
    await using pane = await svcUiPane(home, { cwd: repo, columns, rows });
    await pane.waitFor(/a: show ended/);
    await pane.keys(["a"], true);
    await pane.waitFor(/completed/);
    await pane.keys(["Enter"]);
    await pane.waitFor(new RegExp(`${id} fixture`));
    await pane.keys(["L"], true);
    fits(await pane.waitFor(/it lands cleanly/));
    await pane.keys(["s"], true);
    await pane.waitFor(/Landed \(squash\)/);
    assert.equal(await Deno.readTextFile(`${repo}/fix.txt`), "fixed\n");
    assert.match(
      await git(repo, "log", "-1", "--format=%s"),
      /exit 0/,
      "named after its title",
    );
    await pane.keys(["D"], true);
    fits(await pane.waitFor(/its work was landed/));
    await pane.keys(["y"], true);
    await pane.waitFor(/Discarded the worktree and its branch/);
    await assert.rejects(() => Deno.stat(path));
    assert.equal((await git(repo, "branch", "--list", "svc/*")).trim(), "");
  } finally {
    await removeTree(repo);
    await removeTree(home);
  }
}

testAtTerminalSizes("L lands an isolated session's work, D discards it", landAndDiscard);
