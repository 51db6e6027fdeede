/**
 * Reviewing and landing an isolated session's work end to end (D27): the
 * real socket, a real repository made here, the real `git`. The "agent's"
 * work is made in the worktree by the test after the fixture session ends.
 */
import assert from "node:assert/strict";
import {
  fixtureHarnesses,
  startTestDaemon,
  type TestDaemon,
  waitForEnd,
} from "../helpers/daemon.ts";
import { removeTree } from "../helpers/home.ts";
import { isolatedSession } from "../helpers/isolated_session.ts";
import { git, gitRepository } from "../helpers/git.ts";

// deno-lint-ignore no-explicit-any
type AnyJson = Record<string, any>;

/** The "agent's" work: two commits, a staged change, an unstaged change and a new file. */
async function agentWork(path: string): Promise<void> {
  await Deno.writeTextFile(`${path}/one.txt`, "one\n");
  await git(path, "add", "one.txt");
  await git(path, "commit", "-q", "-m", "agent: one");
  await Deno.writeTextFile(`${path}/src/main.ts`, "export const two = 2;\n");
  await git(path, "commit", "-q", "-am", "agent: two");
  await Deno.writeTextFile(`${path}/staged.txt`, "staged\n");
  await git(path, "add", "staged.txt");
  await Deno.writeTextFile(`${path}/a.txt`, "a changed\n");
  await Deno.writeTextFile(`${path}/new.txt`, "new\n");
}

/** The checkout as `git status` and HEAD show it, and its index's bytes. */
async function checkoutState(repo: string) {
  return {
    status: await git(repo, "status", "--porcelain=v2", "--branch", "--untracked-files=all"),
    head: (await git(repo, "rev-parse", "HEAD")).trim(),
    index: await Deno.readFile(`${repo}/.git/index`),
    files: await Deno.readTextFile(`${repo}/a.txt`),
  };
}

function land(t: TestDaemon, id: string, body: AnyJson) {
  return t.client.post<AnyJson>(`/sessions/${id}/worktree/land`, body);
}

async function withDaemon(body: (t: TestDaemon, repo: string) => Promise<void>) {
  const repo = await gitRepository();
  await using t = await startTestDaemon({ configJson: { harnesses: fixtureHarnesses() } });
  try {
    await body(t, repo);
  } finally {
    await removeTree(repo);
  }
}

/** The owner's own commit on main after the worktree was made (the land is then no fast-forward). */
async function ownerCommit(repo: string): Promise<string> {
  await Deno.writeTextFile(`${repo}/README.md`, "# Project\n\nOwner's text.\n");
  await git(repo, "commit", "-q", "-am", "owner: readme");
  return (await git(repo, "rev-parse", "HEAD")).trim();
}

const subjects = async (repo: string, range: string) =>
  (await git(repo, "log", "--reverse", "--format=%s", range)).trim().split("\n");
const parents = async (repo: string, rev: string) =>
  (await git(repo, "rev-list", "--parents", "-n", "1", rev)).trim().split(" ").slice(1);

async function assertLandedFiles(repo: string) {
  assert.equal(await Deno.readTextFile(`${repo}/one.txt`), "one\n");
  assert.equal(await Deno.readTextFile(`${repo}/src/main.ts`), "export const two = 2;\n");
  assert.equal(await Deno.readTextFile(`${repo}/staged.txt`), "staged\n");
  assert.equal(await Deno.readTextFile(`${repo}/a.txt`), "a changed\n");
  assert.equal(await Deno.readTextFile(`${repo}/new.txt`), "new\n");
  assert.equal(await Deno.readTextFile(`${repo}/README.md`), "# Project\n\nOwner's text.\n");
  assert.equal(await git(repo, "status", "--porcelain"), "");
}

Deno.test("land squash: one commit with the message on the checkout's branch (D27)", async () => {
  await withDaemon(async (t, repo) => {
    const { id, path } = await isolatedSession(t, repo);
    await agentWork(path);
    const before = await ownerCommit(repo);
    const landed = await land(t, id, { mode: "squash", message: "Squashed agent work" });
    assert.equal(landed.status, 200, JSON.stringify(landed.body));
    const head = (await git(repo, "rev-parse", "HEAD")).trim();
    assert.equal(landed.body.landed.landedCommit, head);
    assert.equal(landed.body.landed.branch, "refs/heads/main");
    assert.deepEqual(await parents(repo, "HEAD"), [before]);
    assert.deepEqual(await subjects(repo, `${before}..HEAD`), ["Squashed agent work"]);
    await assertLandedFiles(repo);
    // The uncommitted work is now a commit on the worktree's branch; the worktree is clean.
    assert.equal(await git(path, "status", "--porcelain"), "");
    assert.equal(
      (await git(path, "rev-parse", "HEAD")).trim(),
      landed.body.landed.uncommittedCommit,
    );
    const session = (await t.client.get<AnyJson>(`/sessions/${id}`)).body;
    assert.equal(session.worktree.landedCommit, head);
    assert.equal(session.worktree.landedMode, "squash");
    assert.ok(session.worktree.landedAt);
    const again = await land(t, id, { mode: "squash" });
    assert.equal(again.status, 409);
    assert.equal(again.body.error.code, "already_landed");
  });
});

Deno.test("land merge: a merge commit of the branch and the worktree's work (D27)", async () => {
  await withDaemon(async (t, repo) => {
    const { id, path } = await isolatedSession(t, repo);
    await agentWork(path);
    const before = await ownerCommit(repo);
    const landed = await land(t, id, { mode: "merge" });
    assert.equal(landed.status, 200, JSON.stringify(landed.body));
    const tip = (await git(path, "rev-parse", "HEAD")).trim();
    assert.deepEqual(await parents(repo, "HEAD"), [before, tip]);
    assert.match(await git(repo, "log", "-1", "--format=%s"), /^Merge branch 'svc\/session\//);
    assert.deepEqual(await subjects(repo, `${before}..${tip}`), [
      "agent: one",
      "agent: two",
      `Uncommitted work of svc session ${id}`,
    ]);
    await assertLandedFiles(repo);
  });
});

Deno.test("land rebase: the agent's commits replayed on top of the branch (D27)", async () => {
  await withDaemon(async (t, repo) => {
    const { id, path } = await isolatedSession(t, repo);
    await agentWork(path);
    const before = await ownerCommit(repo);
    const landed = await land(t, id, { mode: "rebase", message: "agent: the rest" });
    assert.equal(landed.status, 200, JSON.stringify(landed.body));
    assert.deepEqual(await subjects(repo, `${before}..HEAD`), [
      "agent: one",
      "agent: two",
      "agent: the rest",
    ]);
    assert.equal((await git(repo, "rev-list", "--merges", `${before}..HEAD`)).trim(), "");
    await assertLandedFiles(repo);
    // The scratch worktree of the rebase is gone.
    const worktrees = await git(repo, "worktree", "list", "--porcelain");
    assert.equal(worktrees.match(/^worktree /gm)?.length, 2, worktrees);
  });
});

Deno.test("a land refused for a dirty touched file, a detached HEAD or a conflict changes nothing (D27)", async () => {
  await withDaemon(async (t, repo) => {
    const { id, path } = await isolatedSession(t, repo);
    await agentWork(path);
    // 1. A touched file with local changes in the checkout (an untouched one is fine).
    await Deno.writeTextFile(`${repo}/a.txt`, "owner's local edit\n");
    await Deno.writeTextFile(`${repo}/untouched.txt`, "mine\n");
    for (const mode of ["squash", "merge", "rebase"]) {
      const before = await checkoutState(repo);
      const refused = await land(t, id, { mode });
      assert.equal(refused.status, 409, JSON.stringify(refused.body));
      assert.equal(refused.body.error.code, "land_conflict");
      assert.equal(refused.body.error.details.reason, "dirty_checkout");
      assert.deepEqual(refused.body.error.details.files, ["a.txt"]);
      assert.deepEqual(await checkoutState(repo), before);
    }
    await git(repo, "checkout", "-q", "a.txt");
    // 2. A detached HEAD.
    await git(repo, "checkout", "-q", "--detach", "HEAD");
    let before = await checkoutState(repo);
    const detached = await land(t, id, { mode: "squash" });
    assert.equal(detached.status, 409);
    assert.equal(detached.body.error.details.reason, "detached_head");
    assert.deepEqual(await checkoutState(repo), before);
    await git(repo, "checkout", "-q", "main");
    // 3. A real conflict: the owner changed the line the agent changed.
    await Deno.writeTextFile(`${repo}/src/main.ts`, "export const owner = 1;\n");
    await git(repo, "commit", "-q", "-am", "owner: main.ts");
    for (const mode of ["squash", "merge", "rebase"]) {
      before = await checkoutState(repo);
      const conflict = await land(t, id, { mode });
      assert.equal(conflict.status, 409, JSON.stringify(conflict.body));
      assert.equal(conflict.body.error.code, "land_conflict");
      assert.equal(conflict.body.error.details.reason, "conflict");
      assert.deepEqual(conflict.body.error.details.files, ["src/main.ts"]);
      assert.deepEqual(await checkoutState(repo), before);
    }
    // The worktree keeps its uncommitted work and its branch where it was.
    assert.notEqual(await git(path, "status", "--porcelain"), "");
    assert.deepEqual(await subjects(path, "HEAD~2..HEAD"), ["agent: one", "agent: two"]);
    const session = (await t.client.get<AnyJson>(`/sessions/${id}`)).body;
    assert.equal(session.worktree.landedAt ?? null, null);
  });
});

Deno.test("discard needs force for work never landed, and removes worktree and branch (D27)", async () => {
  await withDaemon(async (t, repo) => {
    const first = await isolatedSession(t, repo);
    await agentWork(first.path);
    const refused = await t.client.post<AnyJson>(`/sessions/${first.id}/worktree/discard`, {});
    assert.equal(refused.status, 409);
    assert.equal(refused.body.error.code, "unlanded_work");
    assert.equal(refused.body.error.details.commits, 2);
    assert.ok(await Deno.stat(first.path));
    const forced = await t.client.post<AnyJson>(`/sessions/${first.id}/worktree/discard`, {
      force: true,
    });
    assert.equal(forced.status, 200, JSON.stringify(forced.body));
    await assert.rejects(() => Deno.stat(first.path));
    assert.equal((await git(repo, "branch", "--list", "svc/*")).trim(), "");
    const gone = await t.client.get<AnyJson>(`/sessions/${first.id}/worktree/diff`);
    assert.equal(gone.status, 409);
    assert.equal(gone.body.error.code, "worktree_removed");
    // Landed work is discarded without force; so is an untouched worktree.
    const second = await isolatedSession(t, repo);
    await agentWork(second.path);
    assert.equal((await land(t, second.id, { mode: "squash" })).status, 200);
    const discarded = await t.client.post<AnyJson>(`/sessions/${second.id}/worktree/discard`, {});
    assert.equal(discarded.status, 200, JSON.stringify(discarded.body));
    assert.equal((await git(repo, "branch", "--list", "svc/*")).trim(), "");
    const third = await isolatedSession(t, repo);
    const empty = await t.client.post<AnyJson>(`/sessions/${third.id}/worktree/discard`, {});
    assert.equal(empty.status, 200, JSON.stringify(empty.body));
    // A session without a worktree.
    const plain = await t.client.post<AnyJson>("/sessions", {
      projectRoot: repo,
      harness: "fixture",
      prompt: "exit 0",
    });
    await waitForEnd(t.client, plain.body.id);
    const none = await t.client.get<AnyJson>(`/sessions/${plain.body.id}/worktree/diff`);
    assert.equal(none.status, 404);
    assert.equal(none.body.error.code, "worktree_not_found");
    assert.equal(await git(repo, "status", "--porcelain"), "");
  });
});

Deno.test("the diff shows binary files, renames, deletions and pages a file over 4 MiB (D27)", async () => {
  await withDaemon(async (t, repo) => {
    await Deno.writeTextFile(`${repo}/gone.txt`, "to delete\n");
    await Deno.writeTextFile(`${repo}/moved.txt`, "a line that stays the same\n".repeat(20));
    await git(repo, "add", ".");
    await git(repo, "commit", "-q", "-m", "more files");
    const { id, path } = await isolatedSession(t, repo);
    await Deno.writeFile(`${path}/bin.dat`, new Uint8Array([0, 1, 2, 3, 0, 255, 254]));
    await git(path, "mv", "moved.txt", "renamed.txt");
    await git(path, "commit", "-q", "-m", "rename");
    await Deno.remove(`${path}/gone.txt`);
    const big = Array.from({ length: 150_000 }, (_, i) => `line ${i} of a large file, é\n`).join(
      "",
    );
    assert.ok(big.length > 4 * 1024 * 1024);
    await Deno.writeTextFile(`${path}/big.txt`, big);
    await Deno.writeTextFile(`${path}/.gitignore`, "ignored.log\n");
    await Deno.writeTextFile(`${path}/ignored.log`, "not in the diff\n");

    let data = "";
    let offset = 0;
    let pages = 0;
    for (;;) {
      const page = await t.client.get<AnyJson>(`/sessions/${id}/worktree/diff?offset=${offset}`);
      assert.equal(page.status, 200, JSON.stringify(page.body));
      assert.equal(page.body.diff.offset, offset);
      data += page.body.diff.data;
      pages++;
      if (page.body.diff.nextOffset === null) break;
      offset = page.body.diff.nextOffset;
    }
    assert.ok(pages >= 2, `${pages} pages`);
    assert.match(data, /^Binary files \/dev\/null and b\/bin\.dat differ$/m);
    assert.match(data, /^rename from moved\.txt\nrename to renamed\.txt$/m);
    assert.match(data, /^deleted file mode 100644$/m);
    assert.match(data, /^\+line 149999 of a large file, é$/m);
    assert.doesNotMatch(data, /b\/ignored\.log/);
    // The same as git's own diff of everything against base, byte for byte.
    const base = (await t.client.get<AnyJson>(`/sessions/${id}`)).body.worktree.baseCommit;
    await git(path, "add", "--all");
    assert.equal(data, await git(path, "diff", "--cached", "-M", base));
    // A short page.
    const short = await t.client.get<AnyJson>(`/sessions/${id}/worktree/diff?length=10`);
    assert.equal(short.body.diff.length, 10);
    assert.equal(short.body.diff.nextOffset, 10);
    assert.equal(short.body.diff.data, data.slice(0, 10));

    const stat = await t.client.get<AnyJson>(`/sessions/${id}/worktree/diff?stat=1`);
    assert.equal(stat.status, 200);
    const files = Object.fromEntries(
      stat.body.stat.files.map((file: AnyJson) => [file.path, file]),
    );
    assert.equal(files["bin.dat"].binary, true);
    assert.equal(files["renamed.txt"].oldPath, "moved.txt");
    assert.equal(files["gone.txt"].deletions, 1);
    assert.equal(files["big.txt"].insertions, 150_000);
    assert.equal(stat.body.stat.changedFiles, 5); // bin.dat, renamed, gone, big, .gitignore
  });
});

Deno.test("a land that would write over an ignored file of the checkout is refused naming it (issue 33)", async () => {
  await withDaemon(async (t, repo) => {
    await Deno.writeTextFile(`${repo}/.gitignore`, ".env\n");
    await git(repo, "add", ".gitignore");
    await git(repo, "commit", "-q", "-m", "ignore .env");
    const { id, path } = await isolatedSession(t, repo);
    await Deno.writeTextFile(`${repo}/.env`, "SECRET=owner\n");
    await Deno.writeTextFile(`${path}/.env`, "SECRET=agent\n");
    await git(path, "add", "-f", ".env");
    await git(path, "commit", "-q", "-m", "agent: .env");
    const before = await checkoutState(repo);
    const refused = await land(t, id, { mode: "squash" });
    assert.equal(refused.status, 409, JSON.stringify(refused.body));
    assert.equal(refused.body.error.code, "land_conflict");
    assert.equal(refused.body.error.details.reason, "ignored_files");
    assert.deepEqual(refused.body.error.details.files, [".env"]);
    assert.match(refused.body.error.message, /ignored files where the land writes \("\.env"\)/);
    assert.deepEqual(await checkoutState(repo), before);
    assert.equal(await Deno.readTextFile(`${repo}/.env`), "SECRET=owner\n");
  });
});

Deno.test("land and check of a session without a worktree, before any worktree exists: 404 worktree_not_found, not 500 (D27)", async () => {
  await using t = await startTestDaemon({ configJson: { harnesses: fixtureHarnesses() } });
  const root = await Deno.makeTempDir();
  try {
    const launch = await t.client.post<AnyJson>("/sessions", {
      projectRoot: root,
      harness: "fixture",
      prompt: "exit 0",
    });
    assert.equal(launch.status, 201, JSON.stringify(launch.body));
    await waitForEnd(t.client, launch.body.id);
    const landed = await land(t, launch.body.id, { mode: "squash" });
    assert.equal(landed.status, 404, JSON.stringify(landed.body));
    assert.equal(landed.body.error.code, "worktree_not_found");
    const checked = await t.client.get<AnyJson>(`/sessions/${launch.body.id}/worktree/check`);
    assert.equal(checked.status, 404, JSON.stringify(checked.body));
    assert.equal(checked.body.error.code, "worktree_not_found");
  } finally {
    await removeTree(root);
  }
});
