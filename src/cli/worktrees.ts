/** `svc worktrees list|prune` (D20): the worktrees of isolated sessions and runs. */
import type { Removal } from "../worktrees/worktrees.ts";
import type { WorktreeRecord } from "../worktrees/worktree_record.ts";
import { act } from "./action.ts";
import { CLIENT_OPTIONS, parseCommandArgs } from "./args.ts";
import { type Command, type Io, pickSubcommand, type Subcommand } from "./command.ts";
import { withClient } from "./connect.ts";
import { printList, printResponse, table } from "./output.ts";
import { resolveRoutineId } from "./id_prefix.ts";

interface Listed {
  sessionId: string;
  routineId: string | null;
  runId: string | null;
  status: string;
  worktree: WorktreeRecord;
}

export const worktreesCommand: Command = {
  name: "worktrees",
  summary: "List and prune the git worktrees of isolated sessions and runs",
  usage: `Usage: svc worktrees <subcommand> [options]

Subcommands:
  list [--routine ID]
      Worktrees svc made and has not removed, oldest first: the session, its
      status, changes (files, +insertions -deletions, uncommitted files),
      branch and path.
  prune [--routine ID] [--force]
      Removes the worktrees of ended sessions. One with uncommitted changes is
      kept unless --force (which deletes those changes). A branch is deleted
      only when it has no commit beyond its base.

Every subcommand takes --home DIR, and --json to print the raw response.
Retention: config worktrees.keep (default 10) per routine. See docs/automations.md.`,
  run(args, io) {
    const { run, rest } = pickSubcommand(SUBCOMMANDS, args);
    return run(rest, io);
  },
};

const SUBCOMMANDS: Record<string, Subcommand> = { list, prune };

/** "3 files +10 -2 (1 uncommitted)", or "-" before the session ended. Pure. */
export function changesText(worktree: WorktreeRecord): string {
  if (worktree.changedFiles === null) return worktree.error ? "not counted" : "-";
  return `${worktree.changedFiles} files +${worktree.insertions} -${worktree.deletions}` +
    (worktree.uncommittedFiles ? ` (${worktree.uncommittedFiles} uncommitted)` : "");
}

async function list(args: string[], io: Io): Promise<number> {
  const { values } = parseCommandArgs(args, { ...CLIENT_OPTIONS, routine: { type: "string" } });
  return await withClient(values.home, io, async (client) => {
    const response = await act<{ worktrees: Listed[] }>(
      client,
      "svc.automations.worktrees",
      values.routine === undefined
        ? {}
        : { routineId: await resolveRoutineId(client, values.routine) },
    );
    return printList(
      io,
      response,
      values.json,
      ({ result }) => result.worktrees,
      ({ result }) =>
        result.worktrees.length === 0 ? "No worktrees" : table(
          ["SESSION", "STATUS", "CHANGES", "BRANCH", "PATH"],
          result.worktrees.map((entry) => [
            entry.sessionId,
            entry.status,
            changesText(entry.worktree),
            entry.worktree.branch,
            entry.worktree.path,
          ]),
        ),
    );
  });
}

async function prune(args: string[], io: Io): Promise<number> {
  const { values } = parseCommandArgs(args, {
    ...CLIENT_OPTIONS,
    routine: { type: "string" },
    force: { type: "boolean" },
  });
  return await withClient(values.home, io, async (client) => {
    const response = await act<{ removals: Removal[] }>(client, "svc.automations.prune", {
      ...(values.routine !== undefined &&
        { routineId: await resolveRoutineId(client, values.routine) }),
      ...(values.force && { force: true }),
    });
    return printResponse(io, response, values.json, ({ result }) => {
      if (result.removals.length === 0) return "Nothing to prune";
      return result.removals.map((removal) =>
        removal.removed
          ? `Removed ${removal.path}` +
            (removal.branchDeleted
              ? ` and branch ${removal.branch}`
              : ` (branch ${removal.branch} kept: it has commits)`)
          : `Kept ${removal.path}: ${removal.reason}`
      ).join("\n");
    });
  });
}
