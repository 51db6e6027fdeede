/**
 * A session's git worktree as its session and run records show it (D20).
 * The counts are null while the session runs and filled in when it ends;
 * they include uncommitted changes (svc never commits for the agent).
 */
export interface WorktreeRecord {
  /** The worktree directory, `$SVC_HOME/worktrees/<session id>`. */
  path: string;
  branch: string;
  /** The top directory of the owner's repository the worktree was added to. */
  repository: string;
  baseCommit: string;
  headCommit: string | null;
  changedFiles: number | null;
  insertions: number | null;
  deletions: number | null;
  /** Files with changes not committed in the worktree (what `remove` would lose). */
  uncommittedFiles: number | null;
  /** Why the counts could not be taken, when they could not. */
  error: string | null;
  /** When `prune` or retention removed it; the record stays. */
  removedAt: string | null;
  /** When its work was landed on the owner's branch (D27); absent on older records. */
  landedAt?: string | null;
  /** The commit the owner's branch was moved to by the land (D27). */
  landedCommit?: string | null;
  /** How it was landed (D27). */
  landedMode?: "squash" | "merge" | "rebase" | null;
}
