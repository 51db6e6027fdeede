/** The worktree manager against the real git (D20): refusals, scratch-index counts, crash markers. */
import assert from "node:assert/strict";
import { git } from "../helpers/git.ts";
import { removeTree, tempHome } from "../helpers/home.ts";
import { runningSessionRow } from "../helpers/rows.ts";
import { worktreeRig } from "../helpers/worktree_rig.ts";

Deno.test("Worktrees.create() refuses a directory outside git and a repository without a commit (D20)", async () => {
  await using r = await worktreeRig();
  await assert.rejects(r.worktrees.create(r.home, "ses_1", "svc/session/ses_1"), (error) => {
    const e = error as { code: string; status: number; details: unknown };
    return e.code === "not_a_git_repository" && e.status === 400 &&
      JSON.stringify(e.details) === '{"field":"cwd"}';
  });
  const empty = await Deno.realPath(await tempHome());
  try {
    await git(empty, "init", "-q");
    await assert.rejects(
      r.worktrees.create(empty, "ses_2", "svc/session/ses_2"),
      /has no commit to start from/,
    );
  } finally {
    await removeTree(empty);
  }
});

Deno.test("Worktrees.summarize() counts staged, unstaged, new and committed changes without touching the index (D20)", async () => {
  await using r = await worktreeRig();
  const { record, cwd } = await r.worktrees.create(`${r.repo}/src`, "ses_3", "svc/session/ses_3");
  assert.equal(cwd, `${record.path}/src`);
  await Deno.writeTextFile(`${record.path}/a.txt`, "a\nb\n"); // +1
  await git(record.path, "commit", "-qam", "agent commit");
  await Deno.writeTextFile(`${record.path}/README.md`, "# Project\n"); // -2
  await Deno.writeTextFile(`${record.path}/src/new.ts`, "one\ntwo\n"); // new: +2
  await Deno.writeTextFile(`${record.path}/staged.txt`, "s\n");
  await git(record.path, "add", "staged.txt"); // staged: +1
  const statusBefore = await git(record.path, "status", "--porcelain");
  const summary = await r.worktrees.summarize(record);
  assert.equal(summary.error, null);
  assert.notEqual(summary.headCommit, summary.baseCommit);
  assert.deepEqual(
    [summary.changedFiles, summary.insertions, summary.deletions, summary.uncommittedFiles],
    [4, 4, 2, 3],
  );
  assert.equal(await git(record.path, "status", "--porcelain"), statusBefore);
  assert.equal(await git(r.repo, "status", "--porcelain"), "");
});

Deno.test("Worktrees.recover() removes a worktree a crash left before its session row (D20)", async () => {
  await using r = await worktreeRig();
  const { record } = await r.worktrees.create(r.repo, "ses_4", "svc/session/ses_4");
  const kept = await r.worktrees.create(r.repo, "ses_5", "svc/session/ses_5");
  r.sessions.insert({ ...runningSessionRow("ses_5"), worktree_json: JSON.stringify(kept.record) });
  assert.equal(await r.worktrees.recover(), 1);
  await assert.rejects(Deno.stat(record.path), Deno.errors.NotFound);
  await Deno.stat(kept.record.path);
  assert.equal(
    (await git(r.repo, "branch", "--list", "svc/*", "--format=%(refname:short)")).trim(),
    "svc/session/ses_5",
  );
  assert.deepEqual([...Deno.readDirSync(`${r.home}/worktrees`)].map((e) => e.name), ["ses_5"]);
});
