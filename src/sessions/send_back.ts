/**
 * A turn for an ended conversation's agent (D34's send-back): the session is
 * resumed natively (D26) unless live, gets `turn` as its input, and is closed
 * once the agent is idle (it stays resumable). Waits at most `timeoutMs` for
 * the end, then kills the session.
 */
import { type Clock, settlesWithin } from "../clock.ts";
import { sessionNotFound } from "../errors.ts";
import { notResumable } from "../policy/resume.ts";
import type { SessionsStore } from "../store/sessions_store.ts";
import type { HarnessSpec } from "./harnesses.ts";
import { checkResume, type ResumeCheckDeps } from "./resume_checks.ts";
import type { Supervisor } from "./supervisor.ts";

/** What a send-back needs: the supervisor's resume and input, and the usable harnesses. */
export interface SendBackDeps {
  supervisor: Pick<Supervisor, "resume" | "input" | "close" | "kill" | "ended">;
  sessions: SessionsStore;
  /** The harness of that id when it is installed and enabled, else null. */
  harness: (id: string) => HarnessSpec | null;
  clock: Clock;
  /** What resume's launch checks read (issue 33 item 6): a send-back resumes only where a resume may. */
  resumeChecks: () => ResumeCheckDeps;
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
  if (ended === null) {
    const harness = deps.harness(row.harness);
    if (harness === null) throw notResumable(sessionId, "harness_unavailable");
    ended = (await deps.supervisor.resume(sessionId, {
      harness,
      check: (ended) => checkResume(ended, harness, deps.resumeChecks()),
    })).ended;
  }
  await deps.supervisor.input(sessionId, options.turn);
  deps.supervisor.close(sessionId);
  if (!await settlesWithin(deps.clock, ended, options.timeoutMs)) {
    try {
      deps.supervisor.kill(sessionId, "SIGTERM");
    } catch { /* ended meanwhile */ }
    await ended;
  }
}
