/**
 * A minimal HTTP/1.1 keep-alive client over one Unix-socket connection, for the
 * benchmarks only. A raw `Deno.connect` client is the fastest for tiny responses
 * (deno-notes: node:http clients saturate first and measure themselves). One
 * request in flight per connection; `Content-Length` and chunked bodies.
 */

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const CRLF_CRLF = [13, 10, 13, 10];
/** `content-length:` in lower case; `| 0x20` lower-cases letters and keeps "-" and ":". */
const CONTENT_LENGTH = Array.from("content-length:", (char) => char.charCodeAt(0));
/** Longest wait for one response (long-polls in the bench ask for at most 5 s). */
const REQUEST_TIMEOUT_MS = 60_000;
/** Longest response head accepted. */
const MAX_HEAD_BYTES = 64 * 1024;

/** A response: status, lower-cased headers and the raw body. */
export interface BenchResponse {
  status: number;
  headers: Map<string, string>;
  body: Uint8Array;
}

/** One keep-alive connection to an HTTP server on a Unix socket. */
export class UnixHttpClient {
  readonly #conn: Deno.UnixConn;
  #buffer = new Uint8Array(64 * 1024);
  #start = 0;
  #end = 0;

  private constructor(conn: Deno.UnixConn) {
    this.#conn = conn;
  }

  /** Connects to the socket at `path`. */
  static async connect(path: string): Promise<UnixHttpClient> {
    return new UnixHttpClient(await Deno.connect({ transport: "unix", path }));
  }

  /**
   * Sends one request and reads its whole response. A server that has not
   * answered within `timeoutMs` gets its connection closed: every wait is bounded.
   */
  async request(
    method: string,
    path: string,
    body?: string,
    timeoutMs = REQUEST_TIMEOUT_MS,
  ): Promise<BenchResponse> {
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      this.close();
    }, timeoutMs);
    try {
      return await this.#exchange(method, path, body);
    } catch (error) {
      if (timedOut) throw new Error(`${method} ${path} had no answer within ${timeoutMs} ms`);
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  async #exchange(method: string, path: string, body?: string): Promise<BenchResponse> {
    const bytes = body === undefined ? null : encoder.encode(body);
    const head = `${method} ${path} HTTP/1.1\r\nhost: localhost\r\n` +
      (bytes === null
        ? (method === "GET" ? "" : "content-length: 0\r\n")
        : `content-type: application/json\r\ncontent-length: ${bytes.length}\r\n`) +
      "\r\n";
    await this.#writeAll(encoder.encode(head));
    if (bytes !== null) await this.#writeAll(bytes);
    return await this.readResponse();
  }

  /** Sends a request and parses the JSON body; throws on a non-2xx status. */
  async json<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await this.request(
      method,
      path,
      body === undefined ? undefined : JSON.stringify(body),
    );
    const text = decoder.decode(response.body);
    if (response.status < 200 || response.status >= 300) {
      throw new Error(`${method} ${path} answered ${response.status}: ${text.slice(0, 500)}`);
    }
    return JSON.parse(text) as T;
  }

  /** Writes pre-encoded request bytes (the load generator reuses one buffer). */
  async writeRaw(bytes: Uint8Array): Promise<void> {
    await this.#writeAll(bytes);
  }

  /** Reads one response from the connection. */
  async readResponse(): Promise<BenchResponse> {
    const headEnd = await this.#fill(() => this.#find(CRLF_CRLF));
    const headText = decoder.decode(this.#buffer.subarray(this.#start, headEnd));
    this.#start = headEnd + 4;
    const lines = headText.split("\r\n");
    const status = Number(lines[0].split(" ")[1]);
    const headers = new Map<string, string>();
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(":");
      if (colon > 0) headers.set(line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim());
    }
    const length = headers.get("content-length");
    if (length !== undefined) return { status, headers, body: await this.#take(Number(length)) };
    if (headers.get("transfer-encoding")?.toLowerCase() === "chunked") {
      return { status, headers, body: await this.#readChunked() };
    }
    throw new Error(`Response without a length (status ${status})`);
  }

  /**
   * Reads one `Content-Length` response and drops its body, returning the
   * status: the load generator's hot path, with no string or header map.
   */
  async skipResponse(): Promise<number> {
    const headEnd = await this.#fill(() => this.#find(CRLF_CRLF));
    const buffer = this.#buffer;
    const status = (buffer[this.#start + 9] - 48) * 100 + (buffer[this.#start + 10] - 48) * 10 +
      (buffer[this.#start + 11] - 48);
    const at = this.#findLength(this.#start, headEnd);
    if (at < 0) throw new Error(`Response without a content-length (status ${status})`);
    let length = 0;
    for (let i = at; i < headEnd; i++) {
      const digit = buffer[i];
      if (digit === 32) continue;
      if (digit < 48 || digit > 57) break;
      length = length * 10 + digit - 48;
    }
    this.#start = headEnd + 4;
    while (this.#end - this.#start < length) await this.#readMore(length);
    this.#start += length;
    return status;
  }

  /** Index just after `content-length:` (any case) within [from, to), or -1. */
  #findLength(from: number, to: number): number {
    const buffer = this.#buffer;
    const name = CONTENT_LENGTH;
    outer: for (let i = from; i <= to - name.length; i++) {
      for (let j = 0; j < name.length; j++) {
        if ((buffer[i + j] | 0x20) !== name[j]) continue outer;
      }
      return i + name.length;
    }
    return -1;
  }

  /** Closes the connection. */
  close(): void {
    try {
      this.#conn.close();
    } catch { /* already closed */ }
  }

  async #readChunked(): Promise<Uint8Array> {
    const parts: Uint8Array[] = [];
    for (;;) {
      const lineEnd = await this.#fill(() => this.#find([13, 10]));
      const size = parseInt(decoder.decode(this.#buffer.subarray(this.#start, lineEnd)), 16);
      this.#start = lineEnd + 2;
      if (!Number.isFinite(size)) throw new Error("Malformed chunk size");
      if (size === 0) {
        await this.#take(2);
        break;
      }
      parts.push(await this.#take(size));
      await this.#take(2);
    }
    const body = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
    let offset = 0;
    for (const part of parts) {
      body.set(part, offset);
      offset += part.length;
    }
    return body;
  }

  /** Reads until `found()` returns an index ≥ 0, and returns it. */
  async #fill(found: () => number): Promise<number> {
    for (;;) {
      const index = found();
      if (index >= 0) return index;
      if (this.#end - this.#start > MAX_HEAD_BYTES) throw new Error("Response head too large");
      await this.#readMore(0);
    }
  }

  /** Takes `length` body bytes (a copy, so the buffer can be reused). */
  async #take(length: number): Promise<Uint8Array> {
    while (this.#end - this.#start < length) await this.#readMore(length);
    const bytes = this.#buffer.slice(this.#start, this.#start + length);
    this.#start += length;
    return bytes;
  }

  /** Reads at least once more, keeping `wanted` bytes of room beyond what is buffered. */
  async #readMore(wanted: number): Promise<void> {
    const kept = this.#end - this.#start;
    if (kept === 0) this.#start = this.#end = 0;
    const need = Math.max(wanted - kept, 16 * 1024);
    if (this.#buffer.length - this.#end < need) {
      if (kept + need > this.#buffer.length) {
        const next = new Uint8Array(Math.max(this.#buffer.length * 2, kept + need));
        next.set(this.#buffer.subarray(this.#start, this.#end));
        this.#buffer = next;
      } else {
        this.#buffer.copyWithin(0, this.#start, this.#end);
      }
      this.#start = 0;
      this.#end = kept;
    }
    const read = await this.#conn.read(this.#buffer.subarray(this.#end));
    if (read === null) throw new Error("Connection closed by the server");
    this.#end += read;
  }

  #find(pattern: number[]): number {
    const buffer = this.#buffer;
    const last = this.#end - pattern.length;
    outer: for (let i = this.#start; i <= last; i++) {
      for (let j = 0; j < pattern.length; j++) {
        if (buffer[i + j] !== pattern[j]) continue outer;
      }
      return i;
    }
    return -1;
  }

  async #writeAll(bytes: Uint8Array): Promise<void> {
    let offset = 0;
    while (offset < bytes.length) offset += await this.#conn.write(bytes.subarray(offset));
  }
}

/** Opens a client, runs `fn`, closes the client. */
export async function withClient<T>(
  socket: string,
  fn: (client: UnixHttpClient) => Promise<T>,
): Promise<T> {
  const client = await UnixHttpClient.connect(socket);
  try {
    return await fn(client);
  } finally {
    client.close();
  }
}
