/** The refusals and size bounds of svc's HTTP/1.1 framing (shared by parser and connection). */

/** Size bounds of one request. */
export interface Http1Limits {
  /** Request line plus header lines, in bytes (431 beyond); also a chunked body's trailers. */
  readonly maxHeadBytes: number;
  /** Request line alone (414 beyond). */
  readonly maxRequestLineBytes: number;
  /** Header field lines (431 beyond); also a chunked body's trailer fields. */
  readonly maxHeaderCount: number;
  /** Body bytes, declared or decoded (413 beyond; D6's 1 MiB by default). */
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

/** 400 `invalid_request`. */
export function badRequest(message: string): FramingError {
  return new FramingError(400, "invalid_request", message);
}

/** 501 for a method the daemon does not serve (methods are case-sensitive, RFC 9110 §9.1). */
export function methodNotImplemented(method: string): FramingError {
  return new FramingError(
    501,
    "not_implemented",
    `Method "${method.slice(0, 20)}" is not supported: use GET, HEAD, POST or DELETE`,
    { method: method.slice(0, 20) },
  );
}

/** The refusal of a connection beyond a server's cap (503, then close). */
export const TOO_MANY_CONNECTIONS = new FramingError(
  503,
  "too_many_connections",
  "The daemon is serving as many connections as it allows: retry shortly",
);
