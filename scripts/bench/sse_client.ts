/**
 * A minimal Server-Sent Events reader over one Unix-socket connection, for the
 * benchmarks only: a raw `Deno.connect` request, the response head, chunked (or
 * close-delimited) body framing, then SSE frames. Each batch of frames comes
 * with the time its bytes were read, before any parsing, so that latency
 * figures do not include the reader's own work.
 */

const encoder = new TextEncoder();
const decoder = new TextDecoder();
/** Longest response head accepted. */
const MAX_HEAD_BYTES = 64 * 1024;

/** One SSE message: its `id` (null when absent), `event` name and `data` (lines joined by "\n"). */
export interface SseFrame {
  id: string | null;
  event: string;
  data: string;
}

/** An open stream whose response head has been read. */
export class SseConnection {
  readonly #conn: Deno.UnixConn;
  readonly status: number;
  readonly headers: Map<string, string>;
  #rest: Uint8Array;

  private constructor(
    conn: Deno.UnixConn,
    status: number,
    headers: Map<string, string>,
    rest: Uint8Array,
  ) {
    this.#conn = conn;
    this.status = status;
    this.headers = headers;
    this.#rest = rest;
  }

  /** Connects to `socket`, sends `GET path` with `headers`, and reads the response head. */
  static async open(
    socket: string,
    path: string,
    headers: Record<string, string> = {},
  ): Promise<SseConnection> {
    const conn = await Deno.connect({ transport: "unix", path: socket });
    try {
      const extra = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
      const request = `GET ${path} HTTP/1.1\r\nhost: localhost\r\naccept: text/event-stream\r\n` +
        `${extra.join("")}\r\n`;
      await writeAll(conn, encoder.encode(request));
      let buffer: Uint8Array = new Uint8Array(0);
      const chunk = new Uint8Array(16 * 1024);
      for (;;) {
        const end = indexOf(buffer, [13, 10, 13, 10], 0);
        if (end >= 0) {
          const lines = decoder.decode(buffer.subarray(0, end)).split("\r\n");
          const status = Number(lines[0].split(" ")[1]);
          const parsed = new Map<string, string>();
          for (const line of lines.slice(1)) {
            const colon = line.indexOf(":");
            if (colon > 0) {
              parsed.set(line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim());
            }
          }
          return new SseConnection(conn, status, parsed, buffer.slice(end + 4));
        }
        if (buffer.length > MAX_HEAD_BYTES) throw new Error("Response head too large");
        const read = await conn.read(chunk);
        if (read === null) throw new Error("Connection closed before the response head");
        buffer = concat(buffer, chunk.subarray(0, read));
      }
    } catch (error) {
      closeQuietly(conn);
      throw error;
    }
  }

  /**
   * Reads the body to its end (or until the connection is closed), calling
   * `onFrames` with the frames completed by each read and the wall time
   * (`performance.timeOrigin + now()`, ms) at which that read returned.
   * Comments (`: keep-alive`) are counted, not passed on.
   */
  async readAll(
    onFrames: (frames: SseFrame[], receivedAt: number) => void,
  ): Promise<{ comments: number }> {
    const chunked = this.headers.get("transfer-encoding")?.toLowerCase() === "chunked";
    const frames = new FrameParser();
    const body = chunked ? new Dechunker() : null;
    const text = new TextDecoder();
    const chunk = new Uint8Array(64 * 1024);
    let pending: Uint8Array | null = this.#rest;
    for (;;) {
      let bytes: Uint8Array;
      let receivedAt: number;
      if (pending !== null) {
        bytes = pending;
        pending = null;
        receivedAt = performance.timeOrigin + performance.now();
      } else {
        let read: number | null;
        try {
          read = await this.#conn.read(chunk);
        } catch {
          read = null; // Closed by `close()` or reset: the stream is over.
        }
        receivedAt = performance.timeOrigin + performance.now();
        if (read === null) break;
        bytes = chunk.subarray(0, read);
      }
      const payload = body === null ? [bytes] : body.push(bytes);
      for (const part of payload) {
        const completed = frames.push(text.decode(part, { stream: true }));
        if (completed.length > 0) onFrames(completed, receivedAt);
      }
      if (body?.finished) break;
    }
    return { comments: frames.comments };
  }

  /** Closes the connection (the client going away). */
  close(): void {
    closeQuietly(this.#conn);
  }
}

/** Undoes `transfer-encoding: chunked`, across reads. */
class Dechunker {
  #buffer: Uint8Array = new Uint8Array(0);
  /** Bytes left in the current chunk, or -1 while a size line is expected. */
  #left = -1;
  /** A chunk's trailing CRLF is still to be skipped. */
  #crlf = false;
  finished = false;

  push(bytes: Uint8Array): Uint8Array[] {
    this.#buffer = this.#buffer.length === 0 ? bytes : concat(this.#buffer, bytes);
    const out: Uint8Array[] = [];
    let at = 0;
    while (!this.finished) {
      if (this.#crlf) {
        if (this.#buffer.length - at < 2) break;
        at += 2;
        this.#crlf = false;
      } else if (this.#left < 0) {
        const end = indexOf(this.#buffer, [13, 10], at);
        if (end < 0) break;
        const size = parseInt(decoder.decode(this.#buffer.subarray(at, end)), 16);
        if (!Number.isFinite(size)) throw new Error("Malformed chunk size");
        at = end + 2;
        if (size === 0) this.finished = true;
        else this.#left = size;
      } else {
        const take = Math.min(this.#left, this.#buffer.length - at);
        if (take === 0) break;
        out.push(this.#buffer.subarray(at, at + take));
        at += take;
        this.#left -= take;
        if (this.#left === 0) {
          this.#left = -1;
          this.#crlf = true;
        }
      }
    }
    // Copy what is kept: the caller's read buffer is reused.
    this.#buffer = this.#buffer.slice(at);
    return out;
  }
}

/** Splits decoded text into SSE frames at blank lines. */
class FrameParser {
  #text = "";
  comments = 0;

  push(text: string): SseFrame[] {
    this.#text += text;
    const frames: SseFrame[] = [];
    let start = 0;
    for (;;) {
      const end = this.#text.indexOf("\n\n", start);
      if (end < 0) break;
      const frame: SseFrame = { id: null, event: "message", data: "" };
      let fields = 0;
      for (const line of this.#text.slice(start, end).split("\n")) {
        if (line.startsWith(":")) {
          this.comments++;
          continue;
        }
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? "" : line.slice(colon + (line[colon + 1] === " " ? 2 : 1));
        fields++;
        if (field === "id") frame.id = value;
        else if (field === "event") frame.event = value;
        else if (field === "data") {
          frame.data = frame.data === "" ? value : `${frame.data}\n${value}`;
        }
      }
      if (fields > 0) frames.push(frame);
      start = end + 2;
    }
    this.#text = this.#text.slice(start);
    return frames;
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

function indexOf(buffer: Uint8Array, pattern: number[], from: number): number {
  outer: for (let i = from; i <= buffer.length - pattern.length; i++) {
    for (let j = 0; j < pattern.length; j++) {
      if (buffer[i + j] !== pattern[j]) continue outer;
    }
    return i;
  }
  return -1;
}

async function writeAll(conn: Deno.UnixConn, bytes: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < bytes.length) offset += await conn.write(bytes.subarray(offset));
}

function closeQuietly(conn: Deno.UnixConn): void {
  try {
    conn.close();
  } catch { /* already closed */ }
}
