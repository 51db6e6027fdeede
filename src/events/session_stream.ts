/**
 * A session's event log as Server-Sent Events (D19). The stream is pulled:
 * each pull reads the next batch from the store after the last seq sent, so
 * a reader that pauses holds at most one batch in memory and catches up from
 * the store; when nothing is new it waits for the next commit (or sends a
 * keep-alive). Ids are seqs, so a reconnect with `Last-Event-ID` resumes
 * exactly after the last event the reader got: never a gap, never twice.
 *
 * Live-only events (D29, `agent.message.delta`) are merged in where they
 * happened: right after the durable event that preceded them. They have no
 * `id:` line, so a reconnect resumes from the durable cursor and gets the
 * live events published from then on.
 */
import type { EventRecord } from "../store/events_store.ts";
import type { LiveEventRecord } from "./live_events.ts";

/** Events read per pull: bounds a paused reader's buffer (64 KiB events → ≤ ~8 MiB). */
const BATCH = 128;
/** A comment at least this often keeps proxies and idle timers from closing the stream (D19). */
export const KEEP_ALIVE_MS = 15_000;

/** What the stream reads. */
export interface SessionStreamSource {
  /** Events with seq > afterSeq (of `kinds` only when given), ascending, at most `limit`. */
  read(afterSeq: number, limit: number): EventRecord[];
  /** The highest stored seq. */
  lastSeq(): number;
  /** False once the session has ended (its last event is then stored). */
  live(): boolean;
  /**
   * Resolves on the next commit of the session, the next live event, after
   * `ms`, or when `signal` aborts.
   */
  waitForChange(ms: number, signal: AbortSignal): Promise<void>;
  /** The live events published after the durable event `seq` or before it, in order (D29). */
  takeLive?(seq: number): LiveEventRecord[];
}

const encoder = new TextEncoder();

/** One event in SSE framing: `id`, `event` and the record as one `data` line. */
export function formatEvent(record: EventRecord): string {
  return `id: ${record.seq}\nevent: ${record.kind}\ndata: ${JSON.stringify(record)}\n\n`;
}

/** A live-only event (D29): `event` and `data` like a record's, and no `id`. */
export function formatLiveEvent(record: LiveEventRecord): string {
  return `event: ${record.kind}\ndata: ${JSON.stringify(record)}\n\n`;
}

/** The last frame of an ended session's stream (D19). */
export function formatEnd(lastSeq: number): string {
  return `event: end\ndata: {"lastSeq":${lastSeq}}\n\n`;
}

/**
 * The body of a session stream starting after `afterSeq`. `filtered` says
 * `read` returns only some kinds: the cursor then also moves past what was
 * examined. `stop` ends the stream (daemon stop); `onClose` runs once,
 * however it ends (end of session, stop, or the client going away).
 */
export function sessionEventStream(
  source: SessionStreamSource,
  { afterSeq, filtered, stop, onClose, keepAliveMs = KEEP_ALIVE_MS }: {
    afterSeq: number;
    filtered: boolean;
    stop: AbortSignal;
    onClose: () => void;
    keepAliveMs?: number;
  },
): ReadableStream<Uint8Array> {
  let cursor = afterSeq;
  const cancelled = new AbortController();
  const done = AbortSignal.any([cancelled.signal, stop]);
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    cancelled.abort();
    onClose();
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        if (done.aborted) {
          close();
          controller.close();
          return;
        }
        // Read `live` before the events: a session that ended has all of its events stored.
        const live = source.live();
        const examinedTo = filtered ? source.lastSeq() : 0;
        const rows = source.read(cursor, BATCH);
        const takeLive = (seq: number) => (source.takeLive?.(seq) ?? []).map(formatLiveEvent);
        const frames: string[] = [];
        for (const row of rows) {
          frames.push(...takeLive(row.seq - 1), formatEvent(row));
          cursor = row.seq;
        }
        if (rows.length < BATCH) cursor = Math.max(cursor, examinedTo);
        frames.push(...takeLive(cursor));
        if (frames.length > 0) {
          controller.enqueue(encoder.encode(frames.join("")));
          return;
        }
        if (!live) {
          controller.enqueue(encoder.encode(formatEnd(source.lastSeq())));
          close();
          controller.close();
          return;
        }
        const started = Date.now();
        await source.waitForChange(keepAliveMs, done);
        if (!done.aborted && Date.now() - started >= keepAliveMs) {
          controller.enqueue(encoder.encode(": keep-alive\n\n"));
          return;
        }
      }
    },
    cancel() {
      close(); // The client went away: release the slot and any waiter at once.
    },
  }, { highWaterMark: 0 });
}
