/**
 * The files of a worktree as they are, in a scratch index (D20, D27): what
 * the end-of-session summary counts and what a diff or a land takes, without
 * touching the worktree's own index.
 */
import { join } from "node:path";
import { gitOk, type GitOptions, type PinnedWorktree } from "./git.ts";

/**
 * Runs `body` with `GIT_INDEX_FILE` set to a scratch index holding the
 * worktree's files as they are (`git add --all`, which respects .gitignore).
 * A nested repository the index already records keeps the commit recorded
 * there: to see whether its files changed, git would run a second git inside
 * it, through its own `.git` and config, which the agent wrote (issue 33).
 */
export async function withSnapshotIndex<T>(
  pinned: PinnedWorktree,
  options: Omit<GitOptions, "cwd" | "pinned" | "env">,
  body: (env: { GIT_INDEX_FILE: string }) => Promise<T>,
): Promise<T> {
  const gitOptions = { ...options, cwd: pinned.workTree, pinned };
  const nested = parseGitlinks(await gitOk(["ls-files", "--stage", "-z"], gitOptions));
  const scratch = await Deno.makeTempFile({ prefix: "svc-index-" });
  try {
    // A copy of the index keeps git's stat cache: files that did not change are not re-read.
    await Deno.copyFile(join(pinned.gitDir, "index"), scratch).catch(() => Deno.remove(scratch));
    const env = { GIT_INDEX_FILE: scratch };
    const excluded = nested.map((path) => `:(exclude,literal)${path}`);
    await gitOk(["add", "--all", "--", ".", ...excluded], { ...gitOptions, env });
    return await body(env);
  } finally {
    await Deno.remove(scratch).catch(() => {});
  }
}

/** Paths of the gitlinks (mode 160000) of `git ls-files --stage -z`. Pure. */
export function parseGitlinks(output: string): string[] {
  return output.split("\0").flatMap((entry) => {
    const match = /^160000 [0-9a-f]+ \d\t(.*)$/s.exec(entry);
    return match ? [match[1]] : [];
  });
}
