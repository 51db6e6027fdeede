/**
 * The approval broker (D18): every permission request of a protocol session
 * comes here. Under `deny` or `allow` it is answered at once by policy;
 * under `ask` it waits for the owner (`svc.sessions.approve`), at most
 * `approvals.timeoutSeconds`, then it is denied by timeout. A session that
 * ends, is killed or interrupted resolves its pending requests as denied
 * (`ended`). A request whose id is already pending in its session is denied
 * at once (`policy`), so the first keeps its place and each gets one answer.
 * The broker knows no harness and no protocol: the conversation records the
 * events and the adapters turn decisions into protocol lines.
 *
 * Before any of that, standing rules (D28) are checked, under every policy:
 * a matching deny rule denies, else a matching allow rule allows (`by:
 * "rule"`, with its `ruleId`). An owner's "always" becomes a rule of svc's own
 * (this session, its project, everywhere) and a plain allow for the agent.
 */
import { ServiceError } from "../errors.ts";
import { type Clock, isoTime } from "../clock.ts";
import type { DeviceRef, PermissionDecision, PermissionRequest } from "../agents/conversation.ts";
import { redactText } from "../events/redact.ts";
import {
  type ApprovalRule,
  matchRules,
  type PreparedRequest,
  prepareRequest,
  proposeRule,
  type RequestTarget,
  ruleProject,
  type RuleScope,
  type RuleSession,
  type ToolKind,
} from "../policy/approval_rules.ts";
import type { PermissionProfile } from "../policy/permission_profile.ts";
import type { NewApprovalRule } from "./rules.ts";

/** A session's approval policy (D18). */
export const APPROVAL_POLICIES = ["ask", "deny", "allow"] as const;
export type ApprovalPolicy = typeof APPROVAL_POLICIES[number];

/** A pending request as `svc.sessions.approvals` lists it (D18). */
export interface PendingApproval {
  sessionId: string;
  requestId: string;
  tool: string;
  summary: string;
  requestedAt: string;
  expiresAt: string;
  /** svc's kind of the tool (D28): shell, edit, read, fetch or other. */
  kind: ToolKind;
  /** The shell command (redacted), for shell requests. */
  command: string | null;
  /** The command's argv when it is one simple command (redacted), else null. */
  argv: string[] | null;
  /** The paths it reads or writes, absolute and normalised. */
  paths: string[];
  /**
   * The session's project, where a "this project" rule applies: the project
   * root, or the repository's root for a session in an svc worktree (issue 38).
   */
  projectRoot: string | null;
  /**
   * What a permissions request asks for (paths absolute and normalised), null
   * for other requests: what the grant and an "always" rule answer (issue 33).
   */
  profile: PermissionProfile | null;
}

/** The owner's answer. */
export interface OwnerAnswer {
  decision: "allow" | "deny";
  /** "Always": an allow becomes a rule of svc's own (D28), scoped by `scope`. */
  remember: boolean;
  message: string | null;
  /** Where an "always" rule applies; the session when not given. */
  scope?: RuleScope;
  /** The paired device the owner answered from (D30 audit). */
  device?: DeviceRef;
}

interface Waiting {
  approval: PendingApproval;
  /** The request as rules see it (the real argv, unredacted), for an "always" rule. */
  prepared: PreparedRequest | null;
  resolve: (decision: PermissionDecision) => void;
}

/** Resolved request keys remembered to tell 409 (answered) from 404 (never asked). */
const MAX_RESOLVED = 10_000;
/** Checked requests kept for their `decide` call (one that never comes is forgotten). */
const MAX_CHECKED = 1000;

/** Options of the broker. */
export interface BrokerOptions {
  clock: Clock;
  /** How long an `ask` request waits for the owner (config `approvals.timeoutSeconds`). */
  timeoutMs: () => number;
  /** Called once a request starts waiting for the owner (the notification hook, the feed). */
  onPending?: (approval: PendingApproval) => void;
  /** Called once a waiting request is resolved, however. */
  onResolved?: (approval: PendingApproval, decision: PermissionDecision) => void;
  /** The standing rules (D28); none when not given. */
  rules?: () => readonly ApprovalRule[];
  /** Stores a rule (an "always" answer, D28). */
  addRule?: (rule: NewApprovalRule) => ApprovalRule;
  /** The session a request comes from: its harness, project root, cwd and repository. */
  session?: (sessionId: string) => Omit<RuleSession, "sessionId"> | null;
  /** Reports a rule check that failed (the request is then decided without rules). */
  onRuleError?: (error: unknown) => void;
}

/** Pending owner decisions, keyed by session and request. */
export class ApprovalBroker {
  readonly #options: BrokerOptions;
  readonly #waiting = new Map<string, Waiting>();
  readonly #resolved = new Set<string>();
  /** Requests checked against the rules and not yet decided: how rules saw them. */
  readonly #checked = new Map<string, PreparedRequest>();

  constructor(options: BrokerOptions) {
    this.#options = options;
  }

  /**
   * Decides one request under `policy`. With `ask` it resolves when the
   * owner answers, the timeout passes, or `signal` aborts (the session
   * ended or its turn was interrupted).
   */
  async decide(
    sessionId: string,
    policy: ApprovalPolicy,
    request: PermissionRequest,
    signal: AbortSignal,
  ): Promise<PermissionDecision> {
    const key = keyOf(sessionId, request.requestId);
    const session = this.#session(sessionId);
    // Checked already (the conversation asks before it records the request): no await, so the
    // request is pending by the time anyone can read its `agent.permission` event.
    const checked = this.#checked.get(key);
    this.#checked.delete(key);
    if (checked !== undefined || session === null) {
      return this.#decideByPolicy(sessionId, policy, request, signal, session, checked ?? null);
    }
    const ruled = await this.checkRules(sessionId, request);
    if (ruled !== null) return ruled;
    const prepared = this.#checked.get(key) ?? null;
    this.#checked.delete(key);
    return this.#decideByPolicy(sessionId, policy, request, signal, session, prepared);
  }

  /**
   * The standing rules' answer to a request (D28), or null when no rule
   * answers it; `decide` then asks as usual. Never throws: a failed check
   * is reported and answers null.
   */
  async checkRules(
    sessionId: string,
    request: PermissionRequest,
  ): Promise<PermissionDecision | null> {
    const session = this.#session(sessionId);
    if (session === null) return null;
    try {
      const prepared = await prepareRequest(request.tool, request.target ?? NO_TARGET, session);
      const rule = matchRules(this.#options.rules?.() ?? [], prepared, session);
      if (rule !== null) return byRule(rule);
      const key = keyOf(sessionId, request.requestId);
      this.#checked.set(key, prepared);
      if (this.#checked.size > MAX_CHECKED) {
        this.#checked.delete(this.#checked.keys().next().value!);
      }
    } catch (error) {
      this.#options.onRuleError?.(error);
    }
    return null;
  }

  #session(sessionId: string): RuleSession | null {
    const found = this.#options.session?.(sessionId) ?? null;
    return found === null ? null : { sessionId, ...found };
  }

  #decideByPolicy(
    sessionId: string,
    policy: ApprovalPolicy,
    request: PermissionRequest,
    signal: AbortSignal,
    session: RuleSession | null,
    prepared: PreparedRequest | null,
  ): Promise<PermissionDecision> {
    if (policy !== "ask") {
      return Promise.resolve({
        decision: policy,
        remember: false,
        message: policy === "deny" ? "Denied by svc: this session's approval policy is deny" : null,
        by: "policy",
      });
    }
    const key = keyOf(sessionId, request.requestId);
    if (signal.aborted) return Promise.resolve(ended());
    // Issue 28 item 7: a second request under a pending id once replaced the first, which was
    // then never listed, answered or timed out. The first keeps its place; the copy is denied
    // (not announced: an `approval.resolved` for this id would read as the first's answer).
    if (this.#waiting.has(key)) return Promise.resolve(duplicate(request.requestId));
    const { clock } = this.#options;
    const now = clock.now();
    const timeoutMs = this.#options.timeoutMs();
    const approval: PendingApproval = {
      sessionId,
      requestId: request.requestId,
      tool: request.tool,
      summary: request.summary,
      requestedAt: isoTime(now),
      expiresAt: isoTime(now + timeoutMs),
      kind: prepared?.kind ?? request.target?.kind ?? "other",
      command: request.target?.command == null ? null : redactText(request.target.command),
      argv: prepared?.command?.simple?.map((word) => redactText(word)) ?? null,
      paths: prepared?.paths ?? [],
      projectRoot: prepared?.project ?? (session === null ? null : ruleProject(session)),
      profile: prepared?.profile ?? request.target?.profile ?? null,
    };
    return new Promise((resolve) => {
      const timer = new AbortController();
      const waiting: Waiting = {
        approval,
        prepared,
        resolve: (decision) => {
          if (this.#waiting.get(key) !== waiting) return; // Exactly one answer wins.
          this.#waiting.delete(key);
          this.#remember(key);
          timer.abort();
          signal.removeEventListener("abort", onAbort);
          this.#options.onResolved?.(approval, decision);
          resolve(decision);
        },
      };
      const onAbort = () => waiting.resolve(ended());
      this.#waiting.set(key, waiting);
      signal.addEventListener("abort", onAbort, { once: true });
      clock.sleep(timeoutMs, timer.signal).then(() => {
        if (timer.signal.aborted) return;
        waiting.resolve({
          decision: "deny",
          remember: false,
          message: TIMEOUT_MESSAGE,
          by: "timeout",
        });
      });
      this.#options.onPending?.(approval);
    });
  }

  /**
   * The owner answers a pending request: exactly one answer wins; a resolved
   * request is 409 `approval_not_pending`, an unknown one 404 `approval_not_found`.
   */
  answer(sessionId: string, requestId: string, answer: OwnerAnswer): { rule: ApprovalRule | null } {
    const key = keyOf(sessionId, requestId);
    const waiting = this.#waiting.get(key);
    if (waiting) {
      // "Always" is svc's own rule, never the agent's (whose meaning differs per agent, D28).
      const rule = answer.decision === "allow" && answer.remember
        ? this.#alwaysRule(waiting, answer.scope ?? "session")
        : null;
      waiting.resolve({
        decision: answer.decision,
        remember: false,
        message: answer.message,
        by: "owner",
        ...(answer.device === undefined ? {} : { device: answer.device }),
      });
      return { rule };
    }
    if (this.#resolved.has(key)) {
      throw new ServiceError(
        "approval_not_pending",
        409,
        `Request "${requestId}" of session "${sessionId}" is no longer pending`,
        { sessionId, requestId },
      );
    }
    throw new ServiceError(
      "approval_not_found",
      404,
      `Session "${sessionId}" has no permission request "${requestId}"`,
      { sessionId, requestId },
    );
  }

  /** Stores the rule an "always" answer makes; null when nothing safe can be remembered. */
  #alwaysRule(waiting: Waiting, scope: RuleScope): ApprovalRule | null {
    const { approval, prepared } = waiting;
    const fields = proposeRule({
      sessionId: approval.sessionId,
      projectRoot: approval.projectRoot ?? "",
      tool: approval.tool,
      kind: approval.kind,
      argv: prepared?.command?.simple ?? null,
      command: approval.command,
      profile: approval.profile,
    }, scope);
    if (fields === null || this.#options.addRule === undefined) return null;
    if (scope === "project" && fields.projectRoot === "") return null;
    return this.#options.addRule(fields);
  }

  /** Pending requests, oldest first; only one session's when `sessionId` is given. */
  list(sessionId?: string): PendingApproval[] {
    return [...this.#waiting.values()]
      .map((waiting) => waiting.approval)
      .filter((approval) => sessionId === undefined || approval.sessionId === sessionId);
  }

  #remember(key: string): void {
    this.#resolved.add(key);
    if (this.#resolved.size > MAX_RESOLVED) {
      this.#resolved.delete(this.#resolved.values().next().value!);
    }
  }
}

const NO_TARGET: RequestTarget = { kind: "other", command: null, paths: [] };

function byRule(rule: ApprovalRule): PermissionDecision {
  const note = rule.note ? ` (${rule.note})` : "";
  return {
    decision: rule.decision,
    remember: false,
    message: rule.decision === "deny" ? `Denied by svc: approval rule ${rule.id}${note}` : null,
    by: "rule",
    ruleId: rule.id,
  };
}

const TIMEOUT_MESSAGE = "Denied by svc: nobody answered the permission request in time";

function ended(): PermissionDecision {
  return {
    decision: "deny",
    remember: false,
    message: "Denied by svc: the session ended or its turn was interrupted",
    by: "ended",
  };
}

function duplicate(requestId: string): PermissionDecision {
  return {
    decision: "deny",
    remember: false,
    message: `Denied by svc: request "${requestId}" repeats the id of a request still pending`,
    by: "policy",
  };
}

function keyOf(sessionId: string, requestId: string): string {
  return `${sessionId}\u0000${requestId}`;
}
