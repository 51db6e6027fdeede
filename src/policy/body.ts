import { invalidRequest, ServiceError } from "../errors.ts";

import type { Peer } from "./peer.ts";

/** Largest request body accepted on any route (D6). */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * Largest request body read from a TCP peer (issue 28): TCP can only call
 * the diagnostic actions (D23), whose bodies are small, and every local user
 * can open TCP connections, so each may hold at most this much.
 */
export const TCP_MAX_BODY_BYTES = 64 * 1024;

/** The body bound for requests from `peer`. */
export function maxBodyBytes(peer: Peer): number {
  return peer.owner ? MAX_BODY_BYTES : TCP_MAX_BODY_BYTES;
}

/**
 * True when the request's headers announce a body (RFC 9112 §6: a length
 * above 0, or a transfer coding). A bare `curl -X POST` has none.
 */
export function hasBody(req: Request): boolean {
  const length = req.headers.get("content-length");
  if (length !== null) return Number(length) > 0;
  return req.headers.has("transfer-encoding");
}

/**
 * D14 and D6 for every transport: a body must be `application/json` (415)
 * and at most `maxBytes` (413; see `maxBodyBytes`). Checked before the
 * route reads anything.
 */
export function checkBodyHeaders(req: Request, maxBytes = MAX_BODY_BYTES): void {
  if (!hasBody(req)) return;
  const type = (req.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
  if (type !== "application/json") {
    throw new ServiceError(
      "unsupported_media_type",
      415,
      `Content type "${type || "(none)"}" is not accepted: send application/json`,
    );
  }
  const length = Number(req.headers.get("content-length") ?? "0");
  if (length > maxBytes) throw tooLarge(maxBytes);
}

/**
 * Reads a JSON body, enforcing the byte bound while streaming (a chunked
 * body has no length to check up front). An absent body reads as `{}`.
 */
export async function readJsonBody(req: Request, maxBytes = MAX_BODY_BYTES): Promise<unknown> {
  if (req.body === null) return {};
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = req.body.getReader();
  for (;;) {
    let chunk: ReadableStreamReadResult<Uint8Array>;
    try {
      chunk = await reader.read();
    } catch {
      throw invalidRequest("Request body ended before its declared length or is malformed");
    }
    const { done, value } = chunk;
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  if (total === 0) return {};
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw invalidRequest("Request body is not valid UTF-8");
  }
  try {
    return JSON.parse(text);
  } catch {
    throw invalidRequest("Request body is not valid JSON");
  }
}

function tooLarge(maxBytes = MAX_BODY_BYTES): ServiceError {
  return new ServiceError(
    "payload_too_large",
    413,
    `Request body exceeds ${maxBytes} bytes`,
    { limit: maxBytes },
  );
}
