/**
 * Verify before the checkout moves (D34): the exact commit a land would
 * move the owner's branch to is checked out in a scratch worktree, the
 * owner's command runs there (no shell, its own process group, killed at
 * the timeout and when the daemon stops), and the land goes on only when it
 * exits 0. The command is the owner's (trusted) but runs on the agent's
 * code: its output is redacted before it is recorded.
 */
import { z } from "zod";
import { ServiceError } from "../errors.ts";
import { redactText } from "../events/redact.ts";
import type { OwnedProcesses } from "../sessions/owned_processes.ts";
import { isInside } from "../sessions/paths.ts";
import { git, gitOk, type GitOptions } from "./git.ts";
import { type GroupCommandResult, runGroupCommand } from "./group_command.ts";

/** The default bound of a verify command. */
export const DEFAULT_VERIFY_TIMEOUT_SECONDS = 600;
/** The output tail a refusal and a sent-back turn quote. */
const TAIL_CHARS = 4000;
/** A `worktree.verify` output event holds at most this much text. */
const EVENT_CHARS = 16 * 1024;

/** `land.verify` of a project (config) or of one land request (D34). */
export const landVerifySchema = z.strictObject({
  command: z.array(z.string().min(1)).min(1).max(256)
    .describe("The command (argv, no shell) run in the land's result; exit 0 lets it land"),
  timeoutSeconds: z.number().positive().max(24 * 3600).optional()
    .describe("Its bound; default 600"),
});

export type LandVerify = z.output<typeof landVerifySchema>;

/** A project's land settings in config `projects` (D34). */
export interface ProjectLand {
  root: string;
  land?: { verify?: LandVerify };
}

/** The verify of the longest configured project root holding `repository`, or null. Pure. */
export function configuredVerify(
  projects: readonly ProjectLand[],
  repository: string,
): LandVerify | null {
  let best: ProjectLand | null = null;
  for (const project of projects) {
    if (!isInside(project.root, repository)) continue;
    if (best === null || project.root.length > best.root.length) best = project;
  }
  return best?.land?.verify ?? null;
}

/** Records one `worktree.verify` event of the session. */
export type VerifyRecorder = (payload: Record<string, unknown>) => Promise<void>;

/** How a verify ended. */
export interface VerifyOutcome {
  command: string[];
  exitCode: number | null;
  timedOut: boolean;
  /** The end of its output (stdout then stderr), redacted. */
  tail: string;
  error?: string;
}

/** Whether the land may go on. */
export function verifyPassed(outcome: VerifyOutcome): boolean {
  return outcome.exitCode === 0 && !outcome.timedOut && outcome.error === undefined;
}

/**
 * Checks out `land.result` of `land.repo` in the scratch worktree
 * `land.scratch`, runs `verify.command` there, and removes the worktree.
 * Output goes to `record` as it comes (redacted, in pieces of at most 16
 * KiB), then one event with the exit code.
 */
export async function runVerify(
  land: { repo: string; result: string; scratch: string },
  verify: LandVerify,
  deps: {
    options: (cwd: string) => GitOptions;
    record: VerifyRecorder;
    processes?: OwnedProcesses;
  },
): Promise<VerifyOutcome> {
  const repoOptions = deps.options(land.repo);
  await Deno.remove(land.scratch, { recursive: true }).catch(() => {});
  await git(["worktree", "prune"], repoOptions);
  await gitOk(["worktree", "add", "--quiet", "--detach", land.scratch, land.result], repoOptions);
  const timeoutSeconds = verify.timeoutSeconds ?? DEFAULT_VERIFY_TIMEOUT_SECONDS;
  let recording = Promise.resolve();
  try {
    await deps.record({ step: "start", command: verify.command, commit: land.result });
    const result = await runGroupCommand(verify.command, {
      cwd: land.scratch,
      timeoutMs: timeoutSeconds * 1000,
      processes: deps.processes,
      onOutput: (stream, text) => {
        for (let start = 0; start < text.length; start += EVENT_CHARS) {
          const data = redactText(text.slice(start, start + EVENT_CHARS));
          recording = recording.then(() => deps.record({ step: "output", stream, data }));
        }
      },
    });
    await recording;
    const outcome = outcomeOf(verify.command, result, timeoutSeconds);
    await deps.record({
      step: "end",
      exitCode: outcome.exitCode,
      timedOut: outcome.timedOut,
      ...(outcome.error === undefined ? {} : { error: outcome.error }),
    });
    return outcome;
  } finally {
    await git(["worktree", "remove", "--force", land.scratch], repoOptions);
    await Deno.remove(land.scratch, { recursive: true }).catch(() => {});
    await git(["worktree", "prune"], repoOptions);
  }
}

function outcomeOf(
  command: string[],
  result: GroupCommandResult,
  timeoutSeconds: number,
): VerifyOutcome {
  const output = [result.stdout, result.stderr].filter((text) => text !== "").join("\n");
  const error = result.error ??
    (result.timedOut ? `timed out after ${timeoutSeconds} s` : undefined);
  return {
    command,
    exitCode: result.code,
    timedOut: result.timedOut,
    tail: redactText(output.slice(-TAIL_CHARS)),
    ...(error === undefined ? {} : { error }),
  };
}

/** 409 `verify_failed` (D34): nothing was changed; `details.tail` ends the command's output. */
export function verifyFailed(sessionId: string, outcome: VerifyOutcome): ServiceError {
  const why = outcome.error ?? `exited with code ${outcome.exitCode}`;
  return new ServiceError(
    "verify_failed",
    409,
    `The land's verify command ${JSON.stringify(outcome.command)} ${why}; nothing was changed`,
    {
      sessionId,
      command: outcome.command,
      exitCode: outcome.exitCode,
      timedOut: outcome.timedOut,
      tail: outcome.tail,
    },
  );
}
