/**
 * The permission requests of a `svc chat` / `svc attach` conversation (D18):
 * the oldest request still waiting is put to the user, and their answer goes
 * through `svc.sessions.approve`. A request is asked only once the log has
 * been read up to where it stood when the conversation began, so one that was
 * answered before an attach is never asked again.
 */
import type { SvcClient } from "../client/client.ts";
import type { PendingApproval } from "../approvals/broker.ts";
import { alwaysChoices, type RuleScope } from "../policy/approval_rules.ts";
import { type PermissionProfile, profileText } from "../policy/permission_profile.ts";
import { terminalSafe } from "./terminal_text.ts";
import type { EventRecord } from "../store/events_store.ts";
import type { SessionRecord } from "../store/sessions_store.ts";
import { describeRequest } from "./approvals.ts";
import type { ChatTerminal } from "./chat_loop.ts";
import { describeError } from "./output.ts";

/** What a request asks is cut to this many characters in its question. */
const MAX_ASKED_CHARS = 80;

/**
 * The question put to the user: `Allow Bash: touch x? [y]es / [n]o / [a]lways`.
 * A permissions request names its whole profile, never cut: it is what a yes grants.
 */
export function permissionQuestion(
  request: { tool: string; summary: string; profile?: PermissionProfile | null },
): string {
  const { tool, profile } = request;
  const what = [...describeRequest(profile ? { tool, summary: profileText(profile) } : request)];
  const shown = !profile && what.length > MAX_ASKED_CHARS
    ? what.slice(0, MAX_ASKED_CHARS - 1).join("") + "…"
    : what.join("");
  return `Allow ${shown}? [y]es / [n]o / [a]lways`;
}

/** Follows a conversation's permission events and answers the request being asked. */
export class PermissionPrompt {
  readonly #client: SvcClient;
  readonly #sessionId: string;
  readonly #terminal: ChatTerminal;
  /** Requests seen in the log and not resolved there yet, oldest first. */
  #waiting: Array<{ requestId: string; question: string }> = [];
  /** The log's last seq when the conversation began: events up to it are history. */
  readonly #historyUntil: number;
  #caughtUp: boolean;
  /** The request whose question the terminal shows, if any. */
  #asking: string | null = null;
  /** Set while "always" asks where the rule applies (D28): the request it is for. */
  #choosingScope: string | null = null;

  constructor(
    client: SvcClient,
    terminal: ChatTerminal,
    { session, afterSeq }: { session: SessionRecord; afterSeq: number },
  ) {
    this.#client = client;
    this.#sessionId = session.id;
    this.#terminal = terminal;
    this.#historyUntil = session.last_seq;
    this.#caughtUp = afterSeq >= session.last_seq;
  }

  /** Whether a question is put: then `y`, `n`, `a` answer it instead of being turns. */
  get asking(): boolean {
    return this.#asking !== null;
  }

  /** Takes note of one event of the log, in order. */
  observe(event: Pick<EventRecord, "seq" | "kind" | "payload_json">): void {
    if (event.kind === "agent.permission" || event.kind === "agent.permission.resolved") {
      const payload = JSON.parse(event.payload_json) as {
        requestId?: string;
        tool?: string;
        summary?: string;
        profile?: PermissionProfile;
      };
      const requestId = payload.requestId ?? "";
      if (event.kind === "agent.permission") {
        const question = permissionQuestion({
          tool: payload.tool ?? "",
          summary: payload.summary ?? "",
          profile: payload.profile ?? null,
        });
        this.#waiting.push({ requestId, question });
      } else {
        this.#forget(requestId);
      }
    }
    if (event.seq >= this.#historyUntil) this.#caughtUp = true;
    this.#ask();
  }

  /**
   * Answers the request being asked. One resolved meanwhile (timeout, another
   * client) or a refusal is a notice; the next waiting request is asked.
   */
  async answer(
    { decision, remember, scope }: {
      decision: "allow" | "deny";
      remember: boolean;
      scope?: RuleScope;
    },
    signal: AbortSignal,
  ): Promise<void> {
    const requestId = this.#asking;
    if (requestId === null) {
      this.#terminal.notice("No permission request is waiting");
      return;
    }
    if (this.#choosingScope === requestId && scope === undefined) {
      // `n` (or `y`, `a`) while choosing where: back to the request's own question.
      this.#choosingScope = null;
      this.#asking = null;
      this.#ask();
      return;
    }
    if (decision === "allow" && remember && scope === undefined) {
      await this.#chooseScope(requestId, signal);
      return;
    }
    this.#choosingScope = null;
    this.#forget(requestId);
    this.#ask();
    const response = await this.#client.request("POST", "/actions", {
      action: "svc.sessions.approve",
      origin: "cli",
      sessionId: this.#sessionId,
      requestId,
      decision,
      ...(remember ? { remember: true } : {}),
      ...(scope === undefined ? {} : { scope }),
    }, { signal });
    if (response.ok) {
      const rule = (response.body as { result?: { rule?: { id: string } | null } })?.result?.rule;
      if (rule) this.#terminal.notice(`Created approval rule ${rule.id}`);
      return;
    }
    const code = (response.body as { error?: { code?: string } })?.error?.code;
    this.#terminal.notice(
      code === "approval_not_pending"
        ? `Too late: request ${requestId} was already resolved`
        : describeError(response.body),
    );
  }

  /**
   * "Always" asks where (D28): the rules each scope would create are shown,
   * then `s` this session, `p` this project, `e` everywhere, `n` back.
   */
  async #chooseScope(requestId: string, signal: AbortSignal): Promise<void> {
    const response = await this.#client.request("POST", "/actions", {
      action: "svc.sessions.approvals",
      origin: "cli",
      sessionId: this.#sessionId,
    }, { signal });
    const approvals = response.ok
      ? (response.body as { result?: { approvals?: PendingApproval[] } }).result?.approvals ?? []
      : [];
    const pending = approvals.find((approval) => approval.requestId === requestId);
    if (pending === undefined) {
      this.#terminal.notice(`Too late: request ${requestId} was already resolved`);
      this.#forget(requestId);
      this.#ask();
      return;
    }
    const lines = alwaysChoices(pending);
    this.#terminal.notice(
      terminalSafe(["Always allow — the rule it creates:", ...lines].join("\n"), {
        keepTabs: true,
      }),
    );
    this.#choosingScope = requestId;
    this.#terminal.ask("Always allow where? [s]ession / [p]roject / [e]verywhere / [n]o, back");
  }

  #forget(requestId: string): void {
    this.#waiting = this.#waiting.filter((request) => request.requestId !== requestId);
  }

  /** Puts the oldest waiting request to the user, once the history is read. */
  #ask(): void {
    const next = this.#caughtUp ? this.#waiting[0] : undefined;
    if ((next?.requestId ?? null) === this.#asking) return;
    this.#asking = next?.requestId ?? null;
    this.#terminal.ask(next?.question ?? null);
  }
}
