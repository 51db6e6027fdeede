/**
 * HTTP/1.1 over a raw byte stream, for every transport of the daemon (the
 * Unix socket and TCP through http1_server.ts, the Windows named pipe,
 * docs/windows.md): an incremental request parser, a response serializer and
 * a connection loop over any `ByteDuplex`. Nothing here touches the OS, so
 * all of it is tested on every platform.
 *
 * Deliberately small: origin-form targets, `Content-Length` bodies only
 * (chunked request bodies get 411, other transfer codings 501), keep-alive,
 * pipelining (answered in order), `Expect: 100-continue`. Lines must end in
 * CRLF; obs-fold, bare CR/LF, and conflicting lengths are refused (RFC 9112).
 */
import { builtText } from "./text_body.ts";

/** Size bounds of one request. */
export interface Http1Limits {
  /** Request line plus header lines, in bytes (431 beyond). */
  readonly maxHeadBytes: number;
  /** Request line alone (414 beyond). */
  readonly maxRequestLineBytes: number;
  /** Header field lines (431 beyond). */
  readonly maxHeaderCount: number;
  /** `Content-Length` (413 beyond; D6's 1 MiB by default). */
  readonly maxBodyBytes: number;
  /**
   * Instead of answering 413 itself, hand a request whose body is too large
   * to the handler without its body (its route refuses it in its own shape,
   * as the action router does), then close the connection.
   */
  readonly skipOversizedBodies?: boolean;
}

/** The limits used when none are given (node:http's 16 KiB head, D6's 1 MiB body). */
export const DEFAULT_LIMITS: Http1Limits = {
  maxHeadBytes: 16 * 1024,
  maxRequestLineBytes: 8 * 1024,
  maxHeaderCount: 100,
  maxBodyBytes: 1024 * 1024,
};

/** A parsed request line and header section. */
export interface RequestHead {
  readonly method: string;
  /** Origin-form path and query, e.g. `/api/v1/health?x=1`. */
  readonly target: string;
  /** The host and port an absolute-form target named (`GET http://h:p/x`); null for origin-form. */
  readonly authority: string | null;
  readonly version: "1.0" | "1.1";
  /** Field lines in order, names as sent. */
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly contentLength: number;
  /** Whether the client allows another request on this connection. */
  readonly keepAlive: boolean;
  readonly expectContinue: boolean;
  /** The body was over `maxBodyBytes` and is not read (`skipOversizedBodies`). */
  readonly bodySkipped?: boolean;
}

/** A complete request: its head and exactly `contentLength` body bytes. */
export interface ParsedRequest {
  readonly head: RequestHead;
  readonly body: Uint8Array<ArrayBuffer>;
}

/** A request the framing refuses; answered with `status` and the D6 envelope, then closed. */
export class FramingError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: Record<string, unknown>;

  constructor(status: number, code: string, message: string, details = {}) {
    super(message);
    this.name = "FramingError";
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

const CR = 13;
const LF = 10;
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const FIELD_LINE = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):(.*)$/;
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
const VISIBLE_ASCII = /^[\x21-\x7e]+$/;

/** The refusal of a connection beyond a server's cap (503, then close). */
export const TOO_MANY_CONNECTIONS = new FramingError(
  503,
  "too_many_connections",
  "The daemon is serving as many connections as it allows: retry shortly",
);

function badRequest(message: string): FramingError {
  return new FramingError(400, "invalid_request", message);
}

/**
 * Parses the head at the start of `bytes` (leading empty lines skipped, RFC
 * 9112 §2.2). Returns `null` while the blank line that ends the head has not
 * arrived; throws `FramingError` for a head that can never be valid.
 */
export function parseRequestHead(
  bytes: Uint8Array,
  limits: Http1Limits = DEFAULT_LIMITS,
): { head: RequestHead; headLength: number } | null {
  let start = 0;
  while (bytes[start] === CR && bytes[start + 1] === LF) start += 2;
  const { end, ascii } = indexOfHeadEnd(bytes, start);
  const firstLineEnd = indexOfCrlf(bytes, start);
  const requestLineBytes = (firstLineEnd < 0 ? bytes.length : firstLineEnd) - start;
  if (requestLineBytes > limits.maxRequestLineBytes) {
    throw new FramingError(414, "uri_too_long", "Request line is too long", {
      limit: limits.maxRequestLineBytes,
    });
  }
  if (end < 0 ? bytes.length > limits.maxHeadBytes : end + 4 > limits.maxHeadBytes) {
    throw new FramingError(431, "headers_too_large", "Request header section is too large", {
      limit: limits.maxHeadBytes,
    });
  }
  if (end < 0) return null;
  const text = ascii
    ? asciiDecoder.decode(bytes.subarray(start, end))
    : latin1(bytes.subarray(start, end));
  const lines = text.split("\r\n");
  return { head: parseLines(lines, limits), headLength: end + 4 };
}

function parseLines(lines: string[], limits: Http1Limits): RequestHead {
  const [requestLine, ...fieldLines] = lines;
  const parts = requestLine.split(" ");
  if (parts.length !== 3 || !TOKEN.test(parts[0])) {
    throw badRequest("Request line is not METHOD SP TARGET SP VERSION");
  }
  const [method, rawTarget, rawVersion] = parts;
  const version = parseVersion(rawVersion);
  const { target, authority } = parseTarget(rawTarget);
  if (fieldLines.length > limits.maxHeaderCount) {
    throw new FramingError(431, "headers_too_large", "Request has too many header fields", {
      limit: limits.maxHeaderCount,
    });
  }
  const headers: Array<readonly [string, string]> = [];
  for (const line of fieldLines) {
    if (line.startsWith(" ") || line.startsWith("\t")) {
      throw badRequest("Folded header lines (obs-fold) are not accepted");
    }
    const match = FIELD_LINE.exec(line);
    if (!match) throw badRequest(`Header line "${line.slice(0, 40)}" is malformed`);
    const value = match[2].replace(/^[ \t]+|[ \t]+$/g, "");
    if (!FIELD_VALUE.test(value)) {
      throw badRequest(`Header "${match[1]}" holds a control character`);
    }
    headers.push([match[1], value]);
  }
  return {
    method,
    target,
    authority,
    version,
    headers,
    ...fieldSemantics(headers, version, limits),
  };
}

function parseVersion(raw: string): "1.0" | "1.1" {
  const match = /^HTTP\/(\d)\.(\d)$/.exec(raw);
  if (!match) throw badRequest(`"${raw.slice(0, 20)}" is not an HTTP version`);
  if (match[1] !== "1") {
    throw new FramingError(505, "http_version_not_supported", `HTTP/${match[1]} is not supported`);
  }
  return match[2] === "0" ? "1.0" : "1.1";
}

function parseTarget(raw: string): { target: string; authority: string | null } {
  if (!VISIBLE_ASCII.test(raw)) throw badRequest("Request target holds invalid characters");
  if (raw.startsWith("/")) return { target: raw, authority: null };
  if (/^https?:\/\//i.test(raw)) {
    try {
      const url = new URL(raw);
      return { target: url.pathname + url.search, authority: url.host };
    } catch {
      throw badRequest(`Request target "${raw.slice(0, 80)}" is not a valid URL`);
    }
  }
  throw badRequest(`Request target "${raw.slice(0, 80)}" is not a path`);
}

function fieldSemantics(
  headers: ReadonlyArray<readonly [string, string]>,
  version: "1.0" | "1.1",
  limits: Http1Limits,
): Pick<RequestHead, "contentLength" | "keepAlive" | "expectContinue" | "bodySkipped"> {
  // One pass over the fields: only these five carry framing semantics.
  let hosts = 0;
  const transferEncoding: string[] = [];
  const lengths: string[] = [];
  const connection: string[] = [];
  const expects: string[] = [];
  for (const [name, value] of headers) {
    switch (name.toLowerCase()) {
      case "host":
        hosts++;
        break;
      case "transfer-encoding":
        transferEncoding.push(value);
        break;
      case "content-length":
        for (const part of value.split(",")) lengths.push(part.trim());
        break;
      case "connection":
        connection.push(value);
        break;
      case "expect":
        expects.push(value);
        break;
    }
  }
  if (version === "1.1" && hosts !== 1) {
    throw badRequest(hosts === 0 ? "Host header is missing" : "Host header is repeated");
  }
  if (transferEncoding.length > 0) {
    if (lengths.length > 0) throw badRequest("Both Transfer-Encoding and Content-Length are set");
    const codings = transferEncoding.join(",").toLowerCase().split(",").map((c) => c.trim());
    if (codings[codings.length - 1] === "chunked") {
      throw new FramingError(
        411,
        "length_required",
        "Chunked request bodies are not accepted: send Content-Length",
      );
    }
    throw new FramingError(501, "not_implemented", `Transfer coding "${codings.join(", ")}"`);
  }
  let contentLength = 0;
  if (lengths.length > 0) {
    if (!lengths.every((value) => /^\d+$/.test(value)) || new Set(lengths).size !== 1) {
      throw badRequest("Content-Length is not one non-negative integer");
    }
    contentLength = lengths[0].length > 15 ? Infinity : Number(lengths[0]);
    if (contentLength > limits.maxBodyBytes && limits.skipOversizedBodies) {
      return { contentLength, keepAlive: false, expectContinue: false, bodySkipped: true };
    }
    if (contentLength > limits.maxBodyBytes) {
      throw new FramingError(
        413,
        "payload_too_large",
        `Request body exceeds ${limits.maxBodyBytes} bytes`,
        { limit: limits.maxBodyBytes },
      );
    }
  }
  const tokens = connection.length === 0
    ? []
    : connection.join(",").toLowerCase().split(",").map((t) => t.trim());
  const keepAlive = !tokens.includes("close") &&
    (version === "1.1" || tokens.includes("keep-alive"));
  const expect = expects.join(",").trim().toLowerCase();
  if (expect !== "" && expect !== "100-continue") {
    throw new FramingError(417, "expectation_failed", `Expectation "${expect}" is not supported`);
  }
  return { contentLength, keepAlive, expectContinue: expect !== "" && version === "1.1" };
}

const EMPTY = new Uint8Array(0);

/**
 * Turns a stream of chunks into requests, in order: bytes of a pipelined
 * next request stay buffered until it is asked for.
 */
export class RequestReader {
  readonly #limits: Http1Limits;
  #buffer: Uint8Array<ArrayBuffer> = EMPTY;
  /** Whether `#buffer` is still the caller's chunk (see `push`). */
  #borrowed = false;
  #head: { head: RequestHead; headLength: number } | null = null;

  constructor(limits: Http1Limits = DEFAULT_LIMITS) {
    this.#limits = limits;
  }

  /**
   * Appends received bytes. `chunk` is used in place until `next()` returns
   * null (what is left is copied then), so the caller reads into it again
   * only after that: most requests arrive whole and are never copied.
   */
  push(chunk: Uint8Array<ArrayBuffer>): void {
    if (this.#buffer.length === 0) {
      this.#buffer = chunk;
      this.#borrowed = true;
      return;
    }
    const joined = new Uint8Array(this.#buffer.length + chunk.length);
    joined.set(this.#buffer);
    joined.set(chunk, this.#buffer.length);
    this.#buffer = joined;
    this.#borrowed = false;
  }

  /** Bytes received and not yet returned as part of a request. */
  get buffered(): number {
    return this.#buffer.length;
  }

  /** The head of a request whose body is still arriving (for 100-continue). */
  get pendingHead(): RequestHead | null {
    return this.#head?.head ?? null;
  }

  /** The next complete request, or `null` until more bytes arrive. Throws `FramingError`. */
  next(): ParsedRequest | null {
    const request = this.#next();
    if (request === null && this.#borrowed) {
      this.#buffer = this.#buffer.slice();
      this.#borrowed = false;
    }
    return request;
  }

  #next(): ParsedRequest | null {
    this.#head ??= parseRequestHead(this.#buffer, this.#limits);
    if (!this.#head) return null;
    const { head, headLength } = this.#head;
    if (head.bodySkipped) {
      // Nothing after the head is this connection's any more: it closes after the answer.
      this.#buffer = EMPTY;
      this.#head = null;
      return { head, body: EMPTY };
    }
    const end = headLength + head.contentLength;
    if (this.#buffer.length < end) return null;
    const body = end === headLength ? EMPTY : this.#buffer.slice(headLength, end);
    this.#buffer = end === this.#buffer.length ? EMPTY : this.#buffer.subarray(end);
    this.#head = null;
    return { head, body };
  }
}

/** How a response body is delimited on the wire. */
export type BodyFraming =
  | { readonly kind: "length"; readonly length: number }
  | { readonly kind: "chunked" }
  | { readonly kind: "close" }
  | { readonly kind: "none" };

const REASONS: Record<number, string> = {
  100: "Continue",
  200: "OK",
  201: "Created",
  202: "Accepted",
  204: "No Content",
  304: "Not Modified",
  400: "Bad Request",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  408: "Request Timeout",
  409: "Conflict",
  411: "Length Required",
  413: "Content Too Large",
  414: "URI Too Long",
  415: "Unsupported Media Type",
  417: "Expectation Failed",
  431: "Request Header Fields Too Large",
  500: "Internal Server Error",
  501: "Not Implemented",
  503: "Service Unavailable",
  505: "HTTP Version Not Supported",
};

/** Hop-by-hop fields the serializer owns; a handler's values for them are dropped. */
const OWNED_FIELDS = new Set(["connection", "keep-alive", "transfer-encoding", "content-length"]);

const encoder = new TextEncoder();

/**
 * The status line and header section of a response, ending with the blank
 * line. `keepAlive10` announces a kept HTTP/1.0 connection, which 1.0 clients
 * need to see.
 */
export function serializeResponseHead(
  status: number,
  headers: Headers,
  framing: BodyFraming,
  options: { close: boolean; keepAlive10?: boolean; date?: string; statusText?: string },
): Uint8Array {
  const reason = options.statusText || REASONS[status] || "";
  let text = `HTTP/1.1 ${status} ${reason}\r\n`;
  let hasDate = false;
  // forEach, not for-of: Deno's Headers iterator costs ~1 µs more per response.
  headers.forEach((value, name) => {
    if (name === "date") hasDate = true;
    if (!OWNED_FIELDS.has(name)) text += `${name}: ${value}\r\n`;
  });
  if (options.date && !hasDate) text += `date: ${options.date}\r\n`;
  if (framing.kind === "length") text += `content-length: ${framing.length}\r\n`;
  if (framing.kind === "chunked") text += "transfer-encoding: chunked\r\n";
  if (options.close || framing.kind === "close") text += "connection: close\r\n";
  else if (options.keepAlive10) text += "connection: keep-alive\r\n";
  return encoder.encode(text + "\r\n");
}

/** One chunk of a chunked body (RFC 9112 §7.1); empty data would end the body, so it is refused. */
export function encodeChunk(data: Uint8Array): Uint8Array {
  if (data.length === 0) throw new RangeError("An empty chunk would end the body");
  const size = encoder.encode(`${data.length.toString(16)}\r\n`);
  const out = new Uint8Array(size.length + data.length + 2);
  out.set(size);
  out.set(data, size.length);
  out.set([CR, LF], size.length + data.length);
  return out;
}

/** The last chunk with no trailers. */
export const LAST_CHUNK: Uint8Array = encoder.encode("0\r\n\r\n");

/** The interim response that lets a client send the body it is holding back. */
export const CONTINUE_RESPONSE: Uint8Array = encoder.encode("HTTP/1.1 100 Continue\r\n\r\n");

/** Bodies up to this size are buffered and sent with Content-Length; longer ones are chunked. */
const BUFFERED_BODY_BYTES = 64 * 1024;

/**
 * Writes `response` for a request with `method`/`version`/`keepAlive`
 * through `write`. Returns whether the connection may carry another request.
 */
export async function writeResponse(
  response: Response,
  request: { method: string; version: "1.0" | "1.1"; keepAlive: boolean },
  write: (bytes: Uint8Array) => Promise<void>,
  options: { date?: string; clientGone?: Promise<void> } = {},
): Promise<boolean> {
  const status = response.status;
  const close = !request.keepAlive;
  const head = (framing: BodyFraming) =>
    serializeResponseHead(status, response.headers, framing, {
      close,
      keepAlive10: request.version === "1.0",
      date: options.date,
      statusText: response.statusText,
    });
  const text = status === 204 || status === 304 ? undefined : builtText(response);
  if (text !== undefined) {
    const body = encoder.encode(text);
    const bytes = head({ kind: "length", length: body.length });
    await write(request.method === "HEAD" ? bytes : concat([bytes, body]));
    return !close;
  }
  // A length the handler declared (a page sent from memory, or a HEAD answer's GET length).
  const declared = declaredLength(response);
  if (status === 204 || status === 304 || response.body === null) {
    await response.body?.cancel();
    const framing: BodyFraming = status === 204 || status === 304
      ? { kind: "none" }
      : { kind: "length", length: request.method === "HEAD" ? declared ?? 0 : 0 };
    await write(head(framing));
    return !close;
  }
  const reader = response.body.getReader();
  // The client left: cancel the body, so its producer releases what it holds (a stream slot).
  options.clientGone?.then(() => reader.cancel().catch(() => {}), () => {});
  if (declared !== null && !isEventStream(response)) {
    return await writeDeclared(reader, declared, request.method === "HEAD", head, write) &&
      !close;
  }
  const buffered: Uint8Array[] = [];
  let size = 0;
  let ended = false;
  // An event stream (D19) goes out as it comes: its head at once, then every chunk.
  const streaming = /^text\/event-stream\b/i.test(response.headers.get("content-type") ?? "");
  while (!streaming && size <= BUFFERED_BODY_BYTES) {
    const { done, value } = await reader.read();
    if (done) {
      ended = true;
      break;
    }
    buffered.push(value);
    size += value.length;
  }
  const sendBody = request.method !== "HEAD";
  if (ended) {
    // The reader is dropped, not released: nothing reads this body again (release cost 13%).
    const bytes = concat([head({ kind: "length", length: size }), ...(sendBody ? buffered : [])]);
    await write(bytes);
    return !close;
  }
  if (!sendBody) {
    await reader.cancel();
    await write(head({ kind: "none" }));
    return !close;
  }
  const chunked = request.version === "1.1";
  const send = (data: Uint8Array) => write(chunked ? encodeChunk(data) : data);
  try {
    await write(head(chunked ? { kind: "chunked" } : { kind: "close" }));
    if (size > 0) await send(concat(buffered));
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (value.length > 0) await send(value);
    }
  } catch (error) {
    // The peer is gone (or the body failed): cancel the body so its producer stops and
    // releases what it holds (a stream slot, a waiter), then let the connection close.
    await reader.cancel(error).catch(() => {});
    throw error;
  }
  if (chunked) await write(LAST_CHUNK);
  return chunked && !close;
}

/** A handler's `content-length`, when it is one non-negative integer. */
function declaredLength(response: Response): number | null {
  const value = response.headers.get("content-length");
  if (value === null || !/^\d{1,15}$/.test(value)) return null;
  return Number(value);
}

/**
 * Sends a body of a declared length as it comes, without chunk framing or
 * copies (a large page is already in memory). A body that turns out longer
 * or shorter than declared fails the write, which closes the connection: the
 * client sees a truncated answer, never a wrong one.
 */
async function writeDeclared(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  length: number,
  headOnly: boolean,
  head: (framing: BodyFraming) => Uint8Array,
  write: (bytes: Uint8Array) => Promise<void>,
): Promise<boolean> {
  const headBytes = head({ kind: "length", length });
  if (headOnly) {
    await reader.cancel();
    await write(headBytes);
    return true;
  }
  let sent = 0;
  let headSent = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (value.length === 0) continue;
      sent += value.length;
      if (sent > length) throw new Error("The body is longer than its content-length");
      await write(headSent ? value : concat([headBytes, value]));
      headSent = true;
    }
    if (!headSent) await write(headBytes);
    if (sent !== length) throw new Error("The body is shorter than its content-length");
  } catch (error) {
    await reader.cancel(error).catch(() => {});
    throw error;
  }
  return true;
}

/** A byte stream the connection loop reads requests from and writes responses to. */
export interface ByteDuplex {
  /** Reads into `into`: the byte count, or `null` at end of stream, on error or when cancelled. */
  read(into: Uint8Array): Promise<number | null>;
  /** Writes all of `bytes`; rejects when the peer is gone. */
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
  /** Fields every refusal of the framing itself carries (the daemon's `Svc-Instance`, D5). */
  responseHeaders?: Record<string, string>;
}

/**
 * Serves requests from `conn` until the client closes, asks to close, sends
 * something unframeable (answered with its 4xx first), idles past the read
 * timeout, or the server is stopping. Never throws; the caller closes `conn`.
 */
export async function serveHttp1Connection(
  conn: ByteDuplex,
  handler: (req: Request) => Promise<Response>,
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
  let continued: RequestHead | null = null;
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
      const response = await handler(request).catch(internalError);
      if (head.bodySkipped) {
        await writeResponse(response, { ...head, keepAlive: false }, write, { date: date() });
        await drain(conn, buffer);
        return;
      }
      const streaming = isEventStream(response);
      // A stream ends its connection (its reads below may have taken bytes of a next request).
      const keepAlive = head.keepAlive && !isStopping() && !streaming;
      const reusable = await writeResponse(response, { ...head, keepAlive }, write, {
        date: date(),
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

function isEventStream(response: Response): boolean {
  return /^text\/event-stream\b/i.test(response.headers.get("content-type") ?? "");
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
 * The `Request` the handler sees, the body only when there is one. Its URL
 * is on the authority an absolute-form target named, else on the `Host`
 * field (the TCP policy compares the two, D14/D23), else on `localhost`.
 */
export function toRequest(head: RequestHead, body: Uint8Array<ArrayBuffer>): Request {
  const bodyAllowed = head.method !== "GET" && head.method !== "HEAD";
  const host = head.headers.find(([name]) => name.toLowerCase() === "host")?.[1] ?? null;
  if (host !== null && !URL.canParse(`http://${host}/`)) {
    throw new Error(`Host "${host.slice(0, 80)}" is not a valid authority`);
  }
  const authority = head.authority ?? host ?? "localhost";
  return new Request(`http://${authority}${head.target}`, {
    method: head.method,
    // The field pairs as they are: a Headers built here would be copied again by Request.
    headers: head.headers as Array<[string, string]>,
    body: bodyAllowed && body.length > 0 ? body : null,
  });
}

/** The complete response (D6 envelope, `connection: close`) for a refused request. */
export function framingErrorResponse(
  error: FramingError,
  date?: string,
  extraHeaders: Record<string, string> = {},
): Uint8Array {
  const body = encoder.encode(JSON.stringify({
    error: { code: error.code, message: error.message, details: error.details },
  }));
  const headers = new Headers({
    ...extraHeaders,
    "content-type": "application/json; charset=utf-8",
  });
  return concat([
    serializeResponseHead(error.status, headers, { kind: "length", length: body.length }, {
      close: true,
      date,
    }),
    body,
  ]);
}

/**
 * Where the head's final CRLFCRLF starts (-1 if not yet received), and
 * whether the bytes before it are all ASCII; throws on a bare CR or LF or a NUL.
 */
function indexOfHeadEnd(bytes: Uint8Array, from: number): { end: number; ascii: boolean } {
  let high = 0;
  for (let i = from; i < bytes.length; i++) {
    const byte = bytes[i];
    high |= byte;
    if (byte === LF && (i === from || bytes[i - 1] !== CR)) {
      throw badRequest("Request head holds a bare LF: lines must end with CRLF");
    }
    if (byte === CR) {
      if (i + 1 < bytes.length && bytes[i + 1] !== LF) {
        throw badRequest("Request head holds a bare CR");
      }
      if (bytes[i + 1] === LF && bytes[i + 2] === CR && bytes[i + 3] === LF) {
        return { end: i, ascii: high < 0x80 };
      }
    }
    if (byte === 0) throw badRequest("Request head holds a NUL");
  }
  return { end: -1, ascii: false };
}

function indexOfCrlf(bytes: Uint8Array, from: number): number {
  for (let i = from; i + 1 < bytes.length; i++) {
    if (bytes[i] === CR && bytes[i + 1] === LF) return i;
  }
  return -1;
}

/** Decodes an all-ASCII head (where every single-byte decoder agrees) natively, 10× faster. */
const asciiDecoder = new TextDecoder("latin1");

/** Header bytes as ISO-8859-1 text, one character per byte (not WHATWG "latin1", which is cp1252). */
function latin1(bytes: Uint8Array): string {
  let text = "";
  for (let i = 0; i < bytes.length; i += 8192) {
    text += String.fromCharCode(...bytes.subarray(i, i + 8192));
  }
  return text;
}

function concat(parts: Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0];
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
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
