/**
 * A turn for an ended conversation's agent (D34's send-back): the session is
 * resumed natively (D26) unless live, gets `turn` as its input, and is closed
 * once the agent is idle (it stays resumable). Waits at most `timeoutMs` for
 * the end, then kills the session.
 */
import { type Clock, settlesWithin } from "../clock.ts";
import { sessionNotFound } from "../errors.ts";
import type { SessionsStore } from "../store/sessions_store.ts";
import type { Supervisor } from "./supervisor.ts";

/**
 * What a send-back needs: the supervisor's resume (which runs resume's launch
 * checks, issue 33 item 6) and input.
 */
export interface SendBackDeps {
  supervisor: Pick<Supervisor, "resume" | "input" | "close" | "kill" | "ended">;
  sessions: SessionsStore;
  clock: Clock;
}

/** Resumes the session with `turn` and resolves once it ended (see the module comment). */
export async function sendTurnAndClose(
  deps: SendBackDeps,
  sessionId: string,
  options: { turn: string; timeoutMs: number },
): Promise<void> {
  const row = deps.sessions.get(sessionId);
  if (!row) throw sessionNotFound(sessionId);
  let ended = deps.supervisor.ended(sessionId);
  if (ended === null) ended = (await deps.supervisor.resume(sessionId)).ended;
  await deps.supervisor.input(sessionId, options.turn);
  deps.supervisor.close(sessionId);
  if (!await settlesWithin(deps.clock, ended, options.timeoutMs)) {
    try {
      deps.supervisor.kill(sessionId, "SIGTERM");
    } catch { /* ended meanwhile */ }
    await ended;
  }
}
