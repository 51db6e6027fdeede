/**
 * What in the daemon-wide feed (D19) needs the owner (D31): a permission
 * request still unanswered `afterSeconds` after it was asked, a turn that
 * ended while no face had its session in focus, a failed session, a working
 * session with no event for `ui.stalledAfterSeconds`, a routine's result.
 * Pure apart from the lookups it is given: time comes in as `now`, and what
 * is due later is read with `due(now)` at `nextDueAt()`.
 */
import type { Activity } from "../agents/conversation.ts";
import type { NotifyTrigger } from "./content.ts";

/** What the triggers read of a session. */
export interface TriggerSession {
  harness: string;
  title: string;
  project_root: string;
  origin: "api" | "automation";
}

/** Lookups into the daemon: sessions, pending approvals, results, focus. */
export interface TriggerSources {
  session(sessionId: string): TriggerSession | null;
  /** The request if still pending: its tool and what it would run. */
  pendingApproval(sessionId: string, requestId: string): { tool: string; detail: string } | null;
  /** The session's last result text (its final assistant message), as committed. */
  finalText(sessionId: string): string | null;
  /** The seq of the session's last event appended (maybe not yet committed). */
  appendedSeq(sessionId: string): number | null;
  /** Whether a face (svc ui, a web page) has the session in focus now. */
  inFocus(sessionId: string): boolean;
}

interface AskedApproval {
  sessionId: string;
  requestId: string;
  dueAt: number;
}

interface LiveSession {
  activity: Activity | null;
  lastEventAt: number;
  stalledNotified: boolean;
  /**
   * A turn ended unwatched: notified once its last event (the result, appended
   * right after the activity changed) is committed, which a progress notice says.
   */
  turnEndedAtSeq: number | null;
}

/** Requests and sessions tracked at most (the broker and maxLiveSessions bound them first). */
const MAX_TRACKED = 10_000;

type Data = Record<string, unknown>;

export class NotifyTriggers {
  readonly #sources: TriggerSources;
  readonly #afterMs: () => number;
  readonly #stalledAfterMs: () => number;
  readonly #asked = new Map<string, AskedApproval>();
  readonly #live = new Map<string, LiveSession>();

  constructor(
    sources: TriggerSources,
    options: { afterMs: () => number; stalledAfterMs: () => number },
  ) {
    this.#sources = sources;
    this.#afterMs = options.afterMs;
    this.#stalledAfterMs = options.stalledAfterMs;
  }

  /** One feed notice at `now`: the triggers it makes at once. */
  notice(kind: string, data: Data, now: number): NotifyTrigger[] {
    const sessionId = typeof data.sessionId === "string" ? data.sessionId : null;
    switch (kind) {
      case "approval.requested":
        if (sessionId !== null && this.#asked.size < MAX_TRACKED) {
          const requestId = String(data.requestId);
          const key = `${sessionId}\0${requestId}`;
          this.#asked.set(key, { sessionId, requestId, dueAt: now + this.#afterMs() });
        }
        return [];
      case "approval.resolved":
        this.#asked.delete(`${sessionId}\0${String(data.requestId)}`);
        return [];
      case "session.created":
      case "session.updated":
        return sessionId === null ? [] : this.#updated(sessionId, data, now);
      case "session.progress": {
        const live = sessionId === null ? undefined : this.#live.get(sessionId);
        if (live === undefined) return [];
        live.lastEventAt = now;
        live.stalledNotified = false;
        if (live.turnEndedAtSeq === null || Number(data.lastSeq) < live.turnEndedAtSeq) return [];
        live.turnEndedAtSeq = null;
        return this.#turnFinished(sessionId!, now);
      }
      case "run.ended":
        return [this.#routineResult(sessionId, data, now)];
      case "session.parked":
        return sessionId === null ? [] : this.#parked(sessionId, data, now);
      case "land.landed":
      case "land.failed":
        return sessionId === null ? [] : this.#landFinished(sessionId, kind, data, now);
      default:
        return [];
    }
  }

  /** What came due by `now`: approvals still unanswered, sessions gone quiet. */
  due(now: number): NotifyTrigger[] {
    const triggers: NotifyTrigger[] = [];
    for (const [key, asked] of this.#asked) {
      if (asked.dueAt > now) continue;
      this.#asked.delete(key);
      const pending = this.#sources.pendingApproval(asked.sessionId, asked.requestId);
      if (pending === null) continue;
      const trigger = this.#trigger("approval.waiting", asked.sessionId, now, {
        reason: `needs approval: ${pending.tool}`,
        detail: pending.detail,
      });
      if (trigger !== null) triggers.push(trigger);
    }
    const stalledAfterMs = this.#stalledAfterMs();
    for (const [sessionId, live] of this.#live) {
      if (live.activity !== "working" || live.stalledNotified) continue;
      if (now - live.lastEventAt < stalledAfterMs) continue;
      live.stalledNotified = true;
      const trigger = this.#trigger("session.stalled", sessionId, now, {
        reason: `is stalled: no event for ${Math.round((now - live.lastEventAt) / 1000)} s`,
        detail: "Working, but silent: look at it, interrupt it or kill it",
      });
      if (trigger !== null) triggers.push(trigger);
    }
    return triggers;
  }

  /** The next instant something may come due; null when nothing is waited for. */
  nextDueAt(): number | null {
    let next: number | null = null;
    const earlier = (at: number) => next === null || at < next;
    for (const asked of this.#asked.values()) if (earlier(asked.dueAt)) next = asked.dueAt;
    const stalledAfterMs = this.#stalledAfterMs();
    for (const live of this.#live.values()) {
      if (live.activity !== "working" || live.stalledNotified) continue;
      if (earlier(live.lastEventAt + stalledAfterMs)) next = live.lastEventAt + stalledAfterMs;
    }
    return next;
  }

  #updated(sessionId: string, data: Data, now: number): NotifyTrigger[] {
    const before = this.#live.get(sessionId);
    const activity = (data.activity ?? null) as Activity | null;
    if (data.status !== "running") {
      this.#live.delete(sessionId);
      for (const [key, asked] of this.#asked) {
        if (asked.sessionId === sessionId) this.#asked.delete(key);
      }
      if (data.status === "failed") {
        const trigger = this.#trigger("session.failed", sessionId, now, {
          reason: "failed",
          detail: this.#sources.finalText(sessionId) ?? "The session ended with a failure",
        });
        return trigger === null ? [] : [trigger];
      }
      return data.status === "completed" && wasBusy(before) && this.#unwatched(sessionId)
        ? this.#turnFinished(sessionId, now)
        : [];
    }
    if (before === undefined && this.#live.size >= MAX_TRACKED) return [];
    const turnEnded = activity === "idle" && wasBusy(before) && this.#unwatched(sessionId);
    this.#live.set(sessionId, {
      activity,
      lastEventAt: now,
      stalledNotified: false,
      turnEndedAtSeq: turnEnded
        ? this.#sources.appendedSeq(sessionId) ?? 0
        : before?.turnEndedAtSeq ?? null,
    });
    return [];
  }

  /** No face shows it, and it is no routine's run (reported as routine.result). */
  #unwatched(sessionId: string): boolean {
    return !this.#sources.inFocus(sessionId) &&
      this.#sources.session(sessionId)?.origin !== "automation";
  }

  /** D33: parked on a limit, until when, and whether it resumes by itself. */
  #parked(sessionId: string, data: Data, now: number): NotifyTrigger[] {
    const reason = data.reason === "usage_limit" ? "usage limit" : "rate limit";
    const resumeAt = (data.autoResume as { at?: string } | null)?.at;
    const trigger = this.#trigger("session.parked", sessionId, now, {
      reason: `is parked on a ${reason} until ${String(data.parkedUntil)}`,
      detail: resumeAt
        ? `It resumes by itself at ${resumeAt}`
        : "It waits for you: svc sessions unpark resumes it",
    });
    return trigger === null ? [] : [trigger];
  }

  /** D34: a land (direct or queued) moved the checkout, or did not and why. */
  #landFinished(sessionId: string, kind: string, data: Data, now: number): NotifyTrigger[] {
    const files = Array.isArray(data.files) ? data.files.map(String) : [];
    const trigger = this.#trigger(
      "land.finished",
      sessionId,
      now,
      kind === "land.landed"
        ? {
          reason: "landed its work",
          detail: `Landed as ${String(data.commit ?? "").slice(0, 12)}`,
        }
        : {
          reason: `could not land its work: ${String(data.code)}`,
          detail: files.length > 0 ? files.join("\n") : "svc land --status says more",
        },
    );
    return trigger === null ? [] : [trigger];
  }

  #turnFinished(sessionId: string, now: number): NotifyTrigger[] {
    const trigger = this.#trigger("turn.finished", sessionId, now, {
      reason: "finished its turn",
      detail: this.#sources.finalText(sessionId) ?? "",
    });
    return trigger === null ? [] : [trigger];
  }

  #routineResult(sessionId: string | null, data: Data, now: number): NotifyTrigger {
    const reason = `ran routine "${String(data.routineId)}": ${String(data.status)}`;
    const detail = (sessionId === null ? null : this.#sources.finalText(sessionId)) ??
      `Run ${String(data.runId)} ${String(data.status)}`;
    return this.#trigger("routine.result", sessionId, now, { reason, detail }) ?? {
      event: "routine.result",
      sessionId: null,
      harness: null,
      sessionTitle: null,
      projectRoot: null,
      reason,
      detail,
      at: now,
    };
  }

  #trigger(
    event: NotifyTrigger["event"],
    sessionId: string | null,
    now: number,
    { reason, detail }: { reason: string; detail: string },
  ): NotifyTrigger | null {
    const session = sessionId === null ? null : this.#sources.session(sessionId);
    if (session === null) return null;
    return {
      event,
      sessionId,
      harness: session.harness,
      sessionTitle: session.title,
      projectRoot: session.project_root,
      reason,
      detail,
      at: now,
    };
  }
}

/** Whether the session was in a turn (working or asking) before this notice. */
function wasBusy(before: LiveSession | undefined): boolean {
  return before?.activity === "working" || before?.activity === "waiting_approval";
}
