/**
 * Readers of the daemon's Server-Sent Events (D19) for the first-party
 * client: a session's events, resumed after a dropped connection with
 * `Last-Event-ID` so that nothing is lost or repeated, and the daemon-wide
 * feed, reconnected and announced so its reader resyncs. The transport is
 * behind `StreamOpener` (the client's `openStream`), so tests hand in a fake.
 */
import type { EventRecord } from "../store/events_store.ts";
import type { LiveEventRecord } from "../events/live_events.ts";
import { ClientError, StreamRefused } from "./client_error.ts";
import { type SseMessage, SseMessageTooLarge, SseParser } from "./sse.ts";

/** What opening a stream gave: the unread body on 200, else the daemon's JSON refusal. */
export type StreamOpening =
  | {
    ok: true;
    status: number;
    /** The `Svc-Instance` of the answer (null only from a daemon that sends none). */
    instanceId: string | null;
    body: ReadableStream<Uint8Array>;
  }
  | { ok: false; status: number; body: unknown };

/** Opens a negotiated streaming GET (path under `/api/v1`); `SvcClient` is one. */
export interface StreamOpener {
  openStream(
    path: string,
    init: { headers?: Record<string, string>; signal?: AbortSignal },
  ): Promise<StreamOpening>;
}

/** How a reader reconnects after its connection drops. */
export interface ReconnectOptions {
  /** Reconnects in a row that may fail before the reader gives up (default 6; `Infinity`: never). */
  attempts?: number;
  /** The first wait before reconnecting (default 100 ms); it doubles per failure. */
  initialDelayMs?: number;
  /** The longest wait between reconnects (default 2000 ms). */
  maxDelayMs?: number;
  /** Reconnect when nothing, not even a keep-alive, arrives for this long (default 45 s). */
  idleTimeoutMs?: number;
}

/** Options of `streamSessionEvents`. */
export interface SessionStreamOptions {
  /** Start after this seq (default 0: the whole log). */
  afterSeq?: number;
  /** Only these event kinds (D17). */
  kinds?: string[];
  /** A face shows this session while the stream is open (D31: its turns are not notified). */
  focus?: boolean;
  /** Aborting ends the iteration with the abort reason. */
  signal?: AbortSignal;
  reconnect?: ReconnectOptions;
  /**
   * Gets each live-only event (D29: `agent.message.delta`, a frame without
   * `id`) as it comes; without it they are skipped. They are never replayed.
   */
  onLive?: (event: LiveEventRecord) => void;
}

/** One item of the daemon-wide feed. */
export type FeedItem =
  /** A connection is open. Notices sent while disconnected are lost: resync with the list routes. */
  | { type: "connected"; instanceId: string | null; reconnected: boolean }
  /** A notice of `GET /stream`: `session.created`, `run.ended`, … with its ids. */
  | { type: "notice"; kind: string; data: Record<string, unknown> }
  /** The connection dropped (or the reader fell behind: `overflow`); a reconnect follows. */
  | { type: "disconnected"; reason: string; retryInMs: number };

/** Options of `streamFeed`. */
export interface FeedStreamOptions {
  signal?: AbortSignal;
  reconnect?: ReconnectOptions;
}

/** Keep-alives come every 15 s (D19): three missed ones mean a dead connection. */
const DEFAULT_IDLE_TIMEOUT_MS = 45_000;
/** The longest message accepted, as the client's response bound (C8). */
const MAX_MESSAGE_LENGTH = 4 * 1024 * 1024;

/**
 * A session's event records after `afterSeq`, in seq order, each once; it
 * ends after the daemon's `event: end` (the session has ended and everything
 * was sent). A dropped connection is reopened with `Last-Event-ID` = the last
 * seq received. A refusal to open throws `StreamRefused`; a failure of the
 * first open throws the client's error at once, later ones after the retries.
 */
export async function* readSessionEvents(
  opener: StreamOpener,
  sessionId: string,
  options: SessionStreamOptions = {},
): AsyncGenerator<EventRecord, void, undefined> {
  const { signal } = options;
  const policy = reconnectPolicy(options.reconnect);
  const params = new URLSearchParams({
    ...(options.kinds !== undefined && { kinds: options.kinds.join(",") }),
    ...(options.focus && { focus: "1" }),
  });
  const path = `/sessions/${encodeURIComponent(sessionId)}/events/stream${
    params.size > 0 ? `?${params}` : ""
  }`;
  let lastSeq = options.afterSeq ?? 0;
  const retry = new Retry(policy, signal);
  for (;;) {
    const connection = await retry.open(opener, path, { "last-event-id": String(lastSeq) });
    let reason = "the connection closed";
    try {
      for await (const message of readMessages(connection.body, policy, signal)) {
        if (message.event === "end") return;
        if (message.id === null) {
          options.onLive?.(liveEventRecord(message));
          continue;
        }
        const record = eventRecord(message);
        if (record.seq <= lastSeq) continue; // Never twice, whatever a daemon sends.
        lastSeq = record.seq;
        yield record;
      }
    } catch (error) {
      if (!isDrop(error)) throw error;
      reason = (error as Error).message;
    }
    signal?.throwIfAborted();
    await retry.wait(reason);
  }
}

/**
 * The daemon-wide feed (`GET /stream`): a `connected` item, then notices; on
 * a drop or an overflow a `disconnected` item and, once reconnected, a new
 * `connected` item (the feed has no replay). A refusal throws
 * `StreamRefused`; failures to connect as `readSessionEvents`.
 */
export async function* readFeed(
  opener: StreamOpener,
  options: FeedStreamOptions = {},
): AsyncGenerator<FeedItem, void, undefined> {
  const { signal } = options;
  const policy = reconnectPolicy(options.reconnect);
  const retry = new Retry(policy, signal);
  let reconnected = false;
  for (;;) {
    const connection = await retry.open(opener, "/stream", {});
    yield { type: "connected", instanceId: connection.instanceId, reconnected };
    reconnected = true;
    let reason = "the connection closed";
    try {
      for await (const message of readMessages(connection.body, policy, signal)) {
        if (message.event === "overflow") {
          reason = "this reader fell behind (overflow)";
          break;
        }
        yield { type: "notice", kind: message.event, data: jsonObject(message.data) };
      }
    } catch (error) {
      if (!isDrop(error)) throw error;
      reason = (error as Error).message;
    }
    signal?.throwIfAborted();
    yield { type: "disconnected", reason, retryInMs: retry.nextDelayMs() };
    await retry.wait(reason);
  }
}

type Policy = Required<ReconnectOptions>;

function reconnectPolicy(options: ReconnectOptions = {}): Policy {
  return {
    attempts: options.attempts ?? 6,
    initialDelayMs: options.initialDelayMs ?? 100,
    maxDelayMs: options.maxDelayMs ?? 2000,
    idleTimeoutMs: options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
  };
}

/**
 * Counts failed reconnects in a row (an open that succeeds resets the count)
 * and waits the bounded backoff between them.
 */
class Retry {
  readonly #policy: Policy;
  readonly #signal: AbortSignal | undefined;
  #failures = 0;
  #opened = false;

  constructor(policy: Policy, signal: AbortSignal | undefined) {
    this.#policy = policy;
    this.#signal = signal;
  }

  nextDelayMs(): number {
    const { initialDelayMs, maxDelayMs } = this.#policy;
    return Math.min(maxDelayMs, initialDelayMs * 2 ** Math.min(this.#failures, 30));
  }

  /** Waits before the next attempt; gives up (rethrowing `cause`) past the attempts. */
  async wait(reason: string, cause?: unknown): Promise<void> {
    const delay = this.nextDelayMs();
    this.#failures++;
    if (this.#failures > this.#policy.attempts) {
      throw cause ?? new ClientError("unreachable", `The stream was lost: ${reason}`);
    }
    await abortableDelay(delay, this.#signal);
  }

  /**
   * Opens the stream. The first open fails at once, as any call; a reopen
   * retries what a restart or a drop explains: no daemon yet, a new daemon
   * instance (the client has then forgotten its negotiation, and the next
   * attempt, made at once, negotiates with the new one: see docs/api.md),
   * and a slot the daemon has not given back yet (503 `too_many_streams`).
   */
  async open(
    opener: StreamOpener,
    path: string,
    headers: Record<string, string>,
  ): Promise<Extract<StreamOpening, { ok: true }>> {
    let renegotiated = false;
    for (;;) {
      try {
        const opening = await opener.openStream(path, { headers, signal: this.#signal });
        if (!opening.ok) throw new StreamRefused(opening.status, opening.body);
        this.#opened = true;
        this.#failures = 0;
        return opening;
      } catch (error) {
        this.#signal?.throwIfAborted();
        if (!this.#opened || !retryable(error)) throw error;
        if (isInstanceChange(error) && !renegotiated) {
          renegotiated = true;
          continue;
        }
        await this.wait((error as Error).message, error);
      }
    }
  }
}

function isInstanceChange(error: unknown): boolean {
  return error instanceof ClientError && error.code === "instance_changed";
}

function retryable(error: unknown): boolean {
  if (error instanceof ClientError) {
    return error.code === "unreachable" || error.code === "instance_changed";
  }
  return error instanceof StreamRefused && error.code === "too_many_streams";
}

/** Why a connection ended early: worth a reconnect. Anything else is thrown to the reader. */
class Dropped extends Error {}

function isDrop(error: unknown): boolean {
  return error instanceof Dropped;
}

/**
 * The messages of one connection. The body ending, failing or staying silent
 * past the idle timeout is a `Dropped`; aborting `signal` throws its reason.
 */
async function* readMessages(
  body: ReadableStream<Uint8Array>,
  policy: Policy,
  signal: AbortSignal | undefined,
): AsyncGenerator<SseMessage, void, undefined> {
  // Bytes decoded here rather than piped through a TextDecoderStream: the DOM lib types that
  // stream's input as BufferSource, which `pipeThrough` of a Uint8Array stream refuses, and the
  // web app (D30) runs this reader too.
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const parser = new SseParser({ maxMessageLength: MAX_MESSAGE_LENGTH });
  try {
    for (;;) {
      const chunk = await readWithin(reader, policy.idleTimeoutMs, signal);
      if (chunk === null) throw new Dropped("the connection closed before the end of the stream");
      let messages: SseMessage[];
      try {
        messages = parser.push(decoder.decode(chunk, { stream: true }));
      } catch (error) {
        if (error instanceof SseMessageTooLarge) {
          throw new ClientError("response_too_large", error.message);
        }
        throw error;
      }
      for (const message of messages) {
        // Messages already parsed from one chunk must not outrun an abort.
        signal?.throwIfAborted();
        yield message;
      }
    }
  } finally {
    // Not awaited when aborted: a cancel waits for the pending read, which may never end.
    const cancelled = reader.cancel().catch(() => {});
    if (!signal?.aborted) await cancelled;
  }
}

/**
 * The next chunk, null at the end; a read error or `idleMs` of silence is a
 * `Dropped`. The read races `signal` itself: the fetch's own abort of the
 * body cannot be relied on, since the request signal that carries it follows
 * `signal` only weakly and is lost once the request is collected (a quiet
 * stream then ignored Ctrl-C until its next chunk: issue 27 item 1).
 */
async function readWithin<Chunk>(
  reader: ReadableStreamDefaultReader<Chunk>,
  idleMs: number,
  signal: AbortSignal | undefined,
): Promise<Chunk | null> {
  signal?.throwIfAborted();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const idle = new Promise<"idle">((resolve) => {
    timer = setTimeout(() => resolve("idle"), idleMs);
  });
  const aborted = new Promise<"aborted">((resolve) => {
    onAbort = () => resolve("aborted");
    signal?.addEventListener("abort", onAbort, { once: true });
  });
  try {
    const result = await Promise.race([reader.read(), idle, aborted]);
    if (result === "aborted") throw signal!.reason;
    if (result === "idle") {
      throw new Dropped(`nothing arrived for ${Math.round(idleMs / 1000)} s`);
    }
    return result.done ? null : result.value;
  } catch (error) {
    signal?.throwIfAborted();
    if (error instanceof Dropped) throw error;
    throw new Dropped(`the connection failed (${(error as Error).message})`);
  } finally {
    clearTimeout(timer);
    if (onAbort !== undefined) signal?.removeEventListener("abort", onAbort);
  }
}

function eventRecord(message: SseMessage): EventRecord {
  const record = jsonObject(message.data);
  if (typeof record.seq !== "number" || typeof record.kind !== "string") {
    throw new ClientError("bad_response", `Stream event "${message.event}" is not an event record`);
  }
  return record as unknown as EventRecord;
}

function liveEventRecord(message: SseMessage): LiveEventRecord {
  const record = jsonObject(message.data);
  if (typeof record.kind !== "string" || typeof record.payload_json !== "string") {
    throw new ClientError("bad_response", `Stream event "${message.event}" is not a live event`);
  }
  return record as unknown as LiveEventRecord;
}

function jsonObject(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ClientError("bad_response", "Stream data is not JSON");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ClientError("bad_response", "Stream data is not a JSON object");
  }
  return value as Record<string, unknown>;
}

function abortableDelay(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const abort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", abort);
      resolve();
    }, ms);
    if (signal?.aborted) abort();
    else signal?.addEventListener("abort", abort, { once: true });
  });
}
