/**
 * What a land checks in the owner's checkout before it moves it (D27): HEAD
 * is a branch, and nothing the owner has in the checkout is in the land's
 * way. Each refusal is a 409 with nothing changed.
 */
import { join } from "node:path";
import { ServiceError } from "../errors.ts";
import { git, gitOk, type GitOptions } from "./git.ts";

/** Why a land was refused (`details.reason` of `land_conflict`). */
export type LandConflictReason =
  | "detached_head"
  | "dirty_checkout"
  | "ignored_files"
  | "conflict"
  | "checkout_changed";

/** 409 `land_conflict` (D27): nothing was changed; `details.files` names the files. */
export function landConflict(
  sessionId: string,
  reason: LandConflictReason,
  files: string[],
  message: string,
): ServiceError {
  return new ServiceError("land_conflict", 409, `${message}; nothing was changed`, {
    sessionId,
    reason,
    files,
  });
}

/** 409 `nothing_to_land` (D27). */
export function nothingToLand(sessionId: string, why: string): ServiceError {
  return new ServiceError("nothing_to_land", 409, `Nothing to land: ${why}`, { sessionId });
}

/** The branch checked out in `repo` (`refs/heads/...`); a detached HEAD is refused. */
export async function checkoutBranch(
  sessionId: string,
  repo: string,
  options: GitOptions,
): Promise<string> {
  const symbolic = await git(["symbolic-ref", "-q", "HEAD"], options);
  if (symbolic.code !== 0) {
    throw landConflict(
      sessionId,
      "detached_head",
      [],
      `HEAD of "${repo}" is detached: check out a branch to land on`,
    );
  }
  return symbolic.stdout.trim();
}

/**
 * Refuses a land from `target` to `result` when a file it touches has local
 * changes in the checkout `repo` (staged, unstaged or untracked), or when
 * it adds a file where the checkout holds one git does not track: an
 * ignored file (`.env`, a build output) that `git merge --ff-only` would
 * silently overwrite (issue 33 item 3).
 */
export async function refuseLocalChanges(
  sessionId: string,
  land: { repo: string; target: string; result: string },
  options: GitOptions,
): Promise<void> {
  const touched = new Set(
    (await gitOk(
      [
        "diff",
        "--name-only",
        "-z",
        "--no-renames",
        "--no-ext-diff",
        land.target,
        land.result,
        "--",
      ],
      options,
    )).split("\0").filter((path) => path !== ""),
  );
  const dirty = parseStatusPaths(
    await gitOk(["status", "--porcelain", "-z", "--untracked-files=all", "--no-renames"], options),
  ).filter((path) => touched.has(path));
  if (dirty.length > 0) {
    throw landConflict(
      sessionId,
      "dirty_checkout",
      dirty,
      `The checkout "${land.repo}" has local changes in files the land touches: commit or stash them first`,
    );
  }
  const added = (await gitOk(
    [
      "diff",
      "--name-only",
      "-z",
      "--no-renames",
      "--no-ext-diff",
      "--diff-filter=A",
      land.target,
      land.result,
      "--",
    ],
    options,
  )).split("\0").filter((path) => path !== "");
  const inTheWay: string[] = [];
  for (const path of added) {
    if (await untrackedInTheWay(land.repo, land.target, path, options)) inTheWay.push(path);
  }
  if (inTheWay.length > 0) {
    throw landConflict(
      sessionId,
      "ignored_files",
      inTheWay,
      `The checkout "${land.repo}" has ignored files where the land writes ` +
        `(${inTheWay.map((path) => `"${path}"`).join(", ")}): move them away first`,
    );
  }
}

/**
 * Whether the checkout holds something at `path` (a file the land adds) or
 * a file at one of its parent directories that `target` does not track:
 * what git would delete to write the land's file.
 */
async function untrackedInTheWay(
  repo: string,
  target: string,
  path: string,
  options: GitOptions,
): Promise<boolean> {
  const parts = path.split("/");
  for (let end = 1; end <= parts.length; end++) {
    const prefix = parts.slice(0, end).join("/");
    const info = await Deno.lstat(join(repo, prefix)).catch(() => null);
    if (info === null) return false;
    const isParent = end < parts.length;
    if (isParent && info.isDirectory) continue;
    // A directory at the path, or a file or link at a parent: in the way unless git tracks it.
    const tracked = await gitOk(["ls-tree", "--name-only", target, "--", prefix], options);
    return tracked.trim() === "";
  }
  return false;
}

/** Paths of `git status --porcelain -z --no-renames`: `XY path<NUL>`. Pure. */
export function parseStatusPaths(output: string): string[] {
  return output.split("\0").filter((entry) => entry.length > 3).map((entry) => entry.slice(3));
}

/** Checking and landing need `git merge-tree --write-tree`: git 2.38 or later (500 `git_unsupported`). */
export async function requireMergeTree(options: GitOptions): Promise<void> {
  const version = await gitOk(["--version"], options);
  const match = /(\d+)\.(\d+)/.exec(version);
  if (match && (Number(match[1]) > 2 || (Number(match[1]) === 2 && Number(match[2]) >= 38))) {
    return;
  }
  throw new ServiceError(
    "git_unsupported",
    500,
    `Landing needs git 2.38 or later (merge-tree --write-tree); this is ${version.trim()}`,
  );
}
