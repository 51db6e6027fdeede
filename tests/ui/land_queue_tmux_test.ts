/**
 * The land queue in `svc ui` (D34) at 80×24, in a real terminal: a real
 * daemon, a real repository and the real `git`, fixture sessions whose
 * worktrees the test writes (as tests/integration/land_queue_test.ts). View
 * 7 shows the items move from queued to landed, and the one that conflicts
 * failed with its reason while the one after it waits. Skipped, with a
 * warning, where tmux is not installed (ui_tmux_test.ts says so).
 */
import assert from "node:assert/strict";
import { fixtureHarnesses, startTestDaemon, type TestDaemon } from "../helpers/daemon.ts";
import { git, gitRepository } from "../helpers/git.ts";
import { removeTree, tempHome } from "../helpers/home.ts";
import { isolatedSession } from "../helpers/isolated_session.ts";
import { uniquePrefixLength } from "../../src/ui/format.ts";
import { svcUiCommand, TMUX_INSTALLED, tmuxPane } from "../helpers/tmux.ts";

// deno-lint-ignore no-explicit-any
type AnyJson = Record<string, any>;

/** An ended isolated fixture session whose worktree holds `name` with `text` (uncommitted). */
async function sessionWriting(t: TestDaemon, repo: string, name: string, text: string) {
  const { id, path } = await isolatedSession(t, repo);
  await Deno.writeTextFile(`${path}/${name}`, text);
  return id;
}

Deno.test({
  name: "svc ui in tmux at 80×24: the land queue's items go queued → landed, a failed one says why",
  ignore: !TMUX_INSTALLED,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const home = await tempHome();
    const dir = await Deno.realPath(await tempHome());
    const repo = await gitRepository();
    const pane = tmuxPane(dir, "land");
    try {
      await using t = await startTestDaemon({
        home,
        configJson: { harnesses: fixtureHarnesses() },
      });
      const ids = [
        await sessionWriting(t, repo, "one.txt", "1\n"),
        await sessionWriting(t, repo, "a.txt", "first\n"),
        await sessionWriting(t, repo, "a.txt", "second\n"),
        await sessionWriting(t, repo, "four.txt", "4\n"),
      ];
      await pane.start(svcUiCommand(home), { cwd: dir, columns: 80, rows: 24 });
      await pane.waitFor(/1 Fleet/);
      await pane.keys(["7"], true);
      await pane.waitFor(/Nothing to land\./);

      // Every verify waits for the go-ahead, so the screen shows the queue before it moves.
      const go = `${dir}/go`;
      const queued = await t.client.post<AnyJson>("/land-queue", {
        items: ids,
        mode: "squash",
        verify: { command: ["sh", "-c", `while [ ! -f ${go} ]; do sleep 0.05; done`] },
      });
      assert.equal(queued.status, 202, JSON.stringify(queued.body));
      const waiting = await pane.waitFor(
        /● verifying(.|\n)*… queued(.|\n)*… queued(.|\n)*… queued/,
      );
      // The view cuts ids where they differ: sessions made in one second share a long prefix.
      const shown = uniquePrefixLength(ids);
      const row = (id: string, screen: string) =>
        screen.split("\n").find((line) => line.includes(`${id.slice(0, shown)} `)) ?? "";
      assert.match(row(ids[0], waiting), /● verifying +0\/2/);
      for (const id of ids.slice(1)) assert.match(row(id, waiting), /… queued +0\/2/);

      await Deno.writeTextFile(go, "");
      const done = await pane.waitFor(/✗ failed/);
      assert.match(row(ids[0], done), /✓ landed +0\/2 +as [0-9a-f]{12}/);
      assert.match(row(ids[1], done), /✓ landed/);
      assert.match(row(ids[2], done), /✗ failed +0\/2 +conflict: a\.txt/);
      assert.match(row(ids[3], done), /… queued/, "without sendBack the rest waits");
      assert.equal(await Deno.readTextFile(`${repo}/a.txt`), "first\n");
      for (const line of done.split("\n")) assert.ok(line.length <= 80, line);

      // Enter on the failed item opens its session.
      await pane.keys(["j", "j"], true);
      await pane.keys(["Enter"]);
      await pane.waitFor(new RegExp(`${ids[2]}`));
      assert.equal((await git(repo, "status", "--porcelain")).trim(), "");
    } finally {
      await pane.kill();
      await removeTree(repo);
      await removeTree(dir);
      await removeTree(home);
    }
  },
});
