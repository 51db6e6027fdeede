/**
 * The commit a land moves the owner's branch to (D27), computed without
 * touching the checkout: `git merge-tree --write-tree` and `commit-tree` for
 * squash and merge, `git rebase` in a scratch worktree for rebase. A
 * conflict is 409 `land_conflict` naming the files.
 */
import { git, gitOk, type GitOptions } from "./git.ts";
import { landConflict } from "./land_checks.ts";
import { parseMergeTreeFiles } from "./land_check.ts";
import type { WorktreeRecord } from "./worktree_record.ts";

/** Settings no user configuration may change while svc computes a land. */
export const NEUTRAL = ["-c", "commit.gpgSign=false", "-c", "core.quotePath=false"];

/** Identity of commits when the owner's git has none configured. */
const FALLBACK_IDENTITY = {
  GIT_AUTHOR_NAME: "svc",
  GIT_AUTHOR_EMAIL: "svc@localhost",
  GIT_COMMITTER_NAME: "svc",
  GIT_COMMITTER_EMAIL: "svc@localhost",
};

/** The owner's identity for commits (no variables), or svc's when git has none configured. */
export async function commitIdentity(options: GitOptions): Promise<Record<string, string>> {
  const author = await git(["var", "GIT_AUTHOR_IDENT"], options);
  const committer = await git(["var", "GIT_COMMITTER_IDENT"], options);
  return author.code === 0 && committer.code === 0 ? {} : FALLBACK_IDENTITY;
}

/** What a land takes: the worktree's work on top of the checkout's `target`. */
export interface LandInput {
  sessionId: string;
  /** The session's title: the subject of a squash commit (issue 38 item 14). */
  title: string;
  record: WorktreeRecord;
  /** The commit of all the worktree's work (its uncommitted work committed). */
  work: string;
  /** The checkout's HEAD. */
  target: string;
  /** Author and committer variables, empty when the owner's git has an identity. */
  identity: Record<string, string>;
  /** Options of a git in `cwd`, with `env` added. */
  options: (cwd: string, env?: Record<string, string>) => GitOptions;
}

/** Squash (one commit on the target) or merge (a merge commit), via merge-tree. */
export async function mergedResult(
  input: LandInput,
  request: { mode: "squash" | "merge"; message?: string },
): Promise<string> {
  const { sessionId, record, work, target, identity } = input;
  const repo = record.repository;
  const merged = await git(
    [
      ...NEUTRAL,
      "merge-tree",
      "--write-tree",
      "--name-only",
      "--no-messages",
      "-z",
      target,
      work,
    ],
    input.options(repo),
  );
  const [tree] = merged.stdout.split("\0");
  if (merged.code === 1) {
    const files = parseMergeTreeFiles(merged.stdout);
    throw landConflict(
      sessionId,
      "conflict",
      files,
      `Landing conflicts with ${files.length} files of the checkout's branch`,
    );
  }
  if (merged.code !== 0) throw new Error(`git merge-tree failed: ${merged.stderr}`);
  if (request.mode === "squash" && tree === await rev(`${target}^{tree}`, input.options(repo))) {
    return target;
  }
  const message = request.message ??
    (request.mode === "merge" ? `Merge branch '${record.branch}'` : await squashMessage(input));
  const parents = request.mode === "merge" ? ["-p", target, "-p", work] : ["-p", target];
  return (await gitOk(
    [...NEUTRAL, "commit-tree", tree, ...parents, "-m", message],
    input.options(repo, identity),
  )).trim();
}

/** Rebase: the work's commits replayed on the target in a scratch worktree, then dropped. */
export async function rebasedResult(input: LandInput, scratch: string): Promise<string> {
  const { sessionId, record, work, target, identity } = input;
  const repo = record.repository;
  await Deno.remove(scratch, { recursive: true }).catch(() => {});
  await git(["worktree", "prune"], input.options(repo));
  await gitOk(
    ["worktree", "add", "--quiet", "--detach", scratch, work],
    input.options(repo),
  );
  try {
    const options = input.options(scratch, identity);
    const rebased = await git(
      [
        ...NEUTRAL,
        "-c",
        "rebase.autoStash=false",
        "-c",
        "rebase.updateRefs=false",
        "rebase",
        "--quiet",
        "--no-autosquash",
        "--onto",
        target,
        record.baseCommit,
      ],
      options,
    );
    if (rebased.code !== 0) {
      const unmerged = await git(
        ["diff", "--name-only", "-z", "--diff-filter=U"],
        options,
      );
      const files = [...new Set(unmerged.stdout.split("\0").filter((path) => path !== ""))];
      await git(["rebase", "--abort"], options);
      throw landConflict(
        sessionId,
        "conflict",
        files,
        files.length > 0
          ? `Rebasing conflicts with ${files.length} files of the checkout's branch`
          : `git rebase failed: ${rebased.stderr}`,
      );
    }
    return await rev("HEAD", input.options(scratch));
  } finally {
    await git(["worktree", "remove", "--force", scratch], input.options(repo));
    await Deno.remove(scratch, { recursive: true }).catch(() => {});
    await git(["worktree", "prune"], input.options(repo));
  }
}

/**
 * A squash commit's message: the session's title (its first line, cut at 72
 * characters; the branch when it has none), the branch it came from, then
 * the subjects it squashes.
 */
async function squashMessage({ title, record, work, options }: LandInput): Promise<string> {
  const subjects = await gitOk(
    ["log", "--reverse", "--format=* %s", `${record.baseCommit}..${work}`],
    options(record.repository),
  );
  const subject = [...(title.split("\n").find((line) => line.trim() !== "")?.trim() ?? "")];
  const head = subject.length === 0
    ? `Land ${record.branch}`
    : subject.length <= 72
    ? subject.join("")
    : `${subject.slice(0, 71).join("")}…`;
  return `${head}\n\nLanded from ${record.branch} by svc.\n\n${subjects.trim()}\n`;
}

async function rev(revision: string, options: GitOptions): Promise<string> {
  return (await gitOk(["rev-parse", "--verify", revision], options)).trim();
}
