/**
 * The notifier (D31): fed by the same internal feed as `GET /stream`, it
 * turns what needs the owner into notifications (triggers.ts), coalesces
 * them (coalescer.ts), words them (content.ts) and hands them to delivery,
 * which sends them off the daemon's path. Its one timer sleeps until the next
 * thing may come due (an approval's `afterSeconds`, a stall, a coalescing
 * window), on the injected clock.
 */
import type { Clock } from "../clock.ts";
import type { Logger } from "../log.ts";
import { Coalescer, type Outgoing } from "./coalescer.ts";
import { describe, type Notification, type NotifyTrigger, summarize } from "./content.ts";
import type { Delivery, LabelledChannel } from "./delivery.ts";
import {
  channelLabel,
  channelWants,
  type NotificationEvent,
  type NotificationsConfig,
} from "./notification_config.ts";
import type { NotificationLogEntry } from "./notification_log.ts";
import { NotifyTriggers, type TriggerSources } from "./triggers.ts";
import { isoTime } from "../clock.ts";

/** With nothing to wait for, the timer still wakes this often (it costs nothing). */
const IDLE_WAKE_MS = 3_600_000;

/** What the notifier needs of the daemon. */
export interface NotifierOptions {
  clock: Clock;
  config: NotificationsConfig;
  /** The web face's origin notifications link to (`web.origins[0]`), or null. */
  origin: string | null;
  /** A working session quiet this long is stalled (config `ui.stalledAfterSeconds`). */
  stalledAfterMs: number;
  sources: TriggerSources;
  delivery: Delivery;
  logger: Logger;
}

export class Notifier {
  readonly #options: NotifierOptions;
  readonly #channels: LabelledChannel[];
  readonly #triggers: NotifyTriggers;
  readonly #coalescer = new Coalescer();
  readonly #stopping = new AbortController();
  #wake = new AbortController();
  #sleepingUntil = Infinity;
  #running: Promise<void> | null = null;

  constructor(options: NotifierOptions) {
    this.#options = options;
    this.#channels = options.config.channels.map((channel, index) => ({
      channel,
      label: channelLabel(channel, index),
    }));
    this.#triggers = new NotifyTriggers(options.sources, {
      afterMs: () => options.config.afterSeconds * 1000,
      stalledAfterMs: () => options.stalledAfterMs,
    });
  }

  /** The configured channels by label (`svc notifications test --channel`). */
  get channels(): readonly LabelledChannel[] {
    return this.#channels;
  }

  /** A feed notice (D19); handled after the publisher returns, never throws into it. */
  notice(kind: string, data: Record<string, unknown>): void {
    if (this.#channels.length === 0 || this.#stopping.signal.aborted) return;
    queueMicrotask(() => {
      try {
        const now = this.#options.clock.now();
        this.#emit(this.#triggers.notice(kind, data, now), now);
        this.#rewake();
      } catch (error) {
        this.#options.logger.error("Notifying failed", { kind, error });
      }
    });
  }

  /** Starts the timer of what comes due later. */
  start(): void {
    if (this.#channels.length === 0) return;
    this.#running ??= this.#run();
  }

  /** A test notification to `channels` (all when empty), sent now; how each went. */
  test(channels: readonly LabelledChannel[]): Promise<NotificationLogEntry[]> {
    const notification: Notification = {
      event: "test",
      title: "svc test notification",
      body: "svc can reach you on this channel",
      sessionId: null,
      harness: null,
      project: null,
      url: this.#options.origin === null ? null : `${this.#options.origin}/#/attention`,
      at: isoTime(this.#options.clock.now()),
    };
    return Promise.all(
      (channels.length === 0 ? this.#channels : channels).map((target) =>
        this.#options.delivery.deliver(target, notification)
      ),
    );
  }

  /** Stops the timer and delivery. */
  async stop(): Promise<void> {
    this.#stopping.abort();
    await this.#running;
    await this.#options.delivery.stop();
  }

  async #run(): Promise<void> {
    const { clock } = this.#options;
    while (!this.#stopping.signal.aborted) {
      const now = clock.now();
      try {
        this.#emit(this.#triggers.due(now), now);
        this.#send(this.#coalescer.due(now));
      } catch (error) {
        this.#options.logger.error("Notifying failed", { error });
      }
      const next = Math.min(
        this.#triggers.nextDueAt() ?? Infinity,
        this.#coalescer.nextDueAt() ?? Infinity,
        now + IDLE_WAKE_MS,
      );
      this.#wake = new AbortController();
      this.#sleepingUntil = next;
      await clock.sleep(next - now, AbortSignal.any([this.#wake.signal, this.#stopping.signal]));
    }
  }

  /** Wakes the timer when something now comes due before it would wake. */
  #rewake(): void {
    const next = Math.min(
      this.#triggers.nextDueAt() ?? Infinity,
      this.#coalescer.nextDueAt() ?? Infinity,
    );
    if (next < this.#sleepingUntil) this.#wake.abort();
  }

  #emit(triggers: NotifyTrigger[], now: number): void {
    const wanted = triggers.filter((trigger) => this.#wanted(trigger.event));
    if (wanted.length > 0) this.#send(this.#coalescer.offer(wanted, now));
  }

  #wanted(event: NotificationEvent): boolean {
    return this.#channels.some(({ channel }) => channelWants(channel, event));
  }

  #send(outgoing: Outgoing[]): void {
    const { origin, delivery } = this.#options;
    for (const item of outgoing) {
      const notification = item.kind === "single"
        ? describe(item.trigger, origin)
        : summarize(item.triggers, origin);
      for (const target of this.#channels) {
        if (channelWants(target.channel, notification.event as NotificationEvent)) {
          delivery.enqueue(target, notification);
        }
      }
    }
  }
}
