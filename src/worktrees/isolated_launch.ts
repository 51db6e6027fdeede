import type { Clock } from "../clock.ts";
import { newId } from "../ids.ts";
import type { Launched, LaunchSpec, Supervisor } from "../sessions/supervisor.ts";
import { refComponent } from "./diff_stat.ts";
import type { Worktrees } from "./worktrees.ts";
import type { WorktreeSetup } from "./setup.ts";
import { ServiceError } from "../errors.ts";

/** Where a session runs (D20): in place, or in a new git worktree of its repository. */
export const ISOLATIONS = ["none", "worktree"] as const;
export type Isolation = typeof ISOLATIONS[number];

/** The branch of a routine run's worktree, `svc/<routine>/<run>`, or a session's (D20). */
function worktreeBranch(sessionId: string, routineId?: string, runId?: string): string {
  return routineId !== undefined && runId !== undefined
    ? `svc/${refComponent(routineId)}/${refComponent(runId)}`
    : `svc/session/${sessionId}`;
}

/**
 * Launches `spec` in a new worktree (D20): the session's project root
 * becomes the worktree, its cwd the same subdirectory inside it; `setup`
 * (D27) runs there before the agent. A launch that fails takes its worktree
 * back, except after a failed setup: that one is kept for inspection.
 */
export async function launchIsolated(
  deps: { worktrees: Worktrees; supervisor: Supervisor; clock: Clock },
  spec: LaunchSpec,
  setup: WorktreeSetup | null = null,
): Promise<Launched> {
  const id = newId("ses", deps.clock.now());
  const branch = worktreeBranch(id, spec.routineId, spec.runId);
  const { record, cwd } = await deps.worktrees.create(spec.cwd, id, branch);
  try {
    const launched = await deps.supervisor.launch({
      ...spec,
      id,
      projectRoot: record.path,
      cwd,
      worktree: record,
      ...(setup !== null && {
        prepare: (append) =>
          deps.worktrees.setup(setup, record, (payload) => append("worktree.setup", payload)),
      }),
    });
    await deps.worktrees.settle(id);
    return launched;
  } catch (error) {
    if (error instanceof ServiceError && error.code === "worktree_setup_failed") {
      await deps.worktrees.settle(id); // Kept: the session's record holds it.
    } else {
      await deps.worktrees.discard(id, record);
    }
    throw error;
  }
}
