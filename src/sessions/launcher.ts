/**
 * The one way into an agent process (issue 39, D33): a launch and a resume
 * (and every later caller: adoption, a parked session's timer) run their
 * checks and get the argv, environment and cwd of the start here; the
 * supervisor keeps only the life of the process.
 */
import { invalidRequest } from "../errors.ts";
import { redactText } from "../events/redact.ts";
import { notResumable } from "../policy/resume.ts";
import type { ApprovalPolicy } from "../approvals/broker.ts";
import type { SessionRow } from "../store/sessions_store.ts";
import type { WorktreeRecord } from "../worktrees/worktree_record.ts";
import type { WorktreeState } from "../worktrees/worktrees.ts";
import type { CapabilityRegistry } from "./capabilities.ts";
import { buildArgv, type HarnessSpec, launchEnv, resumeArgs } from "./harnesses.ts";
import { defaultTitle, MAX_PROMPT_BYTES } from "./launch_request.ts";
import { resolveLaunchPaths } from "./paths.ts";
import { sessionMarkers } from "./process_tree.ts";
import { checkResume } from "./resume_checks.ts";
import type { SpawnRequest } from "./spawner.ts";
import type { LaunchSpec } from "./supervisor.ts";

/** A prompt passed as one argument must stay under Linux's per-argument limit (128 KiB). */
const MAX_ARG_PROMPT_BYTES = 120 * 1024;

/** What the launcher reads. */
export interface LauncherOptions {
  /** The daemon's home (real path): its sessions' processes carry it (issue 33 item 7). */
  home: string;
  harnesses: () => ReadonlyMap<string, HarnessSpec>;
  capabilities: CapabilityRegistry;
  /** The daemon's project roots now (D3); null: any directory. */
  projectRoots: () => readonly string[] | null;
  /** Whether a session's worktree is still the one svc made (D20, D26). */
  inspectWorktree: (sessionId: string, record: WorktreeRecord) => Promise<WorktreeState>;
}

/** A launch as asked for, before its checks (`POST /sessions`, a routine run). */
export interface LaunchCheckRequest {
  projectRoot: string;
  cwd?: string;
  harness: string;
  prompt: string;
  model?: string;
  title?: string;
  familiarId?: string;
}

/** A launch past its checks: the caller adds how it runs (origin, one-shot, approvals). */
export type CheckedLaunch = Omit<LaunchSpec, "origin" | "oneShot" | "approvals">;

/** One start of a session's agent: what to spawn and what to write on its stdin first. */
export interface StartCommand extends SpawnRequest {
  stdinPrompt: string | null;
}

/** Runs the launch checks and builds each start's command. */
export class Launcher {
  readonly #options: LauncherOptions;

  constructor(options: LauncherOptions) {
    this.#options = options;
  }

  /**
   * Validates a launch (D7): harness known and enabled, prompt small enough
   * for how the harness takes it, paths contained. 400 `invalid_request`
   * naming the field otherwise.
   */
  async checkLaunch(request: LaunchCheckRequest): Promise<CheckedLaunch> {
    const harness = this.#options.harnesses().get(request.harness);
    const status = this.#options.capabilities.harness(request.harness)?.status;
    if (!harness || status === undefined) {
      throw invalidRequest(
        `Harness "${request.harness}" is not supported; ${this.#enabledHarnesses()}`,
        "harness",
      );
    }
    if (status === "disabled") {
      throw invalidRequest(
        `Harness "${request.harness}" is not installed: its program was not found; ${this.#enabledHarnesses()}`,
        "harness",
      );
    }
    const promptBytes = new TextEncoder().encode(request.prompt).length;
    if (promptBytes === 0 || promptBytes > MAX_PROMPT_BYTES) {
      throw invalidRequest(`Prompt must be 1 to ${MAX_PROMPT_BYTES} bytes of UTF-8`, "prompt");
    }
    if (harness.prompt === "arg" && promptBytes > MAX_ARG_PROMPT_BYTES) {
      throw invalidRequest(
        `Prompt is too long for harness "${harness.id}", which takes it as an argument (at most ${MAX_ARG_PROMPT_BYTES} bytes)`,
        "prompt",
      );
    }
    const paths = await resolveLaunchPaths(
      request.projectRoot,
      request.cwd,
      this.#options.projectRoots(),
    );
    return {
      ...paths,
      harness,
      prompt: request.prompt,
      model: request.model ?? null,
      title: request.title === undefined ? defaultTitle(request.prompt) : redactText(request.title),
      familiarId: request.familiarId ?? null,
    };
  }

  /**
   * The resume checks on the world as it is now (D26, issue 33 item 6): its
   * harness still configured and installed (else 409 `not_resumable`
   * `harness_unavailable`), then `checkResume`. Gives the harness and the
   * real cwd to start in.
   */
  async checkResume(row: SessionRow): Promise<{ harness: HarnessSpec; cwd: string }> {
    const harness = this.#options.harnesses().get(row.harness);
    const status = this.#options.capabilities.harness(row.harness)?.status;
    if (!harness || status === undefined || status === "disabled") {
      throw notResumable(row.id, "harness_unavailable");
    }
    const cwd = await checkResume(row, harness, {
      projectRoots: this.#options.projectRoots(),
      inspectWorktree: this.#options.inspectWorktree,
    });
    return { harness, cwd };
  }

  /**
   * The command of one start of `row` (D3, D7, D26): the harness's argv with
   * the prompt and model, its agent's resume arguments when it continues
   * `resumeFrom`, the environment that routes its permissions to svc (D28)
   * and marks its processes as this start's (issue 38 item 5).
   */
  command(
    row: SessionRow,
    start: {
      harness: HarnessSpec;
      cwd: string;
      prompt: string | null;
      model: string | null;
      approvals: ApprovalPolicy;
      resumeFrom: string | null;
    },
  ): StartCommand {
    const { harness } = start;
    const { argv, stdinPrompt } = buildArgv(harness, {
      prompt: start.prompt ?? "",
      model: start.model,
    });
    if (start.resumeFrom !== null) argv.push(...resumeArgs(harness, start.resumeFrom));
    const env = {
      ...launchEnv(harness, harness.protocol === "raw" ? null : start.approvals),
      ...sessionMarkers(this.#options.home, row.id, row.resumes),
    };
    return { argv, cwd: start.cwd, env, stdinPrompt: start.prompt === null ? null : stdinPrompt };
  }

  /** The harnesses a launch may name, for a refusal: `enabled harnesses: a, b` (or `none`). */
  #enabledHarnesses(): string {
    const enabled = [...this.#options.harnesses().keys()]
      .filter((id) => {
        const status = this.#options.capabilities.harness(id)?.status;
        return status !== undefined && status !== "disabled";
      })
      .sort();
    return enabled.length === 0
      ? "no harness is enabled (see svc capabilities)"
      : `enabled harnesses: ${enabled.join(", ")}`;
  }
}
