/**
 * Delivery off the daemon's path (D31): each channel has its own bounded
 * queue and one sender at a time, so a hung webhook delays only its own
 * channel and nothing an agent or a receiver does can block the daemon.
 * Each try is cut after `TRY_TIMEOUT_MS` (5 s), a failed one is tried again
 * after a backoff, three tries in all; every outcome (sent, failed, dropped
 * when the queue is full) goes to the notification log. Time is the
 * injected clock's.
 */
import type { Clock } from "../clock.ts";
import type { Logger } from "../log.ts";
import type { ChannelSender } from "./channel_sender.ts";
import type { Notification } from "./content.ts";
import type { ChannelConfig } from "./notification_config.ts";
import type { NotificationLog, NotificationLogEntry } from "./notification_log.ts";

/** A try gets this long (D31: 5 s). */
export const TRY_TIMEOUT_MS = 5_000;
/** Waits before the second and the third try (D31: 3 tries with backoff). */
export const RETRY_DELAYS_MS = [1_000, 4_000] as const;
/** Notifications waiting per channel; past it the oldest is dropped (and logged). */
export const MAX_QUEUED_PER_CHANNEL = 50;

/** A configured channel and how it is named. */
export interface LabelledChannel {
  channel: ChannelConfig;
  label: string;
}

interface Lane {
  queue: Notification[];
  running: boolean;
}

export class Delivery {
  readonly #clock: Clock;
  readonly #send: ChannelSender;
  readonly #log: NotificationLog;
  readonly #logger: Logger;
  readonly #lanes = new Map<string, Lane>();
  readonly #stopping = new AbortController();
  readonly #working = new Set<Promise<void>>();

  constructor(
    options: { clock: Clock; send: ChannelSender; log: NotificationLog; logger: Logger },
  ) {
    this.#clock = options.clock;
    this.#send = options.send;
    this.#log = options.log;
    this.#logger = options.logger;
  }

  /** Queues `notification` for `target`; returns at once. */
  enqueue(target: LabelledChannel, notification: Notification): void {
    if (this.#stopping.signal.aborted) return;
    const lane = this.#lanes.get(target.label) ?? { queue: [], running: false };
    this.#lanes.set(target.label, lane);
    lane.queue.push(notification);
    if (lane.queue.length > MAX_QUEUED_PER_CHANNEL) {
      const dropped = lane.queue.shift()!;
      this.#record(target, dropped, "dropped", "the channel's queue was full", 0);
    }
    if (lane.running) return;
    lane.running = true;
    const work = this.#drain(target, lane).finally(() => {
      lane.running = false;
      this.#working.delete(work);
    });
    this.#working.add(work);
  }

  /** Sends `notification` to `target` now, with the same tries, and says how it went. */
  deliver(target: LabelledChannel, notification: Notification): Promise<NotificationLogEntry> {
    return this.#tryAll(target, notification);
  }

  /** Ends every wait and try; what is still queued is not sent. */
  async stop(): Promise<void> {
    this.#stopping.abort();
    await Promise.all(this.#working);
  }

  async #drain(target: LabelledChannel, lane: Lane): Promise<void> {
    for (;;) {
      const next = lane.queue.shift();
      if (next === undefined || this.#stopping.signal.aborted) return;
      await this.#tryAll(target, next);
    }
  }

  async #tryAll(
    target: LabelledChannel,
    notification: Notification,
  ): Promise<NotificationLogEntry> {
    let error = "";
    for (let attempt = 1; attempt <= RETRY_DELAYS_MS.length + 1; attempt++) {
      if (attempt > 1) await this.#clock.sleep(RETRY_DELAYS_MS[attempt - 2], this.#stopping.signal);
      if (this.#stopping.signal.aborted) {
        return this.#record(target, notification, "failed", "the daemon stopped", attempt - 1);
      }
      try {
        await this.#tryOnce(target.channel, notification);
        return this.#record(target, notification, "sent", null, attempt);
      } catch (failure) {
        error = (failure as Error).message;
      }
    }
    return this.#record(target, notification, "failed", error, RETRY_DELAYS_MS.length + 1);
  }

  async #tryOnce(channel: ChannelConfig, notification: Notification): Promise<void> {
    const abort = new AbortController();
    const stop = () => abort.abort();
    this.#stopping.signal.addEventListener("abort", stop, { once: true });
    const timer = new AbortController();
    this.#clock.sleep(TRY_TIMEOUT_MS, timer.signal).then(() => {
      if (!timer.signal.aborted) abort.abort();
    });
    // A sender that ignored the abort still cannot hold the lane.
    const aborted = new Promise<never>((_, reject) =>
      abort.signal.addEventListener("abort", () => reject(new Error("timed out")), { once: true })
    );
    try {
      await Promise.race([this.#send(channel, notification, abort.signal), aborted]);
    } finally {
      timer.abort();
      this.#stopping.signal.removeEventListener("abort", stop);
    }
  }

  #record(
    target: LabelledChannel,
    notification: Notification,
    status: NotificationLogEntry["status"],
    error: string | null,
    attempts: number,
  ): NotificationLogEntry {
    const fields = { channel: target.label, event: notification.event, status, error, attempts };
    if (status === "sent") this.#logger.info("Notification sent", fields);
    else this.#logger.warn(`Notification ${status}`, fields);
    return this.#log.add(this.#clock.now(), {
      event: notification.event,
      sessionId: notification.sessionId,
      channel: target.label,
      status,
      error,
      attempts,
      title: notification.title,
    });
  }
}
