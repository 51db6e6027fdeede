import { ServiceError } from "../errors.ts";
import type { SessionRow } from "../store/sessions_store.ts";

/** Why a conversation cannot be resumed (D26 `not_resumable` `details.reason`). */
export type NotResumableReason =
  | "not_a_conversation"
  | "no_agent_session_id"
  | "agent_cannot_load"
  | "harness_unavailable"
  | "invalid_agent_session_id"
  | "paths_refused"
  | "worktree_replaced"
  | "clock_before_end";

/**
 * Whether `row` may be resumed now (D26), from the record alone: null when
 * it may, else the error to answer. Live → 409 `session_live`; a raw
 * harness, no agent session id, or an agent that cannot load its sessions →
 * 409 `not_resumable` with the reason; a pruned worktree → 409
 * `worktree_removed`. Pure: whether the worktree directory still exists is
 * checked by the caller.
 */
export function resumeRefusal(row: SessionRow): ServiceError | null {
  const sessionId = row.id;
  if (row.status === "running") {
    return new ServiceError(
      "session_live",
      409,
      `Session "${sessionId}" is live: it takes input as it is`,
      { sessionId, status: row.status },
    );
  }
  const reason: NotResumableReason | null = row.protocol === "raw"
    ? "not_a_conversation"
    : row.agent_session_id === null
    ? "no_agent_session_id"
    : row.agent_resumable !== 1
    ? "agent_cannot_load"
    : null;
  if (reason !== null) return notResumable(sessionId, reason);
  const worktree = row.worktree_json === null ? null : JSON.parse(row.worktree_json);
  if (worktree?.removedAt) return worktreeRemoved(sessionId, worktree.path);
  return null;
}

const REASONS: Readonly<Record<NotResumableReason, string>> = {
  not_a_conversation: "it runs a raw harness, not an agent conversation",
  no_agent_session_id: "its agent never reported a session id",
  agent_cannot_load:
    "its agent cannot load it: it did not advertise loading sessions, or refused to load this one",
  harness_unavailable: "its harness is no longer configured or installed",
  invalid_agent_session_id: "its recorded agent session id is not in its agent's format",
  paths_refused: "its paths no longer pass the launch checks",
  worktree_replaced: "its worktree is no longer the directory svc made",
  clock_before_end:
    "the clock is before its end, and its agent loses a conversation loaded in the minute it was recorded",
};

/**
 * 409 `not_resumable` with the reason in `details` (D26); `cause` (a launch
 * check's message) is appended, and `details` extended, when given.
 */
export function notResumable(
  sessionId: string,
  reason: NotResumableReason,
  { cause, details = {} }: { cause?: string; details?: Record<string, unknown> } = {},
): ServiceError {
  return new ServiceError(
    "not_resumable",
    409,
    `Session "${sessionId}" cannot be resumed: ${REASONS[reason]}${cause ? `: ${cause}` : ""}`,
    { ...details, sessionId, reason },
  );
}

/** 409 `worktree_removed`: the isolated session's worktree was pruned (D20, D26). */
export function worktreeRemoved(sessionId: string, path: string): ServiceError {
  return new ServiceError(
    "worktree_removed",
    409,
    `Session "${sessionId}" cannot be resumed: its worktree "${path}" was removed`,
    { sessionId, path },
  );
}
