/**
 * svc's git never runs what an agent wrote into its worktree (issue 33 item
 * 1): a `.git` file pointing at an agent gitdir, a copied gitdir in place of
 * the `.git` file, a nested repository with its own config. Each vector arms
 * core.fsmonitor, core.pager, diff.external, a clean filter and a textconv
 * driver (the last two named by an agent `.gitattributes`) with programs that
 * leave a marker file when run; the real git runs the summary, diff, stat,
 * land and discard.
 */
import assert from "node:assert/strict";
import { ServiceError } from "../../src/errors.ts";
import { git } from "../helpers/git.ts";
import { markersIn, tamper, worktreeRig } from "../helpers/worktree_rig.ts";

function isTampered(error: unknown): boolean {
  return error instanceof ServiceError && error.code === "worktree_tampered" &&
    error.status === 409 && /was tampered with/.test(error.message);
}

for (const vector of ["gitfile", "gitdir"] as const) {
  Deno.test(`a worktree whose .git the agent replaced (${vector}) is refused and runs nothing (issue 33)`, async () => {
    await using r = await worktreeRig();
    const record = await r.endedSession("ses_t1");
    await tamper(record.path, vector, r.markers);
    const summary = await r.worktrees.summarize(record);
    assert.deepEqual(markersIn(r.markers), []);
    assert.match(summary.error ?? "", /was tampered with/);
    assert.equal(summary.changedFiles, null);
    await assert.rejects(r.review.diff("ses_t1", 0, 1024), isTampered);
    await assert.rejects(r.review.stat("ses_t1"), isTampered);
    await assert.rejects(r.review.land("ses_t1", { mode: "squash" }), isTampered);
    await assert.rejects(r.review.discard("ses_t1", false), isTampered);
    const removal = await r.worktrees.remove("ses_t1", record, false);
    assert.equal(removal.removed, false);
    assert.deepEqual(markersIn(r.markers), []);
    assert.equal(await git(r.repo, "status", "--porcelain"), "");
    // Force discards it: the directory, git's record of it and the branch.
    const discarded = await r.review.discard("ses_t1", true);
    assert.equal(discarded.branchDeleted, true);
    await assert.rejects(Deno.stat(record.path), Deno.errors.NotFound);
    assert.equal(
      (await git(r.repo, "worktree", "list", "--porcelain")).match(/^worktree /gm)?.length,
      1,
    );
    assert.equal((await git(r.repo, "branch", "--list", "svc/*")).trim(), "");
    assert.deepEqual(markersIn(r.markers), []);
  });
}

Deno.test("a nested repository's own config runs nothing in the summary, diff, land or discard (issue 33)", async () => {
  await using r = await worktreeRig();
  const record = await r.endedSession("ses_t2");
  await tamper(record.path, "submodule", r.markers);
  const summary = await r.worktrees.summarize(record);
  assert.deepEqual(markersIn(r.markers), []);
  assert.equal(summary.error, null);
  assert.equal(summary.changedFiles, 7); // a.txt, the gitlink nested, five programs
  const stat = await r.review.stat("ses_t2");
  assert.ok(stat.files.some((file) => file.path === "nested"));
  const page = await r.review.diff("ses_t2", 0, 1 << 20);
  assert.match(new TextDecoder().decode(page.bytesRead), /^\+Subproject commit [0-9a-f]+$/m);
  await assert.rejects(r.review.discard("ses_t2", false), /never landed/);
  assert.equal((await r.worktrees.remove("ses_t2", record, false)).removed, false);
  const landed = await r.review.land("ses_t2", { mode: "squash" });
  assert.equal(landed.landedCommit, (await git(r.repo, "rev-parse", "HEAD")).trim());
  assert.deepEqual(markersIn(r.markers), []);
});
