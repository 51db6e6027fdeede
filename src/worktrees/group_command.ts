/**
 * A command of the owner's config (worktree setup, land verify: D27, D34)
 * run without a shell in its own process group, the whole group killed at
 * its timeout and, through `OwnedProcesses`, when the daemon stops. Only
 * the end of each stream is kept: that is where errors are.
 */
import type { OwnedProcesses } from "../sessions/owned_processes.ts";
import { killProcessGroup } from "../sessions/spawner.ts";

/** Output kept per command and stream (the end of it). */
export const OUTPUT_TAIL_BYTES = 16 * 1024;

/** How a command ended: its code (null when killed or not started) and each stream's tail. */
export interface GroupCommandResult {
  code: number | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
  /** Why it could not start. */
  error?: string;
}

/** Where and how long a command runs, and who sees its output as it comes. */
export interface GroupCommandOptions {
  cwd: string;
  timeoutMs: number;
  processes?: OwnedProcesses;
  /** Each piece of output as it arrives (decoded as UTF-8 across chunks). */
  onOutput?: (stream: "stdout" | "stderr", text: string) => void;
}

/** Runs `argv` in its own process group, killed (the group) after `timeoutMs`. */
export async function runGroupCommand(
  argv: readonly string[],
  options: GroupCommandOptions,
): Promise<GroupCommandResult> {
  const command = new Deno.Command(argv[0], {
    args: argv.slice(1),
    cwd: options.cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    detached: true,
  });
  let child: Deno.ChildProcess;
  try {
    child = options.processes?.spawn(command, { group: true, atStop: "kill" }) ?? command.spawn();
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
  }, options.timeoutMs);
  try {
    const [stdout, stderr, status] = await Promise.all([
      tail(child.stdout, (text) => options.onOutput?.("stdout", text)),
      tail(child.stderr, (text) => options.onOutput?.("stderr", text)),
      child.status,
    ]);
    return { code: timedOut ? null : status.code, timedOut, stdout, stderr };
  } finally {
    clearTimeout(timer);
  }
}

/** The last OUTPUT_TAIL_BYTES of a stream, as text; every piece goes to `seen` too. */
async function tail(
  stream: ReadableStream<Uint8Array>,
  seen: (text: string) => void,
): Promise<string> {
  const decoder = new TextDecoder();
  let kept = new Uint8Array(0);
  for await (const chunk of stream) {
    const text = decoder.decode(chunk, { stream: true });
    if (text !== "") seen(text);
    const all = new Uint8Array(kept.length + chunk.length);
    all.set(kept);
    all.set(chunk, kept.length);
    kept = all.slice(Math.max(0, all.length - OUTPUT_TAIL_BYTES));
  }
  const rest = decoder.decode();
  if (rest !== "") seen(rest);
  return new TextDecoder().decode(kept);
}
