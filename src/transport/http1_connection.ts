/**
 * The HTTP/1.1 connection loop over any `ByteDuplex` (the Unix socket and
 * TCP through http1_server.ts, the Windows named pipe, docs/windows.md):
 * requests in order (keep-alive, pipelining answered in order,
 * `Expect: 100-continue`), each read bounded in time, a refusal decided from
 * the head before a body is read (`beforeBody`, D23). Nothing here touches
 * the OS, so all of it is tested on every platform.
 */
import { EMPTY } from "./byte_queue.ts";
import { badRequest, DEFAULT_LIMITS, FramingError, type Http1Limits } from "./http1_errors.ts";
import { type ParsedRequest, type RequestHead, RequestReader, toRequest } from "./http1_request.ts";
import {
  CONTINUE_RESPONSE,
  framingErrorResponse,
  isEventStream,
  newResponseScratch,
  type ServerFields,
  writeResponse,
} from "./http1_response.ts";

/** A byte stream the connection loop reads requests from and writes responses to. */
export interface ByteDuplex {
  /** Reads into `into`: the byte count, or `null` at end of stream, on error or when cancelled. */
  read(into: Uint8Array): Promise<number | null>;
  /** Writes all of `bytes`; rejects when the peer is gone. `bytes` may be reused once it settles. */
  write(bytes: Uint8Array): Promise<void>;
  /**
   * Makes a pending `read` resolve `null` soon; a no-op when none is pending.
   * Called only to end the connection, so an implementation may close it.
   */
  cancelRead(): void;
}

/** How long a connection may take (issue 13: a 1-byte/s client was held forever). */
export interface Http1Timeouts {
  /**
   * From a request's first byte to the end of its head (then 408 and close);
   * also how long a new connection may wait before its first byte (then it
   * is closed), so connections that never send hold no slot for long.
   */
  readonly headerMs: number;
  /** From the end of the head to the end of the body (then 408 and close). */
  readonly bodyMs: number;
  /** Between requests on a kept-alive connection (then it is closed). */
  readonly idleMs: number;
}

/** 10 s for a head, 60 s for a body, 120 s idle (docs/operations.md). */
export const DEFAULT_TIMEOUTS: Http1Timeouts = {
  headerMs: 10_000,
  bodyMs: 60_000,
  idleMs: 120_000,
};

/** Options of `serveHttp1Connection`. */
export interface ServeHttp1Options {
  limits?: Http1Limits;
  /** Time bounds; a handler's own time (a long-poll, a stream) is not bounded here. */
  timeouts?: Http1Timeouts;
  /** Checked between requests: when true the connection ends after the current response. */
  isStopping?: () => boolean;
  /** The `date` header's clock (default: the system clock). */
  now?: () => Date;
  /**
   * Fields every response carries, the framing's own refusals included,
   * unless the handler set them (the daemon's `Svc-Instance`, D5): added to
   * the head as it is written, which costs less than a `Headers.set` on
   * every handler's response (issue 26).
   */
  responseHeaders?: ServerFields;
  /**
   * Asked once a request's head is in and its body is not (before any
   * `100 Continue`): a response refuses the request without reading its
   * body, then the connection closes (D23: a TCP peer's mutation is 403
   * before the body is read); null lets the body be read.
   */
  beforeBody?: (head: Request) => Response | null;
}

/**
 * Serves requests from `conn` until the client closes, asks to close, sends
 * something unframeable (answered with its 4xx first), idles past the read
 * timeout, or the server is stopping. Never throws; the caller closes `conn`.
 */
export async function serveHttp1Connection(
  conn: ByteDuplex,
  handler: (req: Request) => Response | Promise<Response>,
  options: ServeHttp1Options = {},
): Promise<void> {
  const reader = new RequestReader(options.limits ?? DEFAULT_LIMITS);
  const timeouts = options.timeouts ?? DEFAULT_TIMEOUTS;
  const isStopping = options.isStopping ?? (() => false);
  /** When the current request's first byte, and the end of its head, arrived. */
  let headStartedAt: number | null = null;
  let bodyStartedAt: number | null = null;
  const date = options.now ? () => options.now!().toUTCString() : httpDate;
  const buffer = new Uint8Array(64 * 1024);
  const write = (bytes: Uint8Array) => conn.write(bytes);
  const extra = options.responseHeaders ?? {};
  let scratchBuffer: Uint8Array | undefined;
  const scratch = () => scratchBuffer ??= newResponseScratch();
  let continued: RequestHead | null = null;
  /** The pending head `beforeBody` was asked about. */
  let admitted: RequestHead | null = null;
  const connectedAt = Date.now();
  /** Responses written on this connection. */
  let answered = 0;
  const watchdog = new ReadWatchdog(conn, (stage) => {
    if (stage === "idle") return Promise.resolve();
    const limit = stage === "head" ? timeouts.headerMs : timeouts.bodyMs;
    return write(framingErrorResponse(
      new FramingError(
        408,
        "request_timeout",
        `The request's ${stage} did not arrive within ${limit} ms`,
      ),
      date(),
      extra,
    ));
  });
  try {
    for (;;) {
      let parsed: ParsedRequest | null;
      try {
        parsed = reader.next();
      } catch (error) {
        if (!(error instanceof FramingError)) throw error;
        await write(framingErrorResponse(error, date(), extra));
        await drain(conn, buffer);
        return;
      }
      if (parsed === null) {
        if (isStopping() && reader.buffered === 0) return;
        const pending = reader.pendingHead;
        if (pending !== null && admitted !== pending) {
          admitted = pending;
          const refusal = refuseBeforeBody(pending, options.beforeBody);
          if (refusal !== null) {
            await writeResponse(refusal, { ...pending, keepAlive: false }, write, {
              date: date(),
              fields: extra,
            });
            await drain(conn, buffer);
            return;
          }
        }
        if (pending?.expectContinue && continued !== pending) {
          continued = pending;
          await write(CONTINUE_RESPONSE);
          if (isStopping()) return;
        }
        const now = Date.now();
        let stage: Stage = "idle";
        let deadline = answered === 0 ? connectedAt + timeouts.headerMs : now + timeouts.idleMs;
        if (pending !== null) {
          stage = "body";
          bodyStartedAt ??= now;
          deadline = bodyStartedAt + timeouts.bodyMs;
        } else if (reader.buffered > 0) {
          stage = "head";
          headStartedAt ??= now;
          deadline = headStartedAt + timeouts.headerMs;
        }
        const count = await watchdog.read(buffer, stage, deadline);
        if (watchdog.expired) {
          // The watchdog has told a stalled request why (an idle connection just ends).
          await watchdog.expired;
          return;
        }
        if (count === null) {
          // The client ended its side mid-request: say so (it may still read), then close.
          if (stage !== "idle") {
            await write(framingErrorResponse(
              badRequest(`The connection ended before the request's ${stage} was complete`),
              date(),
              extra,
            ));
          }
          return;
        }
        reader.push(buffer.subarray(0, count));
        continue;
      }
      headStartedAt = null;
      bodyStartedAt = null;
      const { head, body } = parsed;
      let request: Request;
      try {
        request = toRequest(head, body);
      } catch (error) {
        await write(framingErrorResponse(badRequest((error as Error).message), date(), extra));
        return;
      }
      const response = await answer(handler, request);
      if (head.bodySkipped) {
        await writeResponse(response, { ...head, keepAlive: false }, write, {
          date: date(),
          fields: extra,
        });
        await drain(conn, buffer);
        return;
      }
      const streaming = isEventStream(response);
      // A stream ends its connection (its reads below may have taken bytes of a next request).
      const keepAlive = head.keepAlive && !isStopping() && !streaming;
      const reusable = await writeResponse(response, { ...head, keepAlive }, write, {
        date: date(),
        fields: extra,
        scratch,
        // A stream that sends nothing for a while would not notice its client left without this.
        clientGone: streaming ? clientGone(conn) : undefined,
      });
      answered++;
      if (!reusable || isStopping()) return;
    }
  } catch {
    // The peer went away mid-write, or the handler's body stream failed: just close.
  } finally {
    watchdog.stop();
  }
}

/** `beforeBody`'s answer for a head whose body is pending; a head it cannot build is 400. */
function refuseBeforeBody(
  head: RequestHead,
  beforeBody: ServeHttp1Options["beforeBody"],
): Response | null {
  if (!beforeBody) return null;
  let request: Request;
  try {
    request = toRequest(head, EMPTY);
  } catch {
    return null; // Refused with its reason once the request is complete.
  }
  return beforeBody(request);
}

/** What a connection is waiting for: the next request, the rest of a head, or a body. */
type Stage = "idle" | "head" | "body";

/**
 * The read deadline of one connection (issue 13: a 1-byte/s client was held
 * forever). One timer per connection, re-armed only when a deadline moves
 * earlier or the timer fires early, so a kept-alive connection costs no timer
 * work per request. Only reads are bounded: a handler's own time (a
 * long-poll, a stream) is not. On expiry `onExpire` answers the stalled
 * request, then the pending read is cancelled; `expired` holds that answer.
 */
class ReadWatchdog {
  readonly #conn: ByteDuplex;
  readonly #onExpire: (stage: Stage) => Promise<void>;
  #timer: ReturnType<typeof setTimeout> | null = null;
  #timerAt = 0;
  #deadline = 0;
  #stage: Stage = "idle";
  #reading = false;
  /** Settles once the stalled request was answered and the read cancelled; null until expiry. */
  expired: Promise<void> | null = null;

  constructor(conn: ByteDuplex, onExpire: (stage: Stage) => Promise<void>) {
    this.#conn = conn;
    this.#onExpire = onExpire;
  }

  async read(into: Uint8Array, stage: Stage, deadline: number): Promise<number | null> {
    this.#stage = stage;
    this.#deadline = deadline;
    if (this.#timer === null || this.#timerAt > deadline) this.#arm(deadline);
    this.#reading = true;
    try {
      return await this.#conn.read(into);
    } finally {
      this.#reading = false;
    }
  }

  stop(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
  }

  #arm(at: number): void {
    this.stop();
    this.#timerAt = at;
    this.#timer = setTimeout(() => this.#fire(), Math.max(0, at - Date.now()));
  }

  #fire(): void {
    this.#timer = null;
    // Between reads (a handler at work) nothing is bounded; the next read re-arms.
    if (!this.#reading || this.expired) return;
    if (Date.now() < this.#deadline) return this.#arm(this.#deadline);
    this.expired = this.#onExpire(this.#stage).catch(() => {}).finally(() =>
      this.#conn.cancelRead()
    );
  }
}

let dateSecond = -1;
let dateText = "";

/** The `date` header's value, formatted once a second. */
function httpDate(): string {
  const now = Date.now();
  const second = Math.floor(now / 1000);
  if (second !== dateSecond) {
    dateSecond = second;
    dateText = new Date(now).toUTCString();
  }
  return dateText;
}

/** Resolves when the client closes its side (a read returns end of stream); reads are dropped. */
async function clientGone(conn: ByteDuplex): Promise<void> {
  const scratch = new Uint8Array(4096);
  while ((await conn.read(scratch)) !== null) { /* a stream takes no request bodies */ }
}

/**
 * After a refusal, reads and drops what the client is still sending (at
 * most 8 MiB, 2 s) before the close, so a client that sends its body after
 * the head reads the refusal instead of a reset (a lingering close).
 */
async function drain(conn: ByteDuplex, buffer: Uint8Array): Promise<void> {
  const deadline = Date.now() + 2000;
  for (let total = 0; total < 8 * 1024 * 1024;) {
    const count = await readWithTimeout(conn, buffer, Math.max(0, deadline - Date.now()));
    if (count === null || count === TIMED_OUT) return;
    total += count;
  }
}

const TIMED_OUT = Symbol("timed out");

/** A read, or TIMED_OUT once `timeoutMs` passed (the pending read is cancelled). */
async function readWithTimeout(
  conn: ByteDuplex,
  into: Uint8Array,
  timeoutMs: number,
): Promise<number | null | typeof TIMED_OUT> {
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    conn.cancelRead();
  }, timeoutMs);
  try {
    const count = await conn.read(into);
    return timedOut ? TIMED_OUT : count;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The handler's answer: awaited only when it is a promise (a synchronous
 * route such as /health pays no promise of its own), a throw or a rejection
 * answered with `internalError()`.
 */
function answer(
  handler: (req: Request) => Response | Promise<Response>,
  request: Request,
): Response | Promise<Response> {
  try {
    const response = handler(request);
    return response instanceof Promise ? response.catch(internalError) : response;
  } catch {
    return internalError();
  }
}

/** Last-resort response when a handler throws (the daemon's maps its own errors). */
function internalError(): Response {
  return new Response(
    JSON.stringify({
      error: { code: "internal_error", message: "The daemon hit an unexpected error", details: {} },
    }),
    { status: 500, headers: { "content-type": "application/json; charset=utf-8" } },
  );
}
