/** Why a call failed on the client side, before or instead of a daemon answer. */
export type ClientErrorCode =
  | "unreachable"
  | "instance_changed"
  | "response_too_large"
  | "api_mismatch"
  | "capability_missing"
  | "bad_response";

/** A client-side failure (no usable daemon answer). */
export class ClientError extends Error {
  readonly code: ClientErrorCode;
  constructor(code: ClientErrorCode, message: string) {
    super(message);
    this.name = "ClientError";
    this.code = code;
  }
}

/**
 * The daemon refused to open a stream (D19): its status and error envelope,
 * e.g. 404 `session_not_found` or 503 `too_many_streams`. A daemon answer,
 * so not a `ClientError`.
 */
export class StreamRefused extends Error {
  readonly status: number;
  /** The error envelope as the daemon sent it. */
  readonly body: unknown;
  /** `error.code` of the envelope, or null when the body is not one. */
  readonly code: string | null;
  constructor(status: number, body: unknown) {
    const error = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
    const code = typeof error?.code === "string" ? error.code : null;
    super(
      typeof error?.message === "string"
        ? error.message
        : `Cannot open the stream: the daemon answered ${status}`,
    );
    this.name = "StreamRefused";
    this.status = status;
    this.body = body;
    this.code = code;
  }
}
