/**
 * Whether a worktree's work applies cleanly to the checkout's HEAD (D34),
 * computed with `git merge-tree --write-tree`: it writes the merged trees
 * as objects in the repository's object store, and nothing else — the
 * checkout's files, index, refs and `git status` stay as they were.
 */
import { git, gitOk, type GitOptions } from "./git.ts";

/** What a merge of `work` into `target` would meet. */
export interface MergeCheck {
  clean: boolean;
  /** Files the merge cannot resolve. */
  conflicts: string[];
  /** Files both sides changed since their merge base (conflicting or not). */
  bothChanged: string[];
}

/** Merges `work` into `target` of `repo` in the object store only (see the module comment). */
export async function mergeCheck(
  land: { work: string; target: string },
  options: GitOptions,
): Promise<MergeCheck> {
  const merged = await git(
    [
      "merge-tree",
      "--write-tree",
      "--name-only",
      "--no-messages",
      "-z",
      land.target,
      land.work,
    ],
    options,
  );
  if (merged.code !== 0 && merged.code !== 1) {
    throw new Error(`git merge-tree failed: ${merged.stderr}`);
  }
  const conflicts = merged.code === 1 ? parseMergeTreeFiles(merged.stdout) : [];
  const base = (await gitOk(["merge-base", land.target, land.work], options)).trim();
  const ours = new Set(await changedFiles(base, land.target, options));
  const bothChanged = (await changedFiles(base, land.work, options)).filter((path) =>
    ours.has(path)
  );
  return { clean: conflicts.length === 0, conflicts, bothChanged };
}

/** The conflicted paths of `merge-tree --write-tree --name-only -z`: after the tree, up to an empty entry. Pure. */
export function parseMergeTreeFiles(output: string): string[] {
  const [, ...rest] = output.split("\0");
  const end = rest.indexOf("");
  return [...new Set(end === -1 ? rest : rest.slice(0, end))];
}

async function changedFiles(from: string, to: string, options: GitOptions): Promise<string[]> {
  const names = await gitOk(
    ["diff", "--name-only", "-z", "--no-renames", "--no-ext-diff", from, to, "--"],
    options,
  );
  return names.split("\0").filter((path) => path !== "");
}
