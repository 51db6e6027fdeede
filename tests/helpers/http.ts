/** Sends raw HTTP/1.1 text over a connection and returns status, headers and JSON body. */
export async function rawHttp(
  connect: Deno.ConnectOptions | Deno.UnixConnectOptions,
  request: string | Uint8Array,
): Promise<{ status: number; headers: Headers; body: unknown; text: string }> {
  const conn = "transport" in connect && connect.transport === "unix"
    ? await Deno.connect(connect as Deno.UnixConnectOptions)
    : await Deno.connect(connect as Deno.ConnectOptions);
  try {
    const bytes = typeof request === "string" ? new TextEncoder().encode(request) : request;
    let offset = 0;
    while (offset < bytes.length) offset += await conn.write(bytes.subarray(offset));
    const chunks: Uint8Array[] = [];
    const buffer = new Uint8Array(65536);
    for (;;) {
      const n = await conn.read(buffer).catch(() => null);
      if (n === null) break;
      chunks.push(buffer.slice(0, n));
    }
    const raw = concat(chunks);
    const headEnd = indexOf(raw, "\r\n\r\n");
    const head = new TextDecoder().decode(raw.subarray(0, headEnd));
    const [statusLine, ...headerLines] = head.split("\r\n");
    const headers = new Headers();
    for (const line of headerLines) {
      const colon = line.indexOf(":");
      headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
    }
    let bodyBytes = raw.subarray(headEnd + 4);
    if (headers.get("transfer-encoding") === "chunked") bodyBytes = dechunk(bodyBytes);
    const text = new TextDecoder().decode(bodyBytes);
    let body: unknown = null;
    try {
      body = JSON.parse(text);
    } catch { /* not JSON */ }
    return { status: Number(statusLine.split(" ")[1]), headers, body, text };
  } finally {
    try {
      conn.close();
    } catch { /* closed by peer */ }
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

function indexOf(bytes: Uint8Array, marker: string): number {
  const m = new TextEncoder().encode(marker);
  outer: for (let i = 0; i + m.length <= bytes.length; i++) {
    for (let j = 0; j < m.length; j++) if (bytes[i + j] !== m[j]) continue outer;
    return i;
  }
  return bytes.length;
}

function dechunk(bytes: Uint8Array): Uint8Array {
  const parts: Uint8Array[] = [];
  let rest = bytes;
  for (;;) {
    const lineEnd = indexOf(rest, "\r\n");
    if (lineEnd >= rest.length) break;
    const size = parseInt(new TextDecoder().decode(rest.subarray(0, lineEnd)), 16);
    if (!size) break;
    parts.push(rest.subarray(lineEnd + 2, lineEnd + 2 + size));
    rest = rest.subarray(lineEnd + 2 + size + 2);
  }
  return concat(parts);
}

/** A request text with `Connection: close`, a JSON body when given. */
export function httpRequest(
  method: string,
  path: string,
  { host = "localhost", headers = {}, body }: {
    host?: string;
    headers?: Record<string, string>;
    body?: string;
  } = {},
): string {
  const lines = [`${method} ${path} HTTP/1.1`, `Host: ${host}`, "Connection: close"];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  if (body !== undefined) lines.push(`Content-Length: ${new TextEncoder().encode(body).length}`);
  return lines.join("\r\n") + "\r\n\r\n" + (body ?? "");
}
