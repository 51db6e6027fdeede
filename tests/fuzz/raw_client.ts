/**
 * A raw HTTP/1.1 client over the daemon's Unix socket for fault and fuzz
 * tests: sends exact bytes (malformed on purpose), optionally slowly, and
 * gives up after a deadline so a hung request fails the test instead of
 * hanging it.
 */

/** What came back: `status` 0 when the daemon closed the connection without a status line. */
export interface RawReply {
  status: number;
  headers: Headers;
  text: string;
  body: unknown;
  /**
   * Milliseconds from the first byte sent to the end of the reply: information for
   * messages only. No test compares it to a bound (speed is for `deno task bench`).
   */
  elapsedMs: number;
}

/** Thrown when the daemon did not answer within the deadline. */
export class ReplyTimeout extends Error {
  constructor(readonly ms: number, readonly request: string) {
    super(`No reply within ${ms} ms to ${JSON.stringify(request.slice(0, 300))}`);
    this.name = "ReplyTimeout";
  }
}

/** How to send the bytes. */
export interface SendOptions {
  /** Give up (and throw `ReplyTimeout`) after this long. */
  timeoutMs?: number;
  /** Write in pieces of this many bytes, pausing `pauseMs` between them (slowloris). */
  pieceBytes?: number;
  pauseMs?: number;
  /** Half-close the write side after sending (the daemon sees EOF). */
  closeWrite?: boolean;
}

const encoder = new TextEncoder();

/** Sends `request` on a fresh connection to `socket` and reads the reply until the daemon closes. */
export async function sendRaw(
  socket: string,
  request: string | Uint8Array,
  options: SendOptions = {},
): Promise<RawReply> {
  const { timeoutMs = 10_000, pieceBytes = 0, pauseMs = 0, closeWrite = false } = options;
  const bytes = typeof request === "string" ? encoder.encode(request) : request;
  const started = performance.now();
  const conn = await Deno.connect({ transport: "unix", path: socket });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    try {
      conn.close();
    } catch { /* already closed */ }
  }, timeoutMs);
  const chunks: Uint8Array[] = [];
  try {
    try {
      const step = pieceBytes > 0 ? pieceBytes : bytes.length;
      for (let offset = 0; offset < bytes.length; offset += step) {
        await writeAll(conn, bytes.subarray(offset, offset + step));
        if (pauseMs > 0 && offset + step < bytes.length) await delay(pauseMs);
      }
      if (closeWrite) await conn.closeWrite();
    } catch {
      // The daemon may answer (413, 400) and close before the whole request is sent.
    }
    const buffer = new Uint8Array(65536);
    for (;;) {
      const n = await conn.read(buffer).catch(() => null);
      if (n === null) break;
      chunks.push(buffer.slice(0, n));
    }
  } finally {
    clearTimeout(timer);
    try {
      conn.close();
    } catch { /* closed by peer or by the timer */ }
  }
  if (timedOut) {
    throw new ReplyTimeout(timeoutMs, new TextDecoder().decode(bytes.subarray(0, 400)));
  }
  return { ...parseReply(concat(chunks)), elapsedMs: performance.now() - started };
}

/** A request text with `Connection: close` and, for a string body, its Content-Length. */
export function request(
  method: string,
  path: string,
  { headers = {}, body }: { headers?: Record<string, string>; body?: string | Uint8Array } = {},
): Uint8Array {
  const lines = [`${method} ${path} HTTP/1.1`, "Host: localhost", "Connection: close"];
  const bodyBytes = typeof body === "string" ? encoder.encode(body) : body;
  const hasType = Object.keys(headers).some((name) => name.toLowerCase() === "content-type");
  if (bodyBytes !== undefined && !hasType) lines.push("Content-Type: application/json");
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  const hasLength = Object.keys(headers).some((name) =>
    ["content-length", "transfer-encoding"].includes(name.toLowerCase())
  );
  if (bodyBytes !== undefined && !hasLength) lines.push(`Content-Length: ${bodyBytes.length}`);
  return concat([encoder.encode(lines.join("\r\n") + "\r\n\r\n"), bodyBytes ?? new Uint8Array()]);
}

/** POSTs a JSON body (any value, already serialised or not) and returns the reply. */
export function postJson(
  socket: string,
  path: string,
  body: unknown,
  options: SendOptions = {},
): Promise<RawReply> {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  return sendRaw(socket, request("POST", path, { body: text }), options);
}

/** GETs a path and returns the reply. */
export function get(socket: string, path: string, options: SendOptions = {}): Promise<RawReply> {
  return sendRaw(socket, request("GET", path), options);
}

/** True when the daemon answers `GET /health` 200 within `timeoutMs`. */
export async function healthy(socket: string, timeoutMs = 5000): Promise<boolean> {
  try {
    return (await get(socket, "/api/v1/health", { timeoutMs })).status === 200;
  } catch {
    return false;
  }
}

/** Sleeps `ms` milliseconds. */
export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < bytes.length) offset += await conn.write(bytes.subarray(offset));
}

/**
 * Parses the first final response in `raw`: interim 1xx responses (to
 * `Expect: 100-continue`) are skipped, and the body is cut by its framing
 * (a response to a pipelined second request may follow it).
 */
function parseReply(raw: Uint8Array): Omit<RawReply, "elapsedMs"> {
  const crlf2 = encoder.encode("\r\n\r\n");
  let offset = 0;
  for (;;) {
    const headEnd = indexOf(raw, crlf2, offset);
    const headers = new Headers();
    if (headEnd < 0) {
      return {
        status: 0,
        headers,
        text: new TextDecoder().decode(raw.subarray(offset)),
        body: null,
      };
    }
    const [statusLine, ...headerLines] = new TextDecoder().decode(raw.subarray(offset, headEnd))
      .split("\r\n");
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0);
    if (status >= 100 && status < 200) {
      offset = headEnd + 4;
      continue;
    }
    for (const line of headerLines) {
      const colon = line.indexOf(":");
      if (colon > 0) headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
    }
    let bodyBytes = raw.subarray(headEnd + 4);
    const length = headers.get("content-length");
    if (headers.get("transfer-encoding")?.toLowerCase() === "chunked") {
      bodyBytes = dechunk(bodyBytes);
    } else if (length !== null && Number(length) <= bodyBytes.length) {
      bodyBytes = bodyBytes.subarray(0, Number(length));
    }
    const text = new TextDecoder().decode(bodyBytes);
    let body: unknown = null;
    try {
      body = JSON.parse(text);
    } catch { /* not JSON */ }
    return { status, headers, text, body };
  }
}

function concat(chunks: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}

function indexOf(bytes: Uint8Array, marker: Uint8Array, from = 0): number {
  outer: for (let i = from; i + marker.length <= bytes.length; i++) {
    for (let j = 0; j < marker.length; j++) if (bytes[i + j] !== marker[j]) continue outer;
    return i;
  }
  return -1;
}

function dechunk(bytes: Uint8Array): Uint8Array {
  const parts: Uint8Array[] = [];
  const crlf = encoder.encode("\r\n");
  let offset = 0;
  for (;;) {
    const lineEnd = indexOf(bytes, crlf, offset);
    if (lineEnd < 0) break;
    const size = parseInt(new TextDecoder().decode(bytes.subarray(offset, lineEnd)), 16);
    if (!size) break;
    parts.push(bytes.subarray(lineEnd + 2, lineEnd + 2 + size));
    offset = lineEnd + 2 + size + 2;
  }
  return concat(parts);
}
