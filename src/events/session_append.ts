/**
 * Appends an event to a session's log whether or not its agent is live
 * (D34: a land's `worktree.verify` output lands in the log of an ended
 * session). A live session's log is sequenced already; an ended one's is
 * opened at its stored last seq for the append and closed after it.
 */
import type { SessionsStore } from "../store/sessions_store.ts";
import type { EventLog } from "./event_log.ts";

/** Appends `kind` to the session's log and resolves once it is durable; an unknown session is skipped. */
export async function appendToSession(
  log: EventLog,
  sessions: SessionsStore,
  event: { sessionId: string; kind: string; payload: unknown },
): Promise<void> {
  const { sessionId, kind, payload } = event;
  if (log.lastAppendedSeq(sessionId) !== null) {
    await log.append(sessionId, kind, payload);
    return;
  }
  const row = sessions.get(sessionId);
  if (!row) return;
  log.open(sessionId, row.last_seq);
  try {
    await log.append(sessionId, kind, payload);
  } finally {
    log.close(sessionId);
  }
}
