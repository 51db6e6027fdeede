/**
 * Live-only session events (D29): what a session's stream readers see as it
 * happens but the log never stores, such as `agent.message.delta`. A
 * publish reaches the streams open at that moment and nothing else: with no
 * reader, nothing is kept. Each event carries the seq of the last event
 * appended before it (`afterSeq`), so a stream sends it right after that
 * durable event and before any later one.
 */
import { type Clock, isoTime } from "../clock.ts";

/** A live event as streamed: an event record without `seq` and `id` (D29). */
export interface LiveEventRecord {
  session_id: string;
  kind: string;
  payload_json: string;
  created_at: string;
}

/** A live event queued for one reader. */
export interface QueuedLiveEvent {
  record: LiveEventRecord;
  /** The session's last appended seq when it was published. */
  afterSeq: number;
}

/** Events a reader may have queued; past this, its queue is dropped (the durable record stays). */
const MAX_QUEUED_EVENTS = 1024;
/** Payload bytes a reader may have queued. */
const MAX_QUEUED_CHARS = 1024 * 1024;

/** One stream's subscription to a session's live events. */
export interface LiveSubscription {
  /** Takes the queued events published after seq `seq` or before, in order. */
  takeUpTo(seq: number): LiveEventRecord[];
  /** Resolves at the next publish to this subscription, or when `signal` aborts. */
  wait(signal: AbortSignal): Promise<void>;
  /** Stops receiving; the queue is released. */
  close(): void;
}

/** The live events of every session, fanned out to their open streams. */
export class LiveEvents {
  readonly #clock: Clock;
  readonly #subscribers = new Map<string, Set<Subscriber>>();

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** Streams subscribed now, for tests and health. */
  get subscribers(): number {
    let count = 0;
    for (const set of this.#subscribers.values()) count += set.size;
    return count;
  }

  /** Sends an event to the session's open streams; `afterSeq` is the session's last appended seq. */
  publish(
    sessionId: string,
    { kind, payload, afterSeq }: { kind: string; payload: unknown; afterSeq: number },
  ): void {
    const subscribers = this.#subscribers.get(sessionId);
    if (subscribers === undefined) return;
    const record: LiveEventRecord = {
      session_id: sessionId,
      kind,
      payload_json: JSON.stringify(payload),
      created_at: isoTime(this.#clock.now()),
    };
    for (const subscriber of subscribers) subscriber.push({ record, afterSeq });
  }

  /** Subscribes a stream to a session's live events, of `kinds` only when given. */
  subscribe(sessionId: string, kinds?: readonly string[]): LiveSubscription {
    const subscriber = new Subscriber(kinds === undefined ? null : new Set(kinds));
    let set = this.#subscribers.get(sessionId);
    if (set === undefined) this.#subscribers.set(sessionId, set = new Set());
    set.add(subscriber);
    return {
      takeUpTo: (seq) => subscriber.takeUpTo(seq),
      wait: (signal) => subscriber.wait(signal),
      close: () => {
        subscriber.clear();
        const current = this.#subscribers.get(sessionId);
        current?.delete(subscriber);
        if (current?.size === 0) this.#subscribers.delete(sessionId);
      },
    };
  }
}

class Subscriber {
  readonly #kinds: ReadonlySet<string> | null;
  #queue: QueuedLiveEvent[] = [];
  #queuedChars = 0;
  #wake: (() => void) | null = null;

  constructor(kinds: ReadonlySet<string> | null) {
    this.#kinds = kinds;
  }

  push(event: QueuedLiveEvent): void {
    if (this.#kinds !== null && !this.#kinds.has(event.record.kind)) return;
    this.#queue.push(event);
    this.#queuedChars += event.record.payload_json.length;
    if (this.#queue.length > MAX_QUEUED_EVENTS || this.#queuedChars > MAX_QUEUED_CHARS) {
      // A reader this far behind loses the live pieces; the final message is in the log.
      this.clear();
    }
    this.#wake?.();
  }

  takeUpTo(seq: number): LiveEventRecord[] {
    let count = 0;
    while (count < this.#queue.length && this.#queue[count].afterSeq <= seq) count++;
    if (count === 0) return [];
    const taken = this.#queue.splice(0, count);
    for (const event of taken) this.#queuedChars -= event.record.payload_json.length;
    return taken.map((event) => event.record);
  }

  wait(signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        signal.removeEventListener("abort", done);
        if (this.#wake === done) this.#wake = null;
        resolve();
      };
      this.#wake = done;
      signal.addEventListener("abort", done, { once: true });
    });
  }

  clear(): void {
    this.#queue = [];
    this.#queuedChars = 0;
  }
}
