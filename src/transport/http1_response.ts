/**
 * HTTP/1.1 responses on the wire (RFC 9112), for every transport: the status
 * line and fields, `Content-Length`, chunked or close-delimited bodies, HEAD
 * answers, and the complete refusal the framing sends for a bad request.
 */
import { type FramingError } from "./http1_errors.ts";
import { builtText } from "./text_body.ts";

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
const CRLF = [13, 10];

/** Fields every response of a server carries unless its handler set them (D5: `Svc-Instance`). */
export type ServerFields = Readonly<Record<string, string>>;

/** What the head says beyond the handler's status and fields. */
interface HeadOptions {
  close: boolean;
  keepAlive10?: boolean;
  date?: string;
  statusText?: string;
  fields?: ServerFields;
}

/**
 * The status line and header section of a response, ending with the blank
 * line. `keepAlive10` announces a kept HTTP/1.0 connection, which 1.0 clients
 * need to see; `fields` are added where the handler did not set them.
 */
export function serializeResponseHead(
  status: number,
  headers: Headers,
  framing: BodyFraming,
  options: HeadOptions,
): Uint8Array {
  return encoder.encode(responseHeadText(status, headers, framing, options));
}

/** `serializeResponseHead()` as text (ISO-8859-1 field values are sent UTF-8 encoded). */
function responseHeadText(
  status: number,
  headers: Headers,
  framing: BodyFraming,
  options: HeadOptions,
): string {
  const reason = options.statusText || REASONS[status] || "";
  const fields = options.fields;
  let text = `HTTP/1.1 ${status} ${reason}\r\n`;
  let hasDate = false;
  let own: string[] | undefined;
  // forEach, not for-of: Deno's Headers iterator costs ~1 µs more per response.
  headers.forEach((value, name) => {
    if (name === "date") hasDate = true;
    else if (fields !== undefined && Object.hasOwn(fields, name)) (own ??= []).push(name);
    if (!OWNED_FIELDS.has(name)) text += `${name}: ${value}\r\n`;
  });
  for (const name in fields) {
    if (!own?.includes(name)) text += `${name}: ${fields[name]}\r\n`;
  }
  if (options.date && !hasDate) text += `date: ${options.date}\r\n`;
  if (framing.kind === "length") text += `content-length: ${framing.length}\r\n`;
  if (framing.kind === "chunked") text += "transfer-encoding: chunked\r\n";
  if (options.close || framing.kind === "close") text += "connection: close\r\n";
  else if (options.keepAlive10) text += "connection: keep-alive\r\n";
  return text + "\r\n";
}

/** One chunk of a chunked body (RFC 9112 §7.1); empty data would end the body, so it is refused. */
export function encodeChunk(data: Uint8Array): Uint8Array {
  if (data.length === 0) throw new RangeError("An empty chunk would end the body");
  const size = encoder.encode(`${data.length.toString(16)}\r\n`);
  const out = new Uint8Array(size.length + data.length + 2);
  out.set(size);
  out.set(data, size.length);
  out.set(CRLF, size.length + data.length);
  return out;
}

/** The last chunk with no trailers. */
export const LAST_CHUNK: Uint8Array = encoder.encode("0\r\n\r\n");

/** The interim response that lets a client send the body it is holding back. */
export const CONTINUE_RESPONSE: Uint8Array = encoder.encode("HTTP/1.1 100 Continue\r\n\r\n");

/** Bodies up to this size are buffered and sent with Content-Length; longer ones are chunked. */
const BUFFERED_BODY_BYTES = 64 * 1024;

/** Room for a head at the start of a connection's scratch; the body is encoded after it. */
const SCRATCH_HEAD_BYTES = 4096;
/** Bodies of at most this many UTF-16 units (3 bytes each at most) are built in the scratch. */
const SCRATCH_TEXT_UNITS = 4096;
/** The size of `newResponseScratch()`'s buffer. */
const SCRATCH_BYTES = SCRATCH_HEAD_BYTES + 3 * SCRATCH_TEXT_UNITS;

/**
 * A connection's buffer for small answers built from text (issue 26):
 * head and body are encoded into it, in place, and written from it, where
 * two new arrays and their join cost 4.9 µs of a `/health` answer's ~25
 * (allocating a backing store is most of it). One per connection, made on
 * its first such answer; reused only once the write before has completed.
 */
export function newResponseScratch(): Uint8Array {
  return new Uint8Array(SCRATCH_BYTES);
}

/**
 * Writes `response` for a request with `method`/`version`/`keepAlive`
 * through `write`. Returns whether the connection may carry another request.
 */
export async function writeResponse(
  response: Response,
  request: { method: string; version: "1.0" | "1.1"; keepAlive: boolean },
  write: (bytes: Uint8Array) => Promise<void>,
  options: {
    date?: string;
    clientGone?: Promise<void>;
    fields?: ServerFields;
    /** The connection's `newResponseScratch()`, for small answers built from text. */
    scratch?: () => Uint8Array;
  } = {},
): Promise<boolean> {
  const status = response.status;
  const close = !request.keepAlive;
  const headOptions = {
    close,
    keepAlive10: request.version === "1.0",
    date: options.date,
    statusText: response.statusText,
    fields: options.fields,
  };
  const head = (framing: BodyFraming) =>
    serializeResponseHead(status, response.headers, framing, headOptions);
  const text = status === 204 || status === 304 ? undefined : builtText(response);
  if (
    text !== undefined && options.scratch && request.method !== "HEAD" &&
    text.length <= SCRATCH_TEXT_UNITS
  ) {
    const scratch = options.scratch();
    const length = encoder.encodeInto(text, scratch.subarray(SCRATCH_HEAD_BYTES)).written;
    const headText = responseHeadText(
      status,
      response.headers,
      { kind: "length", length },
      headOptions,
    );
    const encoded = encoder.encodeInto(headText, scratch.subarray(0, SCRATCH_HEAD_BYTES));
    if (encoded.read === headText.length) {
      scratch.copyWithin(encoded.written, SCRATCH_HEAD_BYTES, SCRATCH_HEAD_BYTES + length);
      await write(scratch.subarray(0, encoded.written + length));
      return !close;
    }
    // A head too large for the room: the general path below.
  }
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
    // A HEAD answer states the GET answer's length when the handler knows it, else none
    // (RFC 9110 §8.6: never a different one, such as 0).
    const framing: BodyFraming = status === 204 || status === 304
      ? { kind: "none" }
      : request.method === "HEAD"
      ? (declared === null ? { kind: "none" } : { kind: "length", length: declared })
      : { kind: "length", length: 0 };
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

/** The complete response (D6 envelope, `connection: close`) for a refused request. */
export function framingErrorResponse(
  error: FramingError,
  date?: string,
  fields: ServerFields = {},
): Uint8Array {
  const body = encoder.encode(JSON.stringify({
    error: { code: error.code, message: error.message, details: error.details },
  }));
  const headers = new Headers({ "content-type": "application/json; charset=utf-8" });
  return concat([
    serializeResponseHead(error.status, headers, { kind: "length", length: body.length }, {
      close: true,
      date,
      fields,
    }),
    body,
  ]);
}

/** Whether `response` is a Server-Sent Events stream (D19): it goes out as it comes. */
export function isEventStream(response: Response): boolean {
  return /^text\/event-stream\b/i.test(response.headers.get("content-type") ?? "");
}

/** Joins byte arrays (one part is returned as it is). */
export function concat(parts: Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0];
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
