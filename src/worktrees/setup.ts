/**
 * Worktree setup (D27): after `git worktree add` and before the agent
 * starts, files the repository does not track (`.env`) are copied from the
 * owner's checkout and commands (an install) run in the worktree, without a
 * shell, within `timeoutSeconds` in all. Each step is recorded as a
 * `worktree.setup` event; a failure is `worktree_setup_failed`.
 */
import { dirname, join } from "node:path";
import { z } from "zod";
import { ServiceError } from "../errors.ts";
import { redactText } from "../events/redact.ts";
import type { OwnedProcesses } from "../sessions/owned_processes.ts";
import { isInside } from "../sessions/paths.ts";
import { killProcessGroup } from "../sessions/spawner.ts";

/** The default bound of a whole setup. */
export const DEFAULT_SETUP_TIMEOUT_SECONDS = 300;
/** Output kept per command and stream in its event (the end of it: where errors are). */
const OUTPUT_BYTES = 16 * 1024;

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
  for (const path of setup.copy ?? []) {
    const from = join(where.repository, path);
    const to = join(where.worktree, path);
    if (!isInside(where.repository, from) || !isInside(where.worktree, to)) {
      throw setupFailed(`Copy path "${path}" leaves the checkout`, { step: "copy", path });
    }
    try {
      const copied = await copyPath(from, to);
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
    const result = await runCommand(argv, where.worktree, left, processes);
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

/** Copies a file or a directory tree (links as links); false when `from` does not exist. */
async function copyPath(from: string, to: string): Promise<boolean> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.lstat(from);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
  await Deno.mkdir(dirname(to), { recursive: true });
  if (info.isSymlink) {
    await Deno.remove(to).catch(() => {});
    await Deno.symlink(await Deno.readLink(from), to);
  } else if (info.isDirectory) {
    await Deno.mkdir(to, { recursive: true });
    for await (const entry of Deno.readDir(from)) {
      await copyPath(join(from, entry.name), join(to, entry.name));
    }
  } else {
    await Deno.copyFile(from, to);
  }
  return true;
}

interface CommandResult {
  code: number | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
  error?: string;
}

/** Runs `argv` in its own process group, killed (the group) after `timeoutMs`. */
async function runCommand(
  argv: string[],
  cwd: string,
  timeoutMs: number,
  processes?: OwnedProcesses,
): Promise<CommandResult> {
  const command = new Deno.Command(argv[0], {
    args: argv.slice(1),
    cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    detached: true,
  });
  let child: Deno.ChildProcess;
  try {
    child = processes?.spawn(command, { group: true, atStop: "kill" }) ?? command.spawn();
  } catch (error) {
    return {
      code: null,
      timedOut: false,
      stdout: "",
      stderr: "",
      error: `cannot start: ${(error as Error).message}`,
    };
  }
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    if (!killProcessGroup(child.pid, "SIGKILL")) {
      try {
        child.kill("SIGKILL");
      } catch { /* exited */ }
    }
  }, timeoutMs);
  try {
    const [stdout, stderr, status] = await Promise.all([
      tail(child.stdout),
      tail(child.stderr),
      child.status,
    ]);
    return { code: timedOut ? null : status.code, timedOut, stdout, stderr };
  } finally {
    clearTimeout(timer);
  }
}

/** The last OUTPUT_BYTES of a stream, as text. */
async function tail(stream: ReadableStream<Uint8Array>): Promise<string> {
  let kept = new Uint8Array(0);
  for await (const chunk of stream) {
    const joined = new Uint8Array(Math.min(OUTPUT_BYTES, kept.length + chunk.length));
    const all = new Uint8Array(kept.length + chunk.length);
    all.set(kept);
    all.set(chunk, kept.length);
    joined.set(all.subarray(all.length - joined.length));
    kept = joined;
  }
  return new TextDecoder().decode(kept);
}
