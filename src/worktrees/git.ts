import type { OwnedProcesses } from "../sessions/owned_processes.ts";

/** What one git command printed and how it ended. */
export interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Options of one git command. */
export interface GitOptions {
  cwd: string;
  /** Killed (SIGKILL) after this long: a git that waits on a lock or a huge tree must not hold a run. */
  timeoutMs?: number;
  env?: Record<string, string>;
  /** Tracks the process so a stopping daemon waits for it until its deadline (issue 28 item 15). */
  processes?: OwnedProcesses;
}

const DEFAULT_TIMEOUT_MS = 120_000;

/**
 * Starts the real `git` program (no shell) with the repository's hooks off
 * (svc never runs a repository's code behind its owner's back) and prompts
 * off (nobody is there to answer), under the options' timeout and, when
 * given, the daemon's process tracking. A git that cannot start throws.
 */
function spawnGit(args: readonly string[], options: GitOptions) {
  const timeout = AbortSignal.timeout(options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  const command = new Deno.Command("git", {
    args: ["-c", "core.hooksPath=/dev/null", ...args],
    cwd: options.cwd,
    env: { GIT_TERMINAL_PROMPT: "0", GIT_OPTIONAL_LOCKS: "0", ...options.env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: timeout,
  });
  const child = options.processes?.spawn(command, { group: false, atStop: "wait" }) ??
    command.spawn();
  return { child, timeout };
}

/** Runs `git` to its end: exit code, standard output and error (D20, D27). */
export async function git(args: readonly string[], options: GitOptions): Promise<GitResult> {
  const { child, timeout } = spawnGit(args, options);
  const output = await child.output();
  const decoder = new TextDecoder();
  const stderr = decoder.decode(output.stderr).trim();
  return {
    code: timeout.aborted ? -1 : output.code,
    stdout: decoder.decode(output.stdout),
    stderr: timeout.aborted ? `git ${args[0]} timed out` : stderr,
  };
}

/** Like `git`, but a non-zero exit throws an Error carrying git's own message. */
export async function gitOk(args: readonly string[], options: GitOptions): Promise<string> {
  const result = await git(args, options);
  if (result.code !== 0) {
    throw new Error(`git ${args[0]} failed: ${result.stderr || `exit code ${result.code}`}`);
  }
  return result.stdout;
}

/** A byte range of what one git command printed, with the full length counted. */
export interface GitPage {
  code: number;
  stderr: string;
  /** Every byte git printed (the whole output's size). */
  total: number;
  /** Bytes `offset` to `offset + length` of the output (fewer at its end). */
  bytes: Uint8Array<ArrayBuffer>;
}

/**
 * Like `git`, but keeps only `length` bytes of standard output from
 * `offset` and counts the rest, so a diff of any size is paged in bounded
 * memory (D27). Standard error is kept up to 64 KiB.
 */
export async function gitPage(
  args: readonly string[],
  options: GitOptions,
  offset: number,
  length: number,
): Promise<GitPage> {
  const { child, timeout } = spawnGit(args, options);
  const page = new Uint8Array(length);
  let filled = 0;
  let total = 0;
  const reading = (async () => {
    for await (const chunk of child.stdout) {
      const start = Math.max(0, offset - total);
      const end = Math.min(chunk.length, offset + length - total);
      if (end > start) {
        page.set(chunk.subarray(start, end), filled);
        filled += end - start;
      }
      total += chunk.length;
    }
  })();
  const errors: Uint8Array[] = [];
  let errorBytes = 0;
  const readingErrors = (async () => {
    for await (const chunk of child.stderr) {
      if (errorBytes < 64 * 1024) errors.push(chunk);
      errorBytes += chunk.length;
    }
  })();
  const [status] = await Promise.all([child.status, reading, readingErrors]);
  const stderr = new TextDecoder().decode(
    errors.reduce((all, chunk) => {
      const joined = new Uint8Array(all.length + chunk.length);
      joined.set(all);
      joined.set(chunk, all.length);
      return joined;
    }, new Uint8Array()),
  ).trim();
  return {
    code: timeout.aborted ? -1 : status.code,
    stderr: timeout.aborted ? `git ${args[0]} timed out` : stderr,
    total,
    bytes: page.slice(0, filled),
  };
}
