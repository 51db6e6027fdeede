/**
 * Everything `svc ui` asks the daemon to do, in one place (D25): each call
 * returns the line to show on the status bar. A refusal is a line, never an
 * exception: 409 on an approval is "answered elsewhere", a session that
 * ended meanwhile says so, and a daemon that is away says that.
 */
import { terminalSafe } from "../cli/terminal_text.ts";
import { checkText } from "../worktrees/check_text.ts";
import type { LandCheck, LandMode } from "../worktrees/land_types.ts";

export type { LandCheck, LandMode };
import type { RuleScope } from "../policy/approval_rules.ts";
import type { UiClient } from "./sync.ts";

/** What a user's action came to, for the status line. */
export interface Outcome {
  readonly ok: boolean;
  readonly message: string;
  /** The session a launch created (the UI focuses it). */
  readonly sessionId?: string;
}

/** A new session from the form (D25 view 7). */
export interface LaunchForm {
  harness: string;
  projectRoot: string;
  prompt: string;
  model: string;
  worktree: boolean;
}

type Body = { error?: { code?: string; message?: string }; id?: string };

interface RunLine {
  status: string;
  trigger: string;
  startedAt: string | null;
  scheduledFor: string | null;
  sessionId: string | null;
  error: { message?: string } | null;
}

/** What the views call: `UiActions`' methods, of one host or routed over several (hosts_actions.ts). */
export type Actions = { [K in keyof UiActions]: UiActions[K] };

export class UiActions {
  readonly #client: Pick<UiClient, "post" | "get">;

  constructor(client: Pick<UiClient, "post" | "get">) {
    this.#client = client;
  }

  /**
   * Answers a permission request; with a `scope`, "always": svc stores a
   * rule for this session, this project or everywhere (D28) and the agent
   * gets a plain allow.
   */
  answer(
    request: { sessionId: string; requestId: string },
    decision: "allow" | "deny",
    scope?: RuleScope,
  ): Promise<Outcome> {
    return this.#call(
      "/actions",
      {
        action: "svc.sessions.approve",
        sessionId: request.sessionId,
        requestId: request.requestId,
        decision,
        ...(scope === undefined ? {} : { scope }),
      },
      decision === "allow" ? (scope ? `Allowed, always (${scope})` : "Allowed") : "Denied",
      { 404: "Already answered elsewhere", 409: "Already answered elsewhere" },
    );
  }

  /** Sends the next turn of a conversation. */
  send(sessionId: string, text: string): Promise<Outcome> {
    return this.#call(`/sessions/${enc(sessionId)}/input`, { data: text }, "Sent", ENDED);
  }

  interrupt(sessionId: string): Promise<Outcome> {
    return this.#call(`/sessions/${enc(sessionId)}/interrupt`, {}, "Interrupted", ENDED);
  }

  close(sessionId: string): Promise<Outcome> {
    return this.#call(`/sessions/${enc(sessionId)}/close`, {}, "Closing", ENDED);
  }

  kill(sessionId: string): Promise<Outcome> {
    return this.#call(`/sessions/${enc(sessionId)}/kill`, {}, "Killed", ENDED);
  }

  /** D26: continues an ended conversation. */
  resume(sessionId: string): Promise<Outcome> {
    return this.#call(`/sessions/${enc(sessionId)}/resume`, {}, "Resumed", {});
  }

  /** The input line of an ended conversation: resumes it (D26), then sends `text` as its turn. */
  async resumeAndSend(sessionId: string, text: string): Promise<Outcome> {
    const resumed = await this.resume(sessionId);
    return resumed.ok ? this.send(sessionId, text) : resumed;
  }

  /** Runs a routine now (`svc.automations.run`). */
  async runRoutine(id: string): Promise<Outcome> {
    const response = await this.#post("/actions", { action: "svc.automations.run", id });
    if (response === null) return AWAY;
    const result = (response.body as { result?: { status?: string; error?: { message?: string } } })
      .result;
    if (!response.ok || result?.error) {
      return fail(result?.error?.message ?? messageOf(response.body, "Cannot run the routine"));
    }
    return { ok: true, message: `Run started (${result?.status ?? "running"})` };
  }

  /**
   * A routine's stored definition (`svc.automations.get`, without its
   * timestamps): what activating it lets run unattended, shown before asking.
   */
  async routine(
    id: string,
  ): Promise<{ ok: true; definition: Record<string, unknown> } | Failed> {
    const got = await this.#post("/actions", { action: "svc.automations.get", id });
    if (got === null) return AWAY;
    const routine = (got.body as { result?: { routine?: Record<string, unknown> | null } }).result
      ?.routine;
    if (!got.ok || !routine) return fail(messageOf(got.body, `Routine "${id}" is gone`));
    const { createdAt: _c, updatedAt: _u, ...definition } = routine;
    return { ok: true, definition };
  }

  /**
   * Pauses or activates a routine by id (`svc.automations.pause|activate`,
   * D30): the status alone, so an `operate` device may, and an edit made
   * meanwhile is never written back over.
   */
  setRoutineStatus(id: string, status: "ACTIVE" | "PAUSED"): Promise<Outcome> {
    return this.#call(
      "/actions",
      { action: status === "ACTIVE" ? "svc.automations.activate" : "svc.automations.pause", id },
      status === "ACTIVE" ? "Activated" : "Paused",
      {},
    );
  }

  /** Marks an inbox result read. */
  markRead(runId: string): Promise<Outcome> {
    return this.#call(
      "/actions",
      { action: "svc.automations.result", runId, markRead: true },
      "Marked read",
      {},
    );
  }

  /** The Markdown of an inbox result. */
  async result(runId: string): Promise<{ ok: boolean; text: string }> {
    const response = await this.#post("/actions", { action: "svc.automations.result", runId });
    if (response === null) return { ok: false, text: AWAY.message };
    if (!response.ok) return { ok: false, text: messageOf(response.body, "No result") };
    const markdown = (response.body as { result?: { markdown?: string } }).result?.markdown ?? "";
    // A result holds the agent's final message: shown, never sent to the terminal raw.
    return { ok: true, text: terminalSafe(markdown, { keepTabs: true }) };
  }

  /** A routine's last runs, one line each, newest first (the routines view's history). */
  async runs(routineId: string): Promise<string[]> {
    const response = await this.#post("/actions", {
      action: "svc.automations.runs",
      id: routineId,
      limit: 10,
    });
    if (response === null) return [AWAY.message];
    if (!response.ok) return [terminalSafe(messageOf(response.body, "No runs"))];
    const runs = (response.body as { result?: { runs?: RunLine[] } }).result?.runs ?? [];
    if (runs.length === 0) return ["No runs yet"];
    return runs.map((run) =>
      terminalSafe(
        [
          run.startedAt ?? run.scheduledFor ?? "-",
          run.status,
          run.trigger,
          run.sessionId ?? "-",
          run.error?.message ?? "",
        ].join("  ").replace(/\r?\n/g, " "),
      )
    );
  }

  /**
   * The first page of a session's worktree diff (D27) as terminal-safe
   * lines under its land check (D34), or why there is none (`svc worktrees diff ID` pages the rest).
   */
  async diff(sessionId: string): Promise<{ ok: boolean; lines: string[] }> {
    const [check, page] = await Promise.all([
      this.landCheck(sessionId),
      this.diffPage(sessionId, 0, DIFF_PAGE_BYTES),
    ]);
    if (!page.ok) return { ok: false, lines: [page.message] };
    const lines = terminalSafe(page.data, { keepTabs: true }).split("\n");
    // D34: whether it lands cleanly on the checkout's HEAD, above the patch.
    if (check.ok) lines.unshift(terminalSafe(checkText(check.check)), "");
    if (page.nextOffset !== null) {
      lines.push("", `… the diff goes on: svc worktrees diff ${sessionId}`);
    }
    return { ok: true, lines };
  }

  /**
   * One page of a session's worktree diff (D27) from byte `offset`, as the
   * daemon sent it; `nextOffset` is where the next page starts (null: the end).
   */
  async diffPage(
    sessionId: string,
    offset: number,
    length = DIFF_PAGE_BYTES,
  ): Promise<{ ok: true; data: string; nextOffset: number | null } | Failed> {
    let response;
    try {
      response = await this.#client.get<{ diff?: { data: string; nextOffset: number | null } }>(
        `/sessions/${enc(sessionId)}/worktree/diff?offset=${offset}&length=${length}`,
      );
    } catch {
      return AWAY;
    }
    const diff = response.body.diff;
    if (!response.ok || !diff) return fail(messageOf(response.body, "No worktree diff"));
    return { ok: true, data: diff.data, nextOffset: diff.nextOffset ?? null };
  }

  /** Whether the worktree's work lands cleanly on the checkout's HEAD (D34), nothing written. */
  async landCheck(sessionId: string): Promise<{ ok: true; check: LandCheck } | Failed> {
    let response;
    try {
      response = await this.#client.get<{ check?: LandCheck }>(
        `/sessions/${enc(sessionId)}/worktree/check`,
      );
    } catch {
      return AWAY;
    }
    const check = response.body.check;
    if (!response.ok || !check) return fail(messageOf(response.body, "Cannot check the land"));
    return { ok: true, check };
  }

  /** Lands the worktree's work on the checkout's branch (D27); a refusal says why. */
  land(sessionId: string, mode: LandMode): Promise<Outcome> {
    return this.#call(
      `/sessions/${enc(sessionId)}/worktree/land`,
      { mode },
      `Landed (${mode})`,
      {},
    );
  }

  /** Removes the worktree and its branch (D27); `force` for work never landed. */
  discard(sessionId: string, force: boolean): Promise<Outcome> {
    return this.#call(
      `/sessions/${enc(sessionId)}/worktree/discard`,
      { force },
      "Discarded the worktree and its branch",
      {},
    );
  }

  /** Takes an item out of the land queue (D34): queued, sent back or failed ones only. */
  cancelLand(itemId: string): Promise<Outcome> {
    return this.#call(`/land-queue/${enc(itemId)}/cancel`, {}, "Cancelled the land", {
      404: "That item is no longer in the queue",
    });
  }

  /** Launches a session from the form. */
  async launch(form: LaunchForm): Promise<Outcome> {
    const response = await this.#post("/sessions", {
      harness: form.harness,
      projectRoot: form.projectRoot,
      prompt: form.prompt,
      ...(form.model.trim() === "" ? {} : { model: form.model.trim() }),
      ...(form.worktree ? { isolation: "worktree" } : {}),
    });
    if (response === null) return AWAY;
    if (!response.ok) return fail(messageOf(response.body, "Cannot launch"));
    const id = (response.body as Body).id ?? "";
    return { ok: true, message: `Launched ${id}`, sessionId: id };
  }

  async #call(
    path: string,
    body: unknown,
    success: string,
    refusals: Partial<Record<number, string>>,
  ): Promise<Outcome> {
    const response = await this.#post(path, body);
    if (response === null) return AWAY;
    if (response.ok) return { ok: true, message: success };
    const known = refusals[response.status];
    return fail(known ?? messageOf(response.body, `Refused (${response.status})`));
  }

  async #post(
    path: string,
    body: unknown,
  ): Promise<{ ok: boolean; status: number; body: unknown } | null> {
    try {
      return await this.#client.post(path, body);
    } catch {
      return null;
    }
  }
}

/** The part of a diff the session view shows (the first page). */
const DIFF_PAGE_BYTES = 1024 * 1024;

const ENDED: Partial<Record<number, string>> = {
  404: "That session is gone",
  409: "That session is not live any more",
};

/** An outcome that did not happen: what the footer says. */
type Failed = { readonly ok: false; readonly message: string };

const AWAY: Failed = { ok: false, message: "The daemon does not answer" };

function fail(message: string): Failed {
  return { ok: false, message: terminalSafe(message) };
}

function messageOf(body: unknown, fallback: string): string {
  const message = (body as Body | null)?.error?.message;
  return typeof message === "string" && message !== "" ? message : fallback;
}

function enc(id: string): string {
  return encodeURIComponent(id);
}
