/**
 * Lands and discards of one worktree take turns, and a checkout that moved
 * away is a refusal that changes nothing (issue 33 item 14). Real git.
 */
import assert from "node:assert/strict";
import { ServiceError } from "../../src/errors.ts";
import type { WorktreeRecord } from "../../src/worktrees/worktree_record.ts";
import { git } from "../helpers/git.ts";
import { removeTree } from "../helpers/home.ts";
import { worktreeRig } from "../helpers/worktree_rig.ts";

function hasCode(code: string, status = 409) {
  return (error: unknown) => {
    assert.ok(error instanceof ServiceError, String(error));
    assert.equal(error.code, code, error.message);
    assert.equal(error.status, status);
    return true;
  };
}

async function agentCommit(path: string): Promise<void> {
  await Deno.writeTextFile(`${path}/one.txt`, "one\n");
  await git(path, "add", "one.txt");
  await git(path, "commit", "-q", "-m", "agent: one");
}

Deno.test("WorktreeReview: a land and a discard at once take turns; the land's record is kept (issue 33)", async () => {
  await using r = await worktreeRig();
  const record = await r.endedSession("ses_r1");
  await agentCommit(record.path);
  const [landed, discarded] = await Promise.allSettled([
    r.review.land("ses_r1", { mode: "squash" }),
    r.review.discard("ses_r1", true),
  ]);
  assert.equal(landed.status, "fulfilled", String((landed as PromiseRejectedResult).reason));
  assert.equal(discarded.status, "fulfilled", String((discarded as PromiseRejectedResult).reason));
  const stored = JSON.parse(r.sessions.get("ses_r1")!.worktree_json!) as WorktreeRecord;
  assert.equal(stored.landedCommit, (await git(r.repo, "rev-parse", "HEAD")).trim());
  assert.ok(stored.landedAt);
  assert.ok(stored.removedAt);
});

Deno.test("WorktreeReview: two lands of one worktree at once: one lands, the other is already_landed (issue 33)", async () => {
  await using r = await worktreeRig();
  const record = await r.endedSession("ses_r2");
  await agentCommit(record.path);
  await Deno.writeTextFile(`${record.path}/uncommitted.txt`, "work\n");
  for (const mode of ["squash", "rebase"] as const) {
    const results = await Promise.allSettled([
      r.review.land("ses_r2", { mode }),
      r.review.land("ses_r2", { mode }),
    ]);
    const fulfilled = results.filter((result) => result.status === "fulfilled");
    const rejected = results.flatMap((result) => result.status === "rejected" ? [result] : []);
    assert.equal(fulfilled.length, mode === "squash" ? 1 : 0);
    for (const refusal of rejected) hasCode("already_landed")(refusal.reason);
  }
});

Deno.test("WorktreeReview: a checkout moved away is 409 checkout_moved naming it; a forced discard changes nothing (issue 33)", async () => {
  await using r = await worktreeRig();
  const record = await r.endedSession("ses_r3");
  await agentCommit(record.path);
  const moved = `${r.repo}-moved`;
  await Deno.rename(r.repo, moved);
  try {
    const namesIt = (error: unknown) => {
      hasCode("checkout_moved")(error);
      assert.match((error as Error).message, new RegExp(`"${r.repo}" .*was moved or removed`));
      assert.equal((error as ServiceError).details.repository, r.repo);
      return true;
    };
    await assert.rejects(r.review.diff("ses_r3", 0, 1024), namesIt);
    await assert.rejects(r.review.stat("ses_r3"), namesIt);
    await assert.rejects(r.review.land("ses_r3", { mode: "squash" }), namesIt);
    await assert.rejects(r.review.discard("ses_r3", false), namesIt);
    await assert.rejects(r.review.discard("ses_r3", true), namesIt);
    assert.ok((await Deno.stat(record.path)).isDirectory);
    assert.equal(await Deno.readTextFile(`${record.path}/one.txt`), "one\n");
    const stored = JSON.parse(r.sessions.get("ses_r3")!.worktree_json!) as WorktreeRecord;
    assert.equal(stored.removedAt, null);
    // Put back, the worktree is whole and discards.
    await Deno.rename(moved, r.repo);
    assert.equal((await r.review.discard("ses_r3", true)).branchDeleted, true);
  } finally {
    await removeTree(moved);
  }
});
