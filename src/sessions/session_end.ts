/**
 * The end of a session's start (D7): leftovers of its processes swept, how
 * it ended decided (killed, parked, completed or failed), and the end
 * recorded — its worktree counted (D20), a park (D33), the durable
 * `session.ended` event, then the row and the feed.
 */
import { isoTime } from "../clock.ts";
import { redactText } from "../events/redact.ts";
import type { SessionRow, SessionStatus } from "../store/sessions_store.ts";
import { type LiveSession, signalStart } from "./live_session.ts";
import type { ParkOutcome } from "./park_record.ts";
import type { MarkedReaper } from "./process_tree.ts";
import { type ExitStatus, killProcessGroup } from "./spawner.ts";
import type { SupervisorOptions } from "./supervisor.ts";

/** Leftovers of a session that ended on its own get this long after SIGTERM, then SIGKILL. */
const LEFTOVER_GRACE_MS = 2000;

/** How a session ended, as recorded. */
export interface SessionOutcome {
  status: SessionStatus;
  exit: ExitStatus | null;
  error?: string;
  park?: ParkOutcome;
}

/** What recording an end uses of the supervisor's options. */
export type SessionEndDeps = Pick<
  SupervisorOptions,
  "sessions" | "events" | "clock" | "log" | "publish" | "finalize"
>;

/**
 * Nothing of a session outlives it: leftovers in its group (a grandchild that
 * ignored SIGTERM, a background job) and its marked processes are ended with it.
 */
export function sweepLeftovers(live: LiveSession, reaper: MarkedReaper): void {
  signalStart(live, reaper, live.killRequested ? "SIGKILL" : "SIGTERM");
  if (!live.killRequested) {
    // A leftover that ignores SIGTERM gets SIGKILL after the grace; a resume started
    // meanwhile is another start of the session and is spared (issue 38 item 5).
    const { pgid } = live.process;
    const { generation, row: { id: sessionId } } = live;
    setTimeout(() => {
      killProcessGroup(pgid, "SIGKILL");
      reaper.signal(sessionId, generation, "SIGKILL");
    }, LEFTOVER_GRACE_MS);
  }
}

/**
 * How a start whose process exited with `exit` ended: killed when asked,
 * parked when its conversation's turn failed on a limit (D33), completed on a
 * clean exit with no failed turn, failed otherwise.
 */
export async function endOutcome(
  live: LiveSession,
  exit: ExitStatus,
  park: SupervisorOptions["park"],
): Promise<SessionOutcome> {
  const conversation = live.conversation;
  const failure = conversation ? await conversation.finish() : null;
  const parked = live.killRequested ? null : conversation?.parked ?? null;
  const status: SessionStatus = live.killRequested
    ? "killed"
    : parked !== null
    ? "parked"
    : exit.code === 0 && exit.signal === null && failure === null
    ? "completed"
    : "failed";
  return {
    status,
    exit,
    ...(failure === null ? {} : { error: failure }),
    ...(parked === null ? {} : { park: park(live.row, parked) }),
  };
}

/**
 * Records how a session ended: first a durable `session.ended` event, then
 * the row, so a reader that sees the row ended already finds the event.
 */
export async function recordSessionEnd(
  deps: SessionEndDeps,
  row: SessionRow,
  outcome: SessionOutcome,
): Promise<SessionRow> {
  const { sessions, events, clock } = deps;
  const final = { ...await deps.finalize?.(row), ...outcome.park?.fields };
  if (outcome.park) await events.append(row.id, "session.parked", outcome.park.event);
  const exitCode = outcome.exit?.code ?? null;
  const signal = outcome.exit?.signal ?? null;
  const payload: Record<string, unknown> = { status: outcome.status, exitCode, signal };
  if (outcome.error !== undefined) payload.error = redactText(outcome.error);
  await events.append(row.id, "session.ended", payload);
  events.close(row.id);
  const now = isoTime(clock.now());
  const fields = {
    ...final,
    status: outcome.status,
    activity: null, // Not live any more, whatever it was doing (D16).
    exit_code: exitCode,
    signal,
    ended_at: now,
    updated_at: now,
  };
  sessions.update(row.id, fields);
  events.notify(row.id);
  deps.publish("session.updated", {
    sessionId: row.id,
    status: outcome.status,
    activity: null,
  });
  if (outcome.park) {
    deps.publish("session.parked", { sessionId: row.id, ...outcome.park.event });
  }
  deps.log.info("Session ended", {
    sessionId: row.id,
    status: outcome.status,
    exitCode,
    signal,
  });
  return sessions.get(row.id) ?? { ...row, ...fields };
}
