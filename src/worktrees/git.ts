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
 * Runs the real `git` program (no shell) with the repository's hooks off
 * (svc never runs a repository's code behind its owner's back) and prompts
 * off (nobody is there to answer). A git that cannot start throws.
 */
export async function git(args: readonly string[], options: GitOptions): Promise<GitResult> {
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
