/**
 * HTTP/1.1 requests from a byte stream (RFC 9112), for every transport of
 * the daemon: the head parser, the body framing (`Content-Length` or
 * chunked) and the reader that turns received chunks into requests. Pure:
 * no I/O, so every rule is table-tested on every platform.
 *
 * Origin-form and absolute-form targets; lines must end in CRLF; obs-fold,
 * bare CR/LF, NUL, conflicting lengths, `Content-Length` with
 * `Transfer-Encoding`, and a `Host` that is not host[:port] are refused.
 */
import { ByteQueue, EMPTY } from "./byte_queue.ts";
import { ChunkedBodyDecoder } from "./http1_chunked.ts";
import {
  badRequest,
  DEFAULT_LIMITS,
  FramingError,
  type Http1Limits,
  methodNotImplemented,
} from "./http1_errors.ts";
import { parseFieldLine } from "./http1_field_line.ts";

/** A parsed request line and header section. */
export interface RequestHead {
  readonly method: string;
  /** Origin-form path and query, e.g. `/api/v1/health?x=1`. */
  readonly target: string;
  /** The host and port an absolute-form target named (`GET http://h:p/x`); null for origin-form. */
  readonly authority: string | null;
  /** The `Host` field's value (validated as host[:port]); null when absent (HTTP/1.0). */
  readonly host: string | null;
  readonly version: "1.0" | "1.1";
  /** Field lines in order, names as sent. */
  readonly headers: ReadonlyArray<readonly [string, string]>;
  /** The declared body length; 0 for a chunked body until it is decoded. */
  readonly contentLength: number;
  /** The body is chunked (RFC 9112 §7.1): its length is known once decoded. */
  readonly chunked: boolean;
  /** Whether the client allows another request on this connection. */
  readonly keepAlive: boolean;
  readonly expectContinue: boolean;
  /** The body was over `maxBodyBytes` and is not read (`skipOversizedBodies`). */
  readonly bodySkipped?: boolean;
}

/** A complete request: its head and its whole body (decoded when it was chunked). */
export interface ParsedRequest {
  readonly head: RequestHead;
  readonly body: Uint8Array<ArrayBuffer>;
}

const CR = 13;
const LF = 10;
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const VISIBLE_ASCII = /^[\x21-\x7e]+$/;
/**
 * `Host` = uri-host [ ":" port ] (RFC 9112 §3.2, RFC 3986 §3.2.2): an IP
 * literal or a reg-name; never `/`, `?`, `#` or `@`, which would let the
 * field pick the path of the URL the handler routes on.
 */
const HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._~!$&'()*+,;=%-]*)(?::[0-9]*)?$/;
/**
 * The methods handed to the handler. Methods are case-sensitive (RFC 9110
 * §9.1): `get` is not GET but an unknown method, and `Request` would
 * normalize it; TRACE and CONNECT are not served by this daemon.
 */
const SERVED_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"]);

/**
 * Parses the head at the start of `bytes` (leading empty lines skipped, RFC
 * 9112 §2.2). Returns `null` while the blank line that ends the head has not
 * arrived; throws `FramingError` for a head that can never be valid.
 */
export function parseRequestHead(
  bytes: Uint8Array,
  limits: Http1Limits = DEFAULT_LIMITS,
): { head: RequestHead; headLength: number } | null {
  const scan = new HeadScan();
  return scan.parse(bytes, limits);
}

/**
 * Finds the end of a head in bytes that grow between calls, resuming where
 * the last call stopped: a head that trickles in one byte at a time is
 * scanned once, not once per byte (issue 28: re-scanning made trickling
 * connections quadratic).
 */
class HeadScan {
  /** Where the head starts (after leading CRLFs) once known. */
  #start = -1;
  /** Bytes before this index were scanned. */
  #scanned = 0;
  /** OR of every scanned byte: below 0x80 means all ASCII. */
  #high = 0;
  /** End of the request line, once seen. */
  #firstLineEnd = -1;

  /** Starts over for the next request of the connection (no allocation per request). */
  reset(): void {
    this.#start = -1;
    this.#scanned = 0;
    this.#high = 0;
    this.#firstLineEnd = -1;
  }

  parse(
    bytes: Uint8Array,
    limits: Http1Limits,
  ): { head: RequestHead; headLength: number } | null {
    if (this.#start < 0) {
      // Empty lines before a request are skipped (RFC 9112 §2.2), within the head's bound.
      let start = this.#scanned;
      while (bytes[start] === CR && bytes[start + 1] === LF) start += 2;
      this.#scanned = start;
      if (start > limits.maxHeadBytes) {
        throw new FramingError(431, "headers_too_large", "Request header section is too large", {
          limit: limits.maxHeadBytes,
        });
      }
      // A lone CR at the end may start another CRLF: wait for the next byte.
      if (start >= bytes.length || (bytes[start] === CR && start + 1 >= bytes.length)) return null;
      this.#start = start;
    }
    const start = this.#start;
    const end = this.#scan(bytes);
    const requestLineBytes = (this.#firstLineEnd < 0 ? bytes.length : this.#firstLineEnd) - start;
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
    const text = this.#high < 0x80
      ? asciiDecoder.decode(bytes.subarray(start, end))
      : latin1(bytes.subarray(start, end));
    return { head: parseHeadLines(text.split("\r\n"), limits), headLength: end + 4 };
  }

  /**
   * Where the head's final CRLFCRLF starts (-1 if not yet received); throws
   * on a bare CR or LF or a NUL. Resumes three bytes back, so a CRLFCRLF
   * split across calls is found.
   */
  #scan(bytes: Uint8Array): number {
    const from = this.#start;
    for (let i = Math.max(from, this.#scanned - 3); i < bytes.length; i++) {
      const byte = bytes[i];
      if (i >= this.#scanned) this.#high |= byte;
      if (byte === LF && (i === from || bytes[i - 1] !== CR)) {
        throw badRequest("Request head holds a bare LF: lines must end with CRLF");
      }
      if (byte === CR) {
        if (i + 1 < bytes.length && bytes[i + 1] !== LF) {
          throw badRequest("Request head holds a bare CR");
        }
        if (bytes[i + 1] === LF && this.#firstLineEnd < 0) this.#firstLineEnd = i;
        if (bytes[i + 1] === LF && bytes[i + 2] === CR && bytes[i + 3] === LF) return i;
      }
      if (byte === 0) throw badRequest("Request head holds a NUL");
    }
    this.#scanned = bytes.length;
    return -1;
  }
}

/** The request line and field lines of a head, already split on CRLF. */
function parseHeadLines(lines: string[], limits: Http1Limits): RequestHead {
  const [requestLine, ...fieldLines] = lines;
  const parts = requestLine.split(" ");
  if (parts.length !== 3 || !TOKEN.test(parts[0])) {
    throw badRequest("Request line is not METHOD SP TARGET SP VERSION");
  }
  const [method, rawTarget, rawVersion] = parts;
  const version = parseVersion(rawVersion);
  if (!SERVED_METHODS.has(method)) throw methodNotImplemented(method);
  const { target, authority } = parseTarget(rawTarget);
  if (fieldLines.length > limits.maxHeaderCount) {
    throw new FramingError(431, "headers_too_large", "Request has too many header fields", {
      limit: limits.maxHeaderCount,
    });
  }
  const headers = fieldLines.map(parseFieldLine);
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

type FieldSemantics = Pick<
  RequestHead,
  "host" | "contentLength" | "chunked" | "keepAlive" | "expectContinue" | "bodySkipped"
>;

function fieldSemantics(
  headers: ReadonlyArray<readonly [string, string]>,
  version: "1.0" | "1.1",
  limits: Http1Limits,
): FieldSemantics {
  // One pass over the fields: only these five carry framing semantics.
  const hosts: string[] = [];
  const transferEncoding: string[] = [];
  const lengths: string[] = [];
  const connection: string[] = [];
  const expects: string[] = [];
  for (const [name, value] of headers) {
    switch (name.toLowerCase()) {
      case "host":
        hosts.push(value);
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
  if (version === "1.1" && hosts.length !== 1) {
    throw badRequest(hosts.length === 0 ? "Host header is missing" : "Host header is repeated");
  }
  if (hosts.length > 1) throw badRequest("Host header is repeated");
  const host = hosts[0] ?? null;
  if (host !== null && !HOST.test(host)) {
    throw badRequest(`Host "${host.slice(0, 80)}" is not a valid host[:port]`);
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
  const expectContinue = expect !== "" && version === "1.1";
  if (transferEncoding.length > 0) {
    return {
      host,
      ...chunkedFraming(transferEncoding, lengths, version),
      keepAlive,
      expectContinue,
    };
  }
  let contentLength = 0;
  if (lengths.length > 0) {
    if (!lengths.every((value) => /^\d+$/.test(value))) {
      throw badRequest("Content-Length is not one non-negative integer");
    }
    // Leading zeros carry no value: "0002" is 2 (issue 28), and "2, 02" agree.
    const digits = lengths.map((value) => value.replace(/^0+(?=\d)/, ""));
    if (new Set(digits).size !== 1) {
      throw badRequest("Content-Length is not one non-negative integer");
    }
    contentLength = digits[0].length > 15 ? Infinity : Number(digits[0]);
    if (contentLength > limits.maxBodyBytes) {
      if (limits.skipOversizedBodies) {
        return {
          host,
          contentLength,
          chunked: false,
          keepAlive: false,
          expectContinue: false,
          bodySkipped: true,
        };
      }
      throw tooLarge(limits);
    }
  }
  return { host, contentLength, chunked: false, keepAlive, expectContinue };
}

/** RFC 9112 §6.1/§6.3: `chunked` as the only and final coding, never with a length. */
function chunkedFraming(
  transferEncoding: string[],
  lengths: string[],
  version: "1.0" | "1.1",
): { contentLength: number; chunked: true } {
  if (lengths.length > 0) throw badRequest("Both Transfer-Encoding and Content-Length are set");
  // A 1.0 client cannot have meant a transfer coding (§6.1): the framing may be faulty.
  if (version === "1.0") throw badRequest("Transfer-Encoding is not defined for HTTP/1.0");
  const codings = transferEncoding.join(",").toLowerCase().split(",").map((c) => c.trim());
  if (codings[codings.length - 1] !== "chunked") {
    throw badRequest("Transfer-Encoding must end with chunked");
  }
  if (codings.length > 1) {
    throw new FramingError(501, "not_implemented", `Transfer coding "${codings.join(", ")}"`);
  }
  return { contentLength: 0, chunked: true };
}

/** 413 for a body over the limit. */
export function tooLarge(limits: Http1Limits): FramingError {
  return new FramingError(
    413,
    "payload_too_large",
    `Request body exceeds ${limits.maxBodyBytes} bytes`,
    { limit: limits.maxBodyBytes },
  );
}

/**
 * Turns a stream of chunks into requests, in order: bytes of a pipelined
 * next request stay buffered until it is asked for. Received bytes are
 * appended to one growing buffer (amortised, never re-copied per chunk) and
 * the head is scanned once, so a client that trickles a request costs time
 * in proportion to what it sends (issue 28, item 1).
 */
export class RequestReader {
  readonly #limits: Http1Limits;
  readonly #queue = new ByteQueue();
  readonly #scan = new HeadScan();
  #head: { head: RequestHead; headLength: number } | null = null;
  #chunked: ChunkedBodyDecoder | null = null;

  constructor(limits: Http1Limits = DEFAULT_LIMITS) {
    this.#limits = limits;
  }

  /**
   * Appends received bytes. `chunk` is used in place until `next()` returns
   * null (what is left is copied then), so the caller reads into it again
   * only after that: most requests arrive whole and are never copied.
   */
  push(chunk: Uint8Array<ArrayBuffer>): void {
    this.#queue.push(chunk);
  }

  /** Bytes received and not yet returned as part of a request. */
  get buffered(): number {
    return this.#queue.length;
  }

  /** The head of a request whose body is still arriving (for 100-continue). */
  get pendingHead(): RequestHead | null {
    return this.#head?.head ?? null;
  }

  /** The next complete request, or `null` until more bytes arrive. Throws `FramingError`. */
  next(): ParsedRequest | null {
    const request = this.#next();
    if (request === null) this.#queue.settle();
    return request;
  }

  #next(): ParsedRequest | null {
    if (this.#head === null) {
      this.#head = this.#scan.parse(this.#queue.view(), this.#limits);
      if (this.#head === null) return null;
      this.#queue.consume(this.#head.headLength);
      if (this.#head.head.chunked) this.#chunked = new ChunkedBodyDecoder(this.#limits);
    }
    const { head } = this.#head;
    if (head.bodySkipped) {
      // Nothing after the head is this connection's any more: it closes after the answer.
      this.#queue.clear();
      return this.#finish(head, EMPTY);
    }
    if (this.#chunked !== null) return this.#nextChunked(head, this.#chunked);
    if (this.#queue.length < head.contentLength) return null;
    return this.#finish(head, this.#queue.take(head.contentLength));
  }

  #nextChunked(head: RequestHead, decoder: ChunkedBodyDecoder): ParsedRequest | null {
    const consumed = decoder.feed(this.#queue.view());
    this.#queue.consume(consumed);
    if (decoder.oversized) {
      this.#queue.clear();
      // Handed on with the length announced so far, which its route refuses (as a declared one).
      const skipped = { ...head, contentLength: decoder.announced, keepAlive: false };
      return this.#finish({ ...skipped, bodySkipped: true }, EMPTY);
    }
    if (!decoder.done) return null;
    const body = decoder.body();
    return this.#finish({ ...head, contentLength: body.length }, body);
  }

  #finish(head: RequestHead, body: Uint8Array<ArrayBuffer>): ParsedRequest {
    this.#head = null;
    this.#chunked = null;
    this.#scan.reset();
    return { head, body };
  }
}

/**
 * The `Request` the handler sees, the body only when there is one. Its URL
 * is the request target on the authority an absolute-form target named,
 * else on the (validated) `Host` field (the TCP policy compares the two,
 * D14/D23), else on `localhost`. A decoded chunked body is handed on with
 * its length in place of the transfer coding (RFC 9112 §7.1.3).
 */
export function toRequest(head: RequestHead, body: Uint8Array<ArrayBuffer>): Request {
  const bodyAllowed = head.method !== "GET" && head.method !== "HEAD";
  const authority = head.authority ?? (head.host || "localhost");
  const url = `http://${authority}${head.target}`;
  try {
    // The fields are appended to the made request, and a GET is made without an init: converting
    // a RequestInit and its field pairs (WebIDL) cost 1.4 µs of a /health answer (issue 26).
    const request = bodyAllowed && body.length > 0
      ? new Request(url, { method: head.method, body })
      : head.method === "GET"
      ? new Request(url)
      : new Request(url, { method: head.method });
    const fields = request.headers;
    for (const [name, value] of head.headers) {
      if (!head.chunked || name.toLowerCase() !== "transfer-encoding") fields.append(name, value);
    }
    if (head.chunked) {
      fields.append("content-length", String(head.bodySkipped ? head.contentLength : body.length));
    }
    return request;
  } catch (error) {
    // The URL is parsed again only to name the failure: parsing it first cost every request.
    if (!URL.canParse(url)) {
      throw badRequest(`Host "${authority.slice(0, 80)}" is not a valid host`);
    }
    throw error;
  }
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
