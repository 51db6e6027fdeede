/**
 * The git directory of a worktree svc made, found from the repository's side
 * (issue 33 item 1). The agent can write anything inside its worktree, its
 * `.git` file too, and git run there obeys that file: a `gitdir:` of the
 * agent's choosing brings the agent's config (core.fsmonitor, filter
 * drivers), which runs its programs. The agent cannot write the owner's
 * repository, where git keeps `<common dir>/worktrees/<name>/gitdir` naming
 * the worktree's `.git`. So svc looks the worktree up there, pins every git
 * it runs on the worktree to that directory (`PinnedWorktree`), and calls a
 * worktree whose `.git` is not the file git made for it tampered.
 */
import { dirname, join, resolve } from "node:path";
import { ServiceError } from "../errors.ts";
import { git, type GitOptions, type PinnedWorktree } from "./git.ts";

/** What svc recorded of a worktree: the path it made and the repository it made it in. */
export interface WorktreePlace {
  path: string;
  repository: string;
}

/** A worktree as found: pinned when its git directory is known, with why it is tampered, if it is. */
export type WorktreeCheck =
  | { pinned: PinnedWorktree; tampered: null }
  | { pinned: PinnedWorktree | null; tampered: string };

/**
 * Looks up the worktree at `place.path` in its repository and checks its
 * `.git` file. Throws 409 `checkout_moved` when the repository is no longer
 * a git repository where svc recorded it.
 */
export async function checkWorktree(
  place: WorktreePlace,
  options: Omit<GitOptions, "cwd" | "pinned">,
): Promise<WorktreeCheck> {
  const common = await git(
    ["rev-parse", "--path-format=absolute", "--git-common-dir"],
    { ...options, cwd: place.repository },
  ).catch(() => null);
  if (common === null || common.code !== 0) throw checkoutMoved(place);
  const workTree = await Deno.realPath(place.path);
  const gitDir = await adminDirOf(common.stdout.trim(), workTree);
  if (gitDir === null) {
    return {
      pinned: null,
      tampered: `the repository "${place.repository}" no longer lists it as a worktree`,
    };
  }
  const pinned = { gitDir, workTree };
  const tampered = await gitFileProblem(workTree, gitDir);
  return tampered === null ? { pinned, tampered: null } : { pinned, tampered };
}

/** The entry of `<commonDir>/worktrees/` whose `gitdir` file names `<workTree>/.git`, or null. */
async function adminDirOf(commonDir: string, workTree: string): Promise<string | null> {
  const worktrees = join(commonDir, "worktrees");
  let entries: Deno.DirEntry[];
  try {
    entries = await Array.fromAsync(Deno.readDir(worktrees));
  } catch {
    return null;
  }
  for (const entry of entries) {
    const adminDir = join(worktrees, entry.name);
    const named = await Deno.readTextFile(join(adminDir, "gitdir")).catch(() => null);
    if (named === null) continue;
    // Git writes it absolute, or relative to the entry (worktree.useRelativePaths).
    if (await realPathOrNull(dirname(resolve(adminDir, named.trim()))) === workTree) {
      return await Deno.realPath(adminDir);
    }
  }
  return null;
}

/** Why `<workTree>/.git` is not the file git made pointing to `gitDir`, or null when it is. */
async function gitFileProblem(workTree: string, gitDir: string): Promise<string | null> {
  const gitFile = join(workTree, ".git");
  const info = await Deno.lstat(gitFile).catch(() => null);
  if (info === null) return "its .git file was removed";
  if (!info.isFile) {
    return `its .git is a ${info.isDirectory ? "directory" : "link"}, not the file svc made`;
  }
  const text = await Deno.readTextFile(gitFile);
  const target = /^gitdir: (.+?)\r?\n?$/.exec(text)?.[1];
  if (target !== undefined && await realPathOrNull(resolve(workTree, target)) === gitDir) {
    return null;
  }
  return `its .git points to ${JSON.stringify(text.slice(0, 200).trim())} instead of "${gitDir}"`;
}

async function realPathOrNull(path: string): Promise<string | null> {
  return await Deno.realPath(path).catch(() => null);
}

/** The refusal of a tampered worktree (409 `worktree_tampered`): svc runs no git in it. */
export function worktreeTampered(sessionId: string, path: string, reason: string): ServiceError {
  return new ServiceError(
    "worktree_tampered",
    409,
    `${tamperedMessage(path, reason)}: svc runs no git in it (discard it with force)`,
    { sessionId, path, reason },
  );
}

/** Why a worktree is not trusted, as its record's `error` and the refusal say it. */
export function tamperedMessage(path: string, reason: string): string {
  return `The worktree "${path}" was tampered with: ${reason}`;
}

/** 409 `checkout_moved`: the repository a worktree was made in is no longer where svc recorded it. */
export function checkoutMoved(place: WorktreePlace): ServiceError {
  return new ServiceError(
    "checkout_moved",
    409,
    `The checkout "${place.repository}" of the worktree "${place.path}" was moved or removed: ` +
      "put it back to review, land or discard the worktree",
    { repository: place.repository, path: place.path },
  );
}
