/**
 * The recent deliveries of notifications (D31: `svc notifications log`,
 * `GET /api/v1/notifications`): time, event, session, channel, status and
 * error, newest first, in a bounded ring kept in memory (a restart starts it
 * empty). Channels are named by their label, never by URL or command.
 */
import { isoTime } from "../clock.ts";

/** One delivery (or test) of one notification to one channel. */
export interface NotificationLogEntry {
  at: string;
  event: string;
  sessionId: string | null;
  channel: string;
  status: "sent" | "failed" | "dropped";
  /** Why it failed or was dropped; null when sent. */
  error: string | null;
  /** Tries made (0 when dropped before any). */
  attempts: number;
  title: string;
}

/** A channel's last outcome, for `svc doctor`. */
export interface ChannelHealth {
  channel: string;
  status: NotificationLogEntry["status"];
  at: string;
  error: string | null;
}

/** Entries kept. */
export const MAX_LOG_ENTRIES = 500;

export class NotificationLog {
  readonly #entries: NotificationLogEntry[] = [];
  readonly #lastByChannel = new Map<string, ChannelHealth>();

  /** Records one outcome at `atMs`. */
  add(atMs: number, entry: Omit<NotificationLogEntry, "at">): NotificationLogEntry {
    const recorded = { at: isoTime(atMs), ...entry };
    this.#entries.push(recorded);
    if (this.#entries.length > MAX_LOG_ENTRIES) this.#entries.shift();
    this.#lastByChannel.set(entry.channel, {
      channel: entry.channel,
      status: entry.status,
      at: recorded.at,
      error: entry.error,
    });
    return recorded;
  }

  /** The newest `limit` entries, newest first. */
  list(limit = MAX_LOG_ENTRIES): NotificationLogEntry[] {
    return this.#entries.slice(-limit).reverse();
  }

  /** Each channel's last outcome, in the order they were first used. */
  channels(): ChannelHealth[] {
    return [...this.#lastByChannel.values()];
  }
}
