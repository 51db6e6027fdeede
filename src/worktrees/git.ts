import type { OwnedProcesses } from "../sessions/owned_processes.ts";

/** What one git command printed and how it ended. */
export interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * A worktree svc made, as git must see it (issue 33 item 1): its git
 * directory inside the owner's repository and its work tree. Git given these
 * never reads a `.git` inside the tree, which the agent may have rewritten.
 */
export interface PinnedWorktree {
  /** `<repository's git dir>/worktrees/<name>`, which the agent cannot write. */
  gitDir: string;
  workTree: string;
}

/** Options of one git command. */
export interface GitOptions {
  /** Where git runs; with `pinned`, that worktree (this is then ignored). */
  cwd: string;
  /** Runs on this worktree with `GIT_DIR` and `GIT_WORK_TREE` set: the agent's `.git` is not read. */
  pinned?: PinnedWorktree;
  /** Killed (SIGKILL) after this long: a git that waits on a lock or a huge tree must not hold a run. */
  timeoutMs?: number;
  env?: Record<string, string>;
  /** Tracks the process so a stopping daemon waits for it until its deadline (issue 28 item 15). */
  processes?: OwnedProcesses;
}

const DEFAULT_TIMEOUT_MS = 120_000;

/**
 * Config that makes git start a program svc never needs, overridden on every
 * git svc runs (issue 33 item 1). Git passes these to the gits it starts
 * itself (a nested repository's status), whose config the agent may have
 * written. `diff.external` has no "off" value: every diff svc runs passes
 * `--no-ext-diff` (and `--no-textconv`) instead. Driver commands (`filter.<name>`, `diff.<name>`, `merge.<name>`)
 * cannot be listed here: `.gitattributes` names them and only trusted config
 * defines them, since svc pins git to the repository's own git directory.
 */
const NO_PROGRAMS = [
  "core.hooksPath=/dev/null",
  "core.fsmonitor=false",
  "core.pager=cat",
  "core.editor=false",
  "core.askPass=",
  "core.sshCommand=ssh",
  "credential.helper=",
  "log.showSignature=false",
  "submodule.recurse=false",
].flatMap((setting) => ["-c", setting]);

/**
 * Starts the real `git` program (no shell) with every program-running setting
 * of `NO_PROGRAMS` off (svc never runs a repository's or an agent's code
 * behind its owner's back) and prompts off (nobody is there to answer), on a
 * pinned worktree when given, under the options' timeout and, when given,
 * the daemon's process tracking. A git that cannot start throws.
 */
function spawnGit(args: readonly string[], options: GitOptions) {
  const timeout = AbortSignal.timeout(options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  const pinned = options.pinned;
  const command = new Deno.Command("git", {
    args: [...NO_PROGRAMS, ...args],
    cwd: pinned?.workTree ?? options.cwd,
    env: {
      GIT_TERMINAL_PROMPT: "0",
      GIT_OPTIONAL_LOCKS: "0",
      ...options.env,
      ...(pinned && { GIT_DIR: pinned.gitDir, GIT_WORK_TREE: pinned.workTree }),
    },
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
