import { checkText } from "../../src/worktrees/check_text.ts";
import assert from "node:assert/strict";
import { mergeCheck, parseMergeTreeFiles } from "../../src/worktrees/land_check.ts";
import { git, gitRepository } from "../helpers/git.ts";
import { removeTree } from "../helpers/home.ts";

Deno.test("parseMergeTreeFiles() reads the conflicted paths after the tree, once each", () => {
  assert.deepEqual(parseMergeTreeFiles("abc123\0a.txt\0a.txt\0b c.txt\0"), ["a.txt", "b c.txt"]);
  assert.deepEqual(parseMergeTreeFiles("abc123\0a.txt\0\0Auto-merging a.txt\0"), ["a.txt"]);
  assert.deepEqual(parseMergeTreeFiles("abc123\0"), []);
});

Deno.test("mergeCheck() names conflicts and files both sides changed, writing no ref (D34)", async () => {
  const repo = await gitRepository();
  try {
    await git(repo, "checkout", "-q", "-b", "work");
    await Deno.writeTextFile(`${repo}/a.txt`, "work\n");
    await Deno.writeTextFile(`${repo}/README.md`, "# Project\n\nSome text.\nMore.\n");
    await git(repo, "commit", "-q", "-am", "work");
    await git(repo, "checkout", "-q", "main");
    await Deno.writeTextFile(`${repo}/a.txt`, "main\n");
    await Deno.writeTextFile(`${repo}/README.md`, "# Title\n\nSome text.\n");
    await git(repo, "commit", "-q", "-am", "main");
    const refs = await git(repo, "for-each-ref");
    const options = { cwd: repo };
    const conflicted = await mergeCheck({ work: "work", target: "main" }, options);
    assert.deepEqual(conflicted, {
      clean: false,
      conflicts: ["a.txt"],
      bothChanged: ["README.md", "a.txt"],
    });
    const clean = await mergeCheck({ work: "work", target: "work~1" }, options);
    assert.deepEqual(clean, { clean: true, conflicts: [], bothChanged: [] });
    assert.equal(await git(repo, "for-each-ref"), refs);
    assert.equal(await git(repo, "status", "--porcelain"), "");
  } finally {
    await removeTree(repo);
  }
});

Deno.test("checkText() says clean or names the conflicting files, counted (D34)", () => {
  const check = {
    sessionId: "ses_1",
    branch: "refs/heads/main",
    headCommit: "c".repeat(40),
    clean: true,
    conflicts: [] as string[],
    bothChanged: [] as string[],
    verify: { configured: false },
  };
  assert.equal(checkText(check), `Lands cleanly on main (${"c".repeat(12)})`);
  assert.equal(
    checkText({ ...check, branch: null, clean: false, conflicts: ["a.txt"] }),
    `Conflicts with the detached HEAD (${"c".repeat(12)}) in 1 file: a.txt`,
  );
});
