/**
 * Coalescing (D31), pure: per event, the first notification goes out at once
 * and opens a 60 s window; what comes of that event inside the window is held
 * and goes out when it closes, as itself when it is one, else as one summary
 * ("12 approvals waiting in 7 sessions"), which opens the next window. So
 * every session and reason is notified at most once a minute, and a burst is
 * one notification, whatever the agents do.
 */
import type { NotificationEvent } from "./notification_config.ts";
import type { NotifyTrigger } from "./content.ts";

/** A window's length (D31). */
export const COALESCE_MS = 60_000;

/** What to send: one trigger as itself, or several as a summary. */
export type Outgoing = { kind: "single"; trigger: NotifyTrigger } | {
  kind: "summary";
  triggers: NotifyTrigger[];
};

/** Triggers held in one window at most; more are counted in the summary only by the first ones. */
const MAX_HELD = 1000;

interface Window {
  endsAt: number;
  held: NotifyTrigger[];
}

/** The coalescing state of every event. */
export class Coalescer {
  readonly #windows = new Map<NotificationEvent, Window>();

  /** Triggers that came due together at `now`: what to send at once (the rest is held). */
  offer(triggers: readonly NotifyTrigger[], now: number): Outgoing[] {
    const byEvent = new Map<NotificationEvent, NotifyTrigger[]>();
    for (const trigger of triggers) {
      byEvent.set(trigger.event, [...byEvent.get(trigger.event) ?? [], trigger]);
    }
    const out: Outgoing[] = [];
    for (const [event, group] of byEvent) {
      const window = this.#windows.get(event);
      if (window !== undefined && window.endsAt > now) {
        window.held.push(...group.slice(0, MAX_HELD - window.held.length));
        continue;
      }
      out.push(outgoing(group));
      this.#windows.set(event, { endsAt: now + COALESCE_MS, held: [] });
    }
    return out;
  }

  /** Windows that closed by `now`: their held triggers, each window's as one outgoing. */
  due(now: number): Outgoing[] {
    const out: Outgoing[] = [];
    for (const [event, window] of this.#windows) {
      if (window.endsAt > now) continue;
      if (window.held.length === 0) {
        this.#windows.delete(event);
        continue;
      }
      out.push(outgoing(window.held));
      this.#windows.set(event, { endsAt: now + COALESCE_MS, held: [] });
    }
    return out;
  }

  /** When the next window with held triggers closes; null when none holds any. */
  nextDueAt(): number | null {
    let next: number | null = null;
    for (const window of this.#windows.values()) {
      if (window.held.length > 0 && (next === null || window.endsAt < next)) next = window.endsAt;
    }
    return next;
  }
}

function outgoing(triggers: NotifyTrigger[]): Outgoing {
  return triggers.length === 1
    ? { kind: "single", trigger: triggers[0] }
    : { kind: "summary", triggers };
}
