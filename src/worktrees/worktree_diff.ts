/**
 * The diff of a worktree against its base commit (D27): a byte range of the
 * unified diff, or its counts, read from a scratch index of the worktree's
 * files (`withSnapshotIndex`).
 */
import { ServiceError } from "../errors.ts";
import { gitOk, type GitOptions, gitPage } from "./git.ts";
import { type DiffFile, parseNumstatFiles } from "./diff_stat.ts";
import type { WorktreeRecord } from "./worktree_record.ts";
import { IGNORE_SUBMODULES } from "./worktrees.ts";

/** `?stat=1`: the counts of the diff against the base commit. */
export interface DiffStatPage {
  sessionId: string;
  baseCommit: string;
  headCommit: string;
  changedFiles: number;
  insertions: number;
  deletions: number;
  files: DiffFile[];
}

/** A byte range of the unified diff against the base commit. */
export interface DiffPage {
  sessionId: string;
  baseCommit: string;
  headCommit: string;
  /** The whole diff's size in bytes. */
  bytes: number;
  offset: number;
  bytesRead: Uint8Array<ArrayBuffer>;
}

/** Diff output that is git's own, whatever the owner configured (no external diff, no textconv). */
const DIFF_FLAGS = [
  "--no-color",
  "--submodule=short",
  "--no-ext-diff",
  "--no-textconv",
  "--find-renames",
  "--src-prefix=a/",
  "--dst-prefix=b/",
];

/** Which diff: the session, its base commit and the worktree's HEAD. */
export interface DiffOf {
  sessionId: string;
  baseCommit: string;
  headCommit: string;
}

/**
 * Bytes `offset` to `offset + length` of the unified diff of the worktree
 * against its base: commits, staged, unstaged and new (not ignored) files.
 * A binary file shows as git's "Binary files ... differ" line. `options`
 * are a pinned git's with the scratch index.
 */
export async function readDiffPage(
  of: DiffOf,
  range: { offset: number; length: number },
  options: GitOptions,
): Promise<DiffPage> {
  const page = await gitPage(
    ["diff", "--cached", ...DIFF_FLAGS, of.baseCommit, "--"],
    options,
    range.offset,
    range.length,
  );
  if (page.code !== 0) throw new Error(`git diff failed: ${page.stderr}`);
  return {
    ...of,
    bytes: page.total,
    offset: Math.min(range.offset, page.total),
    bytesRead: page.bytes,
  };
}

/** The diff's counts per file and in all. */
export async function readDiffStat(of: DiffOf, options: GitOptions): Promise<DiffStatPage> {
  const numstat = await gitOk(
    ["diff", "--cached", "--numstat", "-z", ...DIFF_FLAGS, of.baseCommit, "--"],
    options,
  );
  const files = parseNumstatFiles(numstat);
  return {
    ...of,
    changedFiles: files.length,
    insertions: files.reduce((sum, file) => sum + (file.insertions ?? 0), 0),
    deletions: files.reduce((sum, file) => sum + (file.deletions ?? 0), 0),
    files,
  };
}

/** 409 `unlanded_work` unless the worktree (pinned `options`) holds nothing a discard would lose. */
export async function refuseUnlanded(
  sessionId: string,
  record: WorktreeRecord,
  options: GitOptions,
): Promise<void> {
  const ahead = await gitOk(["rev-list", "--count", `${record.baseCommit}..HEAD`], options);
  const status = await gitOk(
    ["status", "--porcelain", "-z", "--untracked-files=all", IGNORE_SUBMODULES],
    options,
  );
  const commits = Number(ahead.trim());
  const uncommittedFiles = status.split("\0").filter((entry) => entry !== "").length;
  if (commits > 0 || uncommittedFiles > 0) {
    throw new ServiceError(
      "unlanded_work",
      409,
      `The worktree of session "${sessionId}" holds work never landed ` +
        `(${commits} commits, ${uncommittedFiles} uncommitted files): force discards it`,
      { sessionId, commits, uncommittedFiles },
    );
  }
}
