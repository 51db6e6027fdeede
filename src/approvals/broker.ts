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
 */
import { ServiceError } from "../errors.ts";
import { type Clock, isoTime } from "../clock.ts";
import type { PermissionDecision, PermissionRequest } from "../agents/conversation.ts";

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
}

/** The owner's answer. */
export interface OwnerAnswer {
  decision: "allow" | "deny";
  remember: boolean;
  message: string | null;
}

interface Waiting {
  approval: PendingApproval;
  resolve: (decision: PermissionDecision) => void;
}

/** Resolved request keys remembered to tell 409 (answered) from 404 (never asked). */
const MAX_RESOLVED = 10_000;

/** Options of the broker. */
export interface BrokerOptions {
  clock: Clock;
  /** How long an `ask` request waits for the owner (config `approvals.timeoutSeconds`). */
  timeoutMs: () => number;
  /** Called once a request starts waiting for the owner (the notification hook, the feed). */
  onPending?: (approval: PendingApproval) => void;
  /** Called once a waiting request is resolved, however. */
  onResolved?: (approval: PendingApproval, decision: PermissionDecision) => void;
}

/** Pending owner decisions, keyed by session and request. */
export class ApprovalBroker {
  readonly #options: BrokerOptions;
  readonly #waiting = new Map<string, Waiting>();
  readonly #resolved = new Set<string>();

  constructor(options: BrokerOptions) {
    this.#options = options;
  }

  /**
   * Decides one request under `policy`. With `ask` it resolves when the
   * owner answers, the timeout passes, or `signal` aborts (the session
   * ended or its turn was interrupted).
   */
  decide(
    sessionId: string,
    policy: ApprovalPolicy,
    request: PermissionRequest,
    signal: AbortSignal,
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
    };
    return new Promise((resolve) => {
      const timer = new AbortController();
      const waiting: Waiting = {
        approval,
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
  answer(sessionId: string, requestId: string, answer: OwnerAnswer): void {
    const key = keyOf(sessionId, requestId);
    const waiting = this.#waiting.get(key);
    if (waiting) {
      waiting.resolve({ ...answer, by: "owner" });
      return;
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
