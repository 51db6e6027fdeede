/**
 * The daemon-wide feed of `GET /stream` (D19): small notices of what changed
 * (sessions, approvals, automations, runs, read results, lands: D34), each a few ids, without replay —
 * clients resync with the list routes when they connect. Each subscriber has
 * a bounded queue: one that stops reading and falls `MAX_QUEUED` notices
 * behind gets `event: overflow` and is closed, so it reconnects and resyncs,
 * and memory stays bounded.
 */
import type { LandEventKind } from "../worktrees/land_types.ts";
import { KEEP_ALIVE_MS } from "./session_stream.ts";

/** The kinds of notices (D19). */
export type FeedKind =
  | "session.created"
  | "session.updated"
  | "session.parked"
  | "session.progress"
  | "approval.requested"
  | "approval.resolved"
  | "automations.changed"
  | "run.started"
  | "run.ended"
  | "inbox.read"
  | LandEventKind;

/** Notices a subscriber may fall behind before it is closed. */
export const MAX_QUEUED = 1000;

const encoder = new TextEncoder();

interface Subscriber {
  queue: string[];
  overflowed: boolean;
  wake: (() => void) | null;
}

/** Fans notices out to the open `GET /stream` readers. */
export class DaemonFeed {
  readonly #subscribers = new Set<Subscriber>();
  readonly #listeners: Array<(kind: FeedKind, data: Record<string, unknown>) => void> = [];
  readonly #keepAliveMs: number;

  constructor({ keepAliveMs = KEEP_ALIVE_MS }: { keepAliveMs?: number } = {}) {
    this.#keepAliveMs = keepAliveMs;
  }

  /** Open subscribers (for tests and health). */
  get size(): number {
    return this.#subscribers.size;
  }

  /**
   * Also hands every notice to `listener`, in this process (the notifier,
   * D31): it runs inside `publish`, so it must return at once and not throw.
   */
  listen(listener: (kind: FeedKind, data: Record<string, unknown>) => void): void {
    this.#listeners.push(listener);
  }

  /** Sends a notice to every subscriber; costs nothing when nobody listens. */
  publish(kind: FeedKind, data: Record<string, unknown>): void {
    for (const listener of this.#listeners) listener(kind, data);
    if (this.#subscribers.size === 0) return;
    const frame = `event: ${kind}\ndata: ${JSON.stringify(data)}\n\n`;
    for (const subscriber of this.#subscribers) {
      if (subscriber.overflowed) continue;
      if (subscriber.queue.length >= MAX_QUEUED) {
        subscriber.overflowed = true;
        subscriber.queue = [];
      } else {
        subscriber.queue.push(frame);
      }
      subscriber.wake?.();
    }
  }

  /** A new subscriber's SSE body; `onClose` runs once however it ends. */
  subscribe({ stop, onClose }: { stop: AbortSignal; onClose: () => void }): ReadableStream<
    Uint8Array
  > {
    const subscriber: Subscriber = { queue: [], overflowed: false, wake: null };
    this.#subscribers.add(subscriber);
    let closed = false;
    const close = () => {
      if (closed) return;
      closed = true;
      this.#subscribers.delete(subscriber);
      stop.removeEventListener("abort", wakeUp);
      onClose();
    };
    const wakeUp = () => subscriber.wake?.();
    stop.addEventListener("abort", wakeUp, { once: true });
    return new ReadableStream<Uint8Array>({
      start: (controller) => controller.enqueue(encoder.encode(": connected\n\n")),
      pull: async (controller) => {
        if (subscriber.queue.length === 0 && !subscriber.overflowed && !stop.aborted) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(done, this.#keepAliveMs);
            subscriber.wake = done;
            function done() {
              clearTimeout(timer);
              subscriber.wake = null;
              resolve();
            }
          });
        }
        if (stop.aborted || subscriber.overflowed) {
          if (subscriber.overflowed) {
            controller.enqueue(encoder.encode(`event: overflow\ndata: {}\n\n`));
          }
          close();
          controller.close();
          return;
        }
        const frames = subscriber.queue.splice(0);
        controller.enqueue(
          encoder.encode(frames.length > 0 ? frames.join("") : ": keep-alive\n\n"),
        );
      },
      cancel: () => {
        subscriber.wake?.();
        close();
      },
    }, { highWaterMark: 0 });
  }
}
