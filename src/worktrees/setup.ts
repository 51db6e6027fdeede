/**
 * Worktree setup (D27): after `git worktree add` and before the agent
 * starts, files the repository does not track (`.env`) are copied from the
 * owner's checkout and commands (an install) run in the worktree, without a
 * shell, within `timeoutSeconds` in all. Each step is recorded as a
 * `worktree.setup` event; a failure is `worktree_setup_failed`.
 */
import { join } from "node:path";
import { z } from "zod";
import { ServiceError } from "../errors.ts";
import { redactText } from "../events/redact.ts";
import type { OwnedProcesses } from "../sessions/owned_processes.ts";
import { isInside } from "../sessions/paths.ts";
import { runGroupCommand } from "./group_command.ts";

/** The default bound of a whole setup. */
export const DEFAULT_SETUP_TIMEOUT_SECONDS = 300;

/** A path relative to the checkout that stays inside it: no `..`, not absolute. */
const insidePath = z.string().min(1).max(4096).refine(
  (path) =>
    !path.includes("\0") && !/^([\\/]|[A-Za-z]:)/.test(path) &&
    !path.split(/[\\/]/).includes(".."),
  "must be a relative path inside the checkout (no .., not absolute)",
);

/** `worktreeSetup` in config (per project root), a routine or a launch (D27). */
export const worktreeSetupSchema = z.strictObject({
  copy: z.array(insidePath).max(256).optional()
    .describe("Paths relative to the checkout, copied into the worktree when present"),
  run: z.array(z.array(z.string().min(1)).min(1)).max(32).optional()
    .describe("Commands (argv, no shell) run in the worktree, in order"),
  timeoutSeconds: z.number().positive().max(24 * 3600).optional()
    .describe("The whole setup's bound; default 300"),
});

export type WorktreeSetup = z.output<typeof worktreeSetupSchema>;

/** Records one `worktree.setup` event of the session. */
export type SetupRecorder = (payload: Record<string, unknown>) => Promise<void>;

/**
 * The setup of config `worktreeSetup` for a launch in `cwd`: the entry of
 * the longest project root containing it, or null. Pure.
 */
export function configuredSetup(
  byRoot: Record<string, WorktreeSetup> | undefined,
  cwd: string,
): WorktreeSetup | null {
  let best: string | null = null;
  for (const root of Object.keys(byRoot ?? {})) {
    if (isInside(root, cwd) && (best === null || root.length > best.length)) best = root;
  }
  return best === null ? null : byRoot![best];
}

/**
 * Runs `setup` for the worktree at `worktree` of the checkout `repository`.
 * Throws 500 `worktree_setup_failed` at the first step that fails.
 */
export async function runSetup(
  setup: WorktreeSetup,
  where: { repository: string; worktree: string },
  record: SetupRecorder,
  processes?: OwnedProcesses,
): Promise<void> {
  const timeoutSeconds = setup.timeoutSeconds ?? DEFAULT_SETUP_TIMEOUT_SECONDS;
  const deadline = Date.now() + timeoutSeconds * 1000;
  const checkout: Tree = { root: await Deno.realPath(where.repository), side: "checkout" };
  const worktree: Tree = { root: await Deno.realPath(where.worktree), side: "worktree" };
  for (const path of setup.copy ?? []) {
    if (
      !isInside(checkout.root, join(checkout.root, path)) ||
      !isInside(worktree.root, join(worktree.root, path))
    ) {
      throw setupFailed(`Copy path "${path}" leaves the checkout`, { step: "copy", path });
    }
    try {
      const copied = await copyInto(path, checkout, worktree);
      await record({ step: "copy", path, copied });
    } catch (error) {
      await record({ step: "copy", path, copied: false, error: (error as Error).message });
      throw setupFailed(`Cannot copy "${path}": ${(error as Error).message}`, {
        step: "copy",
        path,
      });
    }
  }
  for (const argv of setup.run ?? []) {
    const left = deadline - Date.now();
    if (left <= 0) {
      throw setupFailed(`Worktree setup took longer than ${timeoutSeconds} s`, {
        step: "run",
        argv,
      });
    }
    const result = await runGroupCommand(argv, { cwd: where.worktree, timeoutMs: left, processes });
    await record({
      step: "run",
      argv,
      exitCode: result.code,
      timedOut: result.timedOut,
      stdout: redactText(result.stdout),
      stderr: redactText(result.stderr),
      ...(result.error === undefined ? {} : { error: result.error }),
    });
    if (result.error !== undefined || result.timedOut || result.code !== 0) {
      const why = result.error ??
        (result.timedOut
          ? `timed out (setup bound ${timeoutSeconds} s)`
          : `exited with code ${result.code}`);
      throw setupFailed(`Worktree setup command ${JSON.stringify(argv)} ${why}`, {
        step: "run",
        argv,
        exitCode: result.code,
      });
    }
  }
}

function setupFailed(message: string, details: Record<string, unknown>): ServiceError {
  return new ServiceError("worktree_setup_failed", 500, message, details);
}

/** The checkout or the worktree: copies resolve links only while they stay inside its root. */
interface Tree {
  root: string;
  side: "checkout" | "worktree";
}

/**
 * Copies `path` of the checkout into the worktree (links as links); false
 * when the checkout has none. Runs before the agent starts, so what the
 * commit holds is the threat, not a race: each component is resolved with
 * lstat and a link is followed only when it stays inside its tree, and a
 * link where a file goes is replaced, never written through (issue 33 item 11).
 */
async function copyInto(path: string, checkout: Tree, worktree: Tree): Promise<boolean> {
  const parts = path.split(/[\\/]/).filter((part) => part !== "" && part !== ".");
  const name = parts.pop();
  if (name === undefined) throw new Error("it names the whole checkout, not a path inside it");
  const fromDir = await directoryBelow(checkout, parts);
  if (fromDir === null) return false;
  const from = join(fromDir, name);
  if (await lstatOrNull(from) === null) return false;
  const toDir = (await directoryBelow(worktree, parts))!;
  await copyEntry(from, { dir: toDir, name, shown: [...parts, name].join("/") }, worktree);
  return true;
}

/**
 * The real directory that `parts` lead to below the tree's root, one
 * component at a time: in the worktree a missing one is created, in the
 * checkout it means there is nothing to copy (null).
 */
async function directoryBelow(tree: Tree, parts: string[]): Promise<string | null> {
  let current = tree.root;
  for (const [index, part] of parts.entries()) {
    const next = await childDirectory(tree, current, part, parts.slice(0, index + 1).join("/"));
    if (next === null) return null;
    current = next;
  }
  return current;
}

/** The real directory `name` of `parent` (a real directory of `tree`), shown as `shown`. */
async function childDirectory(
  tree: Tree,
  parent: string,
  name: string,
  shown: string,
): Promise<string | null> {
  const path = join(parent, name);
  let info: Deno.FileInfo;
  try {
    info = await Deno.lstat(path);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    if (tree.side === "checkout") return null;
    await Deno.mkdir(path);
    return path;
  }
  if (!info.isSymlink) {
    if (!info.isDirectory) throw new Error(`"${shown}" in the ${tree.side} is not a directory`);
    return path;
  }
  let target: string;
  try {
    target = await Deno.realPath(path);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    if (tree.side === "checkout") return null;
    throw new Error(`"${shown}" in the worktree is a link to a missing path`);
  }
  if (!isInside(tree.root, target)) {
    throw new Error(`"${shown}" in the ${tree.side} is a link out of it ("${target}")`);
  }
  if (!(await Deno.stat(target)).isDirectory) {
    throw new Error(`"${shown}" in the ${tree.side} is not a directory`);
  }
  return target;
}

/**
 * Copies `from` (in the checkout, not followed if a link) to `to.name` in
 * the real directory `to.dir` of the worktree; whatever file or link is
 * there is removed first, so nothing is written through a link.
 */
async function copyEntry(
  from: string,
  to: { dir: string; name: string; shown: string },
  worktree: Tree,
): Promise<void> {
  const info = await Deno.lstat(from);
  if (info.isDirectory) {
    const dir = (await childDirectory(worktree, to.dir, to.name, to.shown))!;
    for await (const entry of Deno.readDir(from)) {
      const shown = `${to.shown}/${entry.name}`;
      await copyEntry(join(from, entry.name), { dir, name: entry.name, shown }, worktree);
    }
    return;
  }
  if (!info.isFile && !info.isSymlink) {
    throw new Error(`"${to.shown}" in the checkout is not a regular file`);
  }
  const target = join(to.dir, to.name);
  const existing = await lstatOrNull(target);
  if (existing?.isDirectory) throw new Error(`"${to.shown}" in the worktree is a directory`);
  if (existing) await Deno.remove(target); // A link goes, never what it points to.
  if (info.isSymlink) await Deno.symlink(await Deno.readLink(from), target);
  else await Deno.copyFile(from, target);
}

async function lstatOrNull(path: string): Promise<Deno.FileInfo | null> {
  try {
    return await Deno.lstat(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
}
