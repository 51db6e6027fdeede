/**
 * The launch checks a resume re-runs on the world as it is now (issue 33
 * items 6 and 10, D26): the recorded paths were checked at launch, but a
 * directory can since have been swapped for a symlink, the daemon restarted
 * with other project roots, or the store handed an id that is no agent's.
 */
import { join, relative } from "node:path";
import { ServiceError } from "../errors.ts";
import { notResumable, worktreeRemoved } from "../policy/resume.ts";
import type { SessionRow } from "../store/sessions_store.ts";
import type { WorktreeRecord } from "../worktrees/worktree_record.ts";
import type { WorktreeState } from "../worktrees/worktrees.ts";
import { type HarnessSpec, validAgentSessionId } from "./harnesses.ts";
import { insideAllowedRoots, resolveLaunchPaths } from "./paths.ts";

/** What the checks read besides the row. */
export interface ResumeCheckDeps {
  /** The daemon's project roots now (D3); null: any directory. */
  projectRoots: readonly string[] | null;
  /** Whether a session's worktree is still the one svc made. */
  inspectWorktree: (sessionId: string, record: WorktreeRecord) => Promise<WorktreeState>;
}

/**
 * Checks that `row` may be resumed with `harness` now and returns the real
 * working directory to start the agent in. The recorded agent session id
 * must be in the agent's format; a worktree session's worktree must still be
 * the directory svc made (else 409 `worktree_removed` or `not_resumable`
 * `worktree_replaced`); the cwd must pass the launch checks (D7: inside the
 * project root, which lies inside the current project roots; a worktree's
 * cwd inside it, and its place in the owner's checkout inside them), else 409
 * `not_resumable` `paths_refused` naming the field.
 */
export async function checkResume(
  row: SessionRow,
  harness: HarnessSpec,
  deps: ResumeCheckDeps,
): Promise<string> {
  if (row.agent_session_id !== null && !validAgentSessionId(harness, row.agent_session_id)) {
    throw notResumable(row.id, "invalid_agent_session_id");
  }
  const worktree: WorktreeRecord | null = row.worktree_json === null
    ? null
    : JSON.parse(row.worktree_json);
  if (worktree === null) {
    return (await launchPaths(row, row.project_root, deps.projectRoots)).cwd;
  }
  const state = await deps.inspectWorktree(row.id, worktree);
  if (state === "removed") throw worktreeRemoved(row.id, worktree.path);
  if (state === "replaced") throw notResumable(row.id, "worktree_replaced");
  const paths = await launchPaths(row, worktree.path, null);
  const inCheckout = join(worktree.repository, relative(paths.projectRoot, paths.cwd));
  if (!await insideAllowedRoots(inCheckout, deps.projectRoots)) {
    throw notResumable(row.id, "paths_refused", {
      cause: `Working directory "${inCheckout}" is outside the configured project roots`,
      details: { field: "projectRoot" },
    });
  }
  return paths.cwd;
}

/** The launch's path checks on the recorded root and cwd; a refusal becomes `paths_refused`. */
async function launchPaths(
  row: SessionRow,
  projectRoot: string,
  allowedRoots: readonly string[] | null,
) {
  try {
    return await resolveLaunchPaths(projectRoot, row.cwd, allowedRoots);
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    throw notResumable(row.id, "paths_refused", { cause: error.message, details: error.details });
  }
}
