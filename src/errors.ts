/**
 * The one typed error of svc. Code inside the daemon throws or returns a
 * `ServiceError`; only `api/app.ts` turns it into the contract's envelope
 * (C2.3) and an HTTP status (C7, D6).
 */
export class ServiceError extends Error {
  readonly code: string;
  readonly status: number;
  readonly details: Record<string, unknown>;
  /** Top-level members the response carries beside `error` (e.g. C4.3's `accepted`). */
  readonly extra: Record<string, unknown>;

  constructor(
    code: string,
    status: number,
    message: string,
    details: Record<string, unknown> = {},
    extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = "ServiceError";
    this.code = code;
    this.status = status;
    this.details = details;
    this.extra = extra;
  }
}

/** 400 `invalid_request`, naming the offending field when there is one. */
export function invalidRequest(message: string, field?: string): ServiceError {
  return new ServiceError("invalid_request", 400, message, field === undefined ? {} : { field });
}

/** 404 `session_not_found` (D6). */
export function sessionNotFound(sessionId: string): ServiceError {
  return new ServiceError("session_not_found", 404, `Session "${sessionId}" does not exist`, {
    sessionId,
  });
}

/** 403 `forbidden`: the request needs owner-local IPC or broke a TCP rule (C5, D14). */
export function forbidden(message: string): ServiceError {
  return new ServiceError("forbidden", 403, message);
}

/**
 * 503 `store_unavailable` (D24, issue 13): the store refuses writes (full
 * disk, read-only, lost), so nothing is acknowledged that would not last.
 */
export function storeUnavailable(details: Record<string, unknown> = {}): ServiceError {
  return new ServiceError(
    "store_unavailable",
    503,
    "The store cannot record this now (disk full, read-only or lost): nothing was done; " +
      "see svc logs and /health",
    details,
  );
}
