/**
 * What every protocol adapter speaks with the conversation around it (D16,
 * D17). An adapter is a small state machine over one agent protocol: it turns
 * the child's stdout lines into typed steps, and user intents (a turn, an
 * interrupt, a permission answer) into the lines to write on the child's
 * stdin. It does no I/O and keeps no timers; the conversation does that.
 */

import type { RequestTarget } from "../policy/approval_rules.ts";

/** Protocol ids of harnesses (D16); `raw` is the byte pipe and has no adapter. */
import type { TurnLimit } from "./limits.ts";

export const PROTOCOLS = ["raw", "claude", "codex-app-server", "acp"] as const;
export type ProtocolId = typeof PROTOCOLS[number];
export type AgentProtocolId = Exclude<ProtocolId, "raw">;

/** Token and cost figures; null where the harness does not report one (D22). */
export interface Usage {
  inputTokens: number | null;
  outputTokens: number | null;
  cachedInputTokens: number | null;
  costUsd: number | null;
}

/** The usage of a harness that reports nothing. */
export const NO_USAGE: Usage = Object.freeze({
  inputTokens: null,
  outputTokens: null,
  cachedInputTokens: null,
  costUsd: null,
});

/** How a turn ended (D17 `agent.turn.status`). */
export type TurnStatus = "completed" | "failed" | "interrupted";

/** Status of one tool call (D17 `agent.tool.status`). */
export type ToolStatus = "started" | "completed" | "failed" | "declined";

/** How much an agent notice matters (D29 `agent.notice.level`). */
export type NoticeLevel = "info" | "warning" | "error";

/** One choice an agent offers on a permission request. */
export interface PermissionOption {
  /** The adapter's id for it (ACP optionId, or "allow"/"deny"). */
  id: string;
  kind: "allow_once" | "allow_always" | "reject_once" | "reject_always";
  label: string;
}

/**
 * What one stdout line (or an intent) means. The conversation records the
 * events, writes the lines and follows the state changes.
 */
export type AdapterStep =
  /** The handshake is done: the agent takes turns now (D16). */
  | {
    type: "ready";
    agentSessionId: string | null;
    model: string | null;
    agentVersion: string | null;
    /** The agent can load this conversation again in a new process (D26). */
    resumable: boolean;
    /**
     * Wait for this much silence before the first turn: an agent that replays a
     * loaded conversation after answering the load (gemini) is still talking.
     */
    settleMs?: number;
  }
  /** The agent's session id became known or changed (claude reports it per turn). */
  | { type: "session"; agentSessionId: string }
  /** A complete assistant message: the durable record of what the agent said. */
  | { type: "message"; text: string }
  /** A piece of the assistant message being written, shown live and never stored (D29). */
  | { type: "delta"; text: string }
  /** What the agent says about its own progress, e.g. a retried provider call (D29). */
  | {
    type: "notice";
    level: NoticeLevel;
    message: string;
    attempt: number | null;
    maxAttempts: number | null;
  }
  | {
    type: "tool";
    callId: string;
    name: string;
    status: ToolStatus;
    input: string | null;
    output: string | null;
  }
  /** The agent asks before using a tool; answer with `answerPermission`. */
  | {
    type: "permission";
    requestId: string;
    tool: string;
    summary: string;
    options: PermissionOption[];
    /** What the request is about, for approval rules (D28). */
    target?: RequestTarget;
  }
  /** Usage reported during a turn; `cumulative` when it is a running total of the session. */
  | { type: "usage"; usage: Usage; cumulative: boolean }
  /**
   * The current turn ended. `result` is the final assistant text, when the
   * protocol has one; `limit`, on a turn that failed on a provider's limit (D33).
   */
  | {
    type: "turn_end";
    status: TurnStatus;
    reason: string | null;
    result: string | null;
    usage: Usage | null;
    limit?: TurnLimit;
  }
  /**
   * Something went wrong that the user should see (agent.error); `fatal` ends
   * the session; `lost`: the agent refused to load the conversation, which is
   * no longer resumable (gemini keeps refusing a session it lost once).
   */
  | { type: "error"; message: string; fatal: boolean; lost?: boolean }
  /** A line to write to the child's stdin (a reply the protocol needs, e.g. to an unknown request). */
  | { type: "write"; line: string };

/** The owner's (or a policy's) answer to a permission request. */
export interface PermissionAnswer {
  decision: "allow" | "deny";
  /** Allow for the rest of the session where the agent offers it. */
  remember: boolean;
  /** Shown to the agent on deny. */
  message: string | null;
}

/** What the adapter needs to know about the session it drives. */
export interface AdapterContext {
  cwd: string;
  model: string | null;
  /** The agent session to continue instead of starting one (D26), or null. */
  resume?: string | null;
}

/** One protocol's state machine (D16). */
export interface ProtocolAdapter {
  readonly protocol: AgentProtocolId;
  /**
   * True when the agent takes its first turn before it reports `ready`
   * (claude announces itself only in answer to a user message).
   */
  readonly turnsBeforeReady?: boolean;
  /** Lines to write at once after spawn (the handshake's first request), maybe none. */
  start(): string[];
  /** Parses one stdout line (without its newline). Unknown or non-JSON lines yield no step. */
  onLine(line: string): AdapterStep[];
  /**
   * Whether a stdout line is a piece of text streamed as it is written (D29), which svc
   * records whole: such a line is not stored as `output`, where a secret written across
   * several of them would escape redaction (issue 33). Pure: keeps no state.
   */
  streamedPiece(line: string): boolean;
  /** Lines that send `text` as the next user turn; only called once `ready` and idle. */
  sendTurn(text: string): string[];
  /** Lines that cancel the current turn; the turn still ends with a `turn_end` step. */
  interrupt(): string[];
  /** Lines that answer a pending permission request. */
  answerPermission(requestId: string, answer: PermissionAnswer): string[];
}

/** Makes an adapter for one session. */
export type AdapterFactory = (context: AdapterContext) => ProtocolAdapter;

/** Adds `next` to `total`; a figure stays null only while neither reports it (D22). */
export function addUsage(total: Usage, next: Usage): Usage {
  const add = (a: number | null, b: number | null) =>
    a === null && b === null ? null : (a ?? 0) + (b ?? 0);
  return {
    inputTokens: add(total.inputTokens, next.inputTokens),
    outputTokens: add(total.outputTokens, next.outputTokens),
    cachedInputTokens: add(total.cachedInputTokens, next.cachedInputTokens),
    costUsd: add(total.costUsd, next.costUsd),
  };
}

/** Parses a JSON object line; null for anything else (blank lines, logs, arrays). */
export function parseJsonLine(line: string): Record<string, unknown> | null {
  const trimmed = line.trim();
  if (!trimmed.startsWith("{")) return null;
  try {
    const value = JSON.parse(trimmed);
    return value !== null && typeof value === "object" && !Array.isArray(value) ? value : null;
  } catch {
    return null;
  }
}

/** Text of at most 4 KiB of UTF-8 for tool input/output and turn results (D17). */
export const MAX_EVENT_TEXT_BYTES = 4096;
