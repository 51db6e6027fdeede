import { type Clock, isoTime, systemClock } from "../clock.ts";
import { newId } from "../ids.ts";
import type { Logger } from "../log.ts";
import type { EventRecord, EventsStore, NewEvent } from "../store/events_store.ts";

interface Pending {
  readonly record: NewEvent;
  /** Null for output, which nobody waits on. */
  readonly resolve: ((record: EventRecord) => void) | null;
}

/** Bytes of payload queued before writers are asked to wait (backpressure). */
const HIGH_WATER_BYTES = 8 * 1024 * 1024;
/** Delay before retrying a failed commit (disk full, read-only store). */
const RETRY_MS = 1000;

/**
 * The append path of every session's log (D8). Seqs are assigned in memory
 * at append time, per session, from 1, gap-free and strictly increasing, so
 * racing stdout and stderr readers get a total order. Appends are grouped
 * into one SQLite transaction per flush; an append resolves, and waiting
 * readers wake, only after its commit: nothing is served before it is
 * durable. A failed commit keeps the batch and retries; meanwhile writers
 * are held by `whenWritable()`, so output is never dropped.
 */
export class EventLog {
  readonly #store: EventsStore;
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #nextSeq = new Map<string, number>();
  #queue: Pending[] = [];
  #queuedBytes = 0;
  #flushTimer: ReturnType<typeof setTimeout> | null = null;
  #writable: Array<() => void> = [];
  #failing = false;
  #stopped = false;
  readonly #waiters = new Map<string, Set<() => void>>();
  #waiterCount = 0;
  #changes = 0;

  readonly #committed: ((lastSeqs: ReadonlyMap<string, number>) => void) | null;

  /** `committed` hears, after each commit, the sessions it wrote and their last seq. */
  constructor(
    store: EventsStore,
    clock: Clock,
    log: Logger,
    options: { committed?: (lastSeqs: ReadonlyMap<string, number>) => void } = {},
  ) {
    this.#store = store;
    this.#clock = clock;
    this.#log = log;
    this.#committed = options.committed ?? null;
  }

  /** Readers waiting for a commit (long-polls and streams). */
  get waiting(): number {
    return this.#waiterCount;
  }

  /**
   * How many times readers were woken (`notify`): what a reader read of any session is
   * current while this is unchanged.
   */
  get changes(): number {
    return this.#changes;
  }

  /** True while commits fail (health reports it). */
  get degraded(): boolean {
    return this.#failing;
  }

  /** Starts sequencing a session whose last stored seq is `lastSeq`. */
  open(sessionId: string, lastSeq: number): void {
    this.#nextSeq.set(sessionId, lastSeq + 1);
  }

  /** Stops sequencing a session (after its last event). */
  close(sessionId: string): void {
    this.#nextSeq.delete(sessionId);
  }

  /**
   * The seq of the session's last appended event (stored or still queued), or
   * null when it is not open: where a live-only event falls in the log (D29).
   */
  lastAppendedSeq(sessionId: string): number | null {
    const next = this.#nextSeq.get(sessionId);
    return next === undefined ? null : next - 1;
  }

  /** Appends one event; resolves with its record once it is durable. */
  append(sessionId: string, kind: string, payload: unknown): Promise<EventRecord> {
    const record: EventRecord = {
      ...this.#next(sessionId),
      kind,
      payload_json: JSON.stringify(payload),
    };
    return new Promise((resolve) => this.#enqueue(record, resolve, record.payload_json.length));
  }

  /**
   * Appends an `output` event `{stream, data}` without a promise (a pump
   * never waits on one: `whenWritable()` is its backpressure); SQLite makes
   * its JSON as it stores it. `data` is text or its UTF-8 bytes (valid: the
   * caller checks). Readers see it once it is durable, as any event.
   */
  appendOutput(sessionId: string, stream: string, data: string | Uint8Array): void {
    const record = { ...this.#next(sessionId), kind: "output" as const, stream, data };
    this.#enqueue(record, null, data.length);
  }

  /** The next seq, a new id and the time, for an event of `sessionId`. */
  #next(sessionId: string): { seq: number; id: string; session_id: string; created_at: string } {
    const seq = this.#nextSeq.get(sessionId);
    if (seq === undefined) throw new Error(`Session "${sessionId}" is not open for events`);
    this.#nextSeq.set(sessionId, seq + 1);
    const now = this.#clock.now();
    return { seq, id: newId("evt", now), session_id: sessionId, created_at: isoTime(now) };
  }

  #enqueue(record: NewEvent, resolve: Pending["resolve"], bytes: number): void {
    this.#queue.push({ record, resolve });
    this.#queuedBytes += bytes;
    this.#scheduleFlush(0);
  }

  /** Resolves when the queue is below its high-water mark (callers stop reading pipes meanwhile). */
  whenWritable(): Promise<void> {
    if (this.#queuedBytes < HIGH_WATER_BYTES && !this.#failing) return Promise.resolve();
    return new Promise((resolve) => this.#writable.push(resolve));
  }

  /** Commits everything queued now (also used at shutdown). Returns false when the commit failed. */
  flush(): boolean {
    if (this.#flushTimer !== null) clearTimeout(this.#flushTimer);
    this.#flushTimer = null;
    if (this.#queue.length === 0) return true;
    const batch = this.#queue;
    try {
      this.#store.appendBatch(batch.map((pending) => pending.record));
    } catch (error) {
      if (!this.#failing) this.#log.error("Cannot store events; retrying", { error });
      this.#failing = true;
      this.#scheduleFlush(RETRY_MS);
      return false;
    }
    if (this.#failing) this.#log.info("Storing events again");
    this.#failing = false;
    this.#queue = [];
    this.#queuedBytes = 0;
    const touched = new Map<string, number>();
    for (const pending of batch) {
      pending.resolve?.(pending.record as EventRecord);
      touched.set(pending.record.session_id, pending.record.seq);
    }
    for (const sessionId of touched.keys()) this.notify(sessionId);
    this.#committed?.(touched);
    for (const resolve of this.#writable.splice(0)) resolve();
    return true;
  }

  /**
   * The last commit, at daemon stop: flushes once and stops retrying, so a
   * store that is about to close is never written again.
   */
  shutdown(): void {
    this.flush();
    this.#stopped = true;
    if (this.#flushTimer !== null) clearTimeout(this.#flushTimer);
    this.#flushTimer = null;
  }

  /** Wakes the readers waiting on a session (new events, or the session ended). */
  notify(sessionId: string): void {
    this.#changes++;
    const waiters = this.#waiters.get(sessionId);
    if (!waiters) return;
    this.#waiters.delete(sessionId);
    for (const wake of waiters) wake();
  }

  /**
   * Waits up to `ms` for the next `notify` of a session (long-poll, D8).
   * Returns false without waiting when `maxWaiters` readers already wait.
   */
  async waitForChange(
    sessionId: string,
    ms: number,
    { signal, maxWaiters }: { signal?: AbortSignal; maxWaiters: number },
  ): Promise<boolean> {
    if (this.#waiterCount >= maxWaiters) return false;
    this.#waiterCount++;
    const abort = new AbortController();
    const onAbort = () => abort.abort();
    signal?.addEventListener("abort", onAbort, { once: true });
    const wake = () => abort.abort();
    let waiters = this.#waiters.get(sessionId);
    if (!waiters) this.#waiters.set(sessionId, waiters = new Set());
    waiters.add(wake);
    try {
      // A reader's wait is wall time on the connection, not scheduler time: real timers.
      await systemClock.sleep(ms, abort.signal);
      return true;
    } finally {
      this.#waiterCount--;
      signal?.removeEventListener("abort", onAbort);
      const current = this.#waiters.get(sessionId);
      current?.delete(wake);
      if (current?.size === 0) this.#waiters.delete(sessionId);
    }
  }

  #scheduleFlush(delayMs: number): void {
    if (this.#flushTimer !== null || this.#stopped) return;
    this.#flushTimer = setTimeout(() => this.flush(), delayMs);
  }
}
