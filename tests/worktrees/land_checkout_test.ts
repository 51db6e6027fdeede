/**
 * A land never writes over what the owner keeps in the checkout (issue 33
 * item 3): an ignored file (`.env`) where the land would write one is a
 * refusal naming it, with the checkout exactly as before. Real git.
 */
import assert from "node:assert/strict";
import { ServiceError } from "../../src/errors.ts";
import { git } from "../helpers/git.ts";
import { worktreeRig } from "../helpers/worktree_rig.ts";

Deno.test("WorktreeReview.land() refuses to write over ignored files of the checkout, naming them (issue 33)", async () => {
  await using r = await worktreeRig();
  await Deno.writeTextFile(`${r.repo}/.gitignore`, ".env\nbuild/\nlogs\n");
  await git(r.repo, "add", ".gitignore");
  await git(r.repo, "commit", "-q", "-m", "ignore");
  const record = await r.endedSession("ses_i1");
  // The owner's ignored files: a secret, a build output, a file where the land makes a directory.
  await Deno.writeTextFile(`${r.repo}/.env`, "SECRET=owner\n");
  await Deno.mkdir(`${r.repo}/build`);
  await Deno.writeTextFile(`${r.repo}/build/out.txt`, "owner's build\n");
  await Deno.writeTextFile(`${r.repo}/logs`, "owner's log\n");
  // The agent commits files at those paths (forced past .gitignore).
  await Deno.writeTextFile(`${record.path}/.env`, "SECRET=agent\n");
  await Deno.mkdir(`${record.path}/build`);
  await Deno.writeTextFile(`${record.path}/build/out.txt`, "agent's build\n");
  await Deno.mkdir(`${record.path}/logs`);
  await Deno.writeTextFile(`${record.path}/logs/today.txt`, "agent's log\n");
  await Deno.writeTextFile(`${record.path}/fine.txt`, "a new file\n");
  await git(record.path, "add", "-f", ".env", "build/out.txt", "logs/today.txt", "fine.txt");
  await git(record.path, "commit", "-q", "-m", "agent: files the owner ignores");
  const head = await git(r.repo, "rev-parse", "HEAD");
  for (const mode of ["squash", "merge", "rebase"] as const) {
    await assert.rejects(r.review.land("ses_i1", { mode }), (error) => {
      assert.ok(error instanceof ServiceError, String(error));
      assert.equal(error.code, "land_conflict");
      assert.equal(error.status, 409);
      assert.equal(error.details.reason, "ignored_files");
      assert.deepEqual(error.details.files, [".env", "build/out.txt", "logs/today.txt"]);
      assert.match(error.message, /ignored files/);
      return true;
    });
    assert.equal(await git(r.repo, "rev-parse", "HEAD"), head);
    assert.equal(await Deno.readTextFile(`${r.repo}/.env`), "SECRET=owner\n");
    assert.equal(await Deno.readTextFile(`${r.repo}/build/out.txt`), "owner's build\n");
    assert.equal(await Deno.readTextFile(`${r.repo}/logs`), "owner's log\n");
  }
  // Moved away, the land goes through.
  await Deno.remove(`${r.repo}/.env`);
  await Deno.remove(`${r.repo}/build`, { recursive: true });
  await Deno.remove(`${r.repo}/logs`);
  const landed = await r.review.land("ses_i1", { mode: "squash" });
  assert.equal(landed.landedCommit, (await git(r.repo, "rev-parse", "HEAD")).trim());
  assert.equal(await Deno.readTextFile(`${r.repo}/.env`), "SECRET=agent\n");
});

Deno.test("WorktreeReview.land() squashes under the session's title, naming the branch (issue 38 item 14)", async () => {
  await using r = await worktreeRig();
  const record = await r.endedSession("ses_t1");
  r.sessions.update("ses_t1", { title: "Fix the flaky parser test\nand more words" });
  await Deno.writeTextFile(`${record.path}/fix.txt`, "fixed\n");
  await git(record.path, "add", "fix.txt");
  await git(record.path, "commit", "-q", "-m", "agent: fix the parser");
  await r.review.land("ses_t1", { mode: "squash" });
  const message = await git(r.repo, "log", "-1", "--format=%B");
  assert.equal(
    message.trim(),
    "Fix the flaky parser test\n\nLanded from svc/session/ses_t1 by svc.\n\n* agent: fix the parser",
  );
});
