import { ServiceError } from "./errors.ts";
import { jsonResponse } from "./json.ts";
import type { Route } from "./route.ts";
import type { Peer } from "../policy/peer.ts";
import { checkTcpHeaders, requireOwner } from "../policy/access.ts";
import { checkBodyHeaders } from "../policy/body.ts";
import type { Logger } from "../log.ts";

/** The one transport-free handler that the socket, TCP and the pipe shim all call. */
export type Handler = (req: Request, peer: Peer) => Promise<Response>;

/** The route prefix of contract `svc.daemon.v1` (C1). */
export const API_PREFIX = "/api/v1";

interface CompiledRoute {
  readonly route: Route;
  readonly pattern: URLPattern;
}

/**
 * Builds the daemon's handler: transport policy first (D14), then routing,
 * owner-only routes, body rules, the handler, and finally the one error map
 * (C2.3, D6). Every response carries `Svc-Instance` (D5).
 */
export function createHandler(
  routes: readonly Route[],
  options: { instanceId: string; log: Logger },
): Handler {
  const compiled: CompiledRoute[] = routes.map((route) => ({
    route,
    pattern: new URLPattern({ pathname: API_PREFIX + route.path }),
  }));
  return async (req, peer) => {
    let response: Response;
    try {
      response = await dispatch(compiled, req, peer, options.log);
    } catch (error) {
      response = errorResponse(error, options.log, req);
    }
    response.headers.set("svc-instance", options.instanceId);
    return response;
  };
}

async function dispatch(
  routes: readonly CompiledRoute[],
  req: Request,
  peer: Peer,
  log: Logger,
): Promise<Response> {
  checkTcpHeaders(req, peer);
  const url = requestUrl(req);
  let pathMatched = false;
  for (const { route, pattern } of routes) {
    const match = pattern.exec({ pathname: url.pathname });
    if (!match) continue;
    pathMatched = true;
    if (route.method !== req.method) continue;
    try {
      if (route.ownerOnly) requireOwner(peer, route.ownerOnly);
      checkBodyHeaders(req);
      const params: Record<string, string> = {};
      for (const [key, value] of Object.entries(match.pathname.groups)) {
        if (value !== undefined) params[key] = decodePathSegment(value);
      }
      return await route.handler({ req, url, params, peer });
    } catch (error) {
      if (!route.failureShape) throw error;
      throw route.failureShape(asServiceError(error, log, req));
    }
  }
  if (pathMatched) {
    throw new ServiceError(
      "method_not_allowed",
      405,
      `Method ${req.method} is not allowed on "${url.pathname}"`,
    );
  }
  throw new ServiceError("not_found", 404, `No route for "${url.pathname}"`);
}

/** The request's URL; a Host that makes no URL is the client's error, not ours. */
function requestUrl(req: Request): URL {
  try {
    return new URL(req.url);
  } catch {
    throw new ServiceError(
      "invalid_request",
      400,
      "The request's Host or target is not a valid URL",
    );
  }
}

function decodePathSegment(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    throw new ServiceError("invalid_request", 400, `Path segment "${value}" is not valid`);
  }
}

/** The one place a thrown error becomes the envelope and a status. */
export function errorResponse(error: unknown, log: Logger, req?: Request): Response {
  const known = asServiceError(error, log, req);
  return jsonResponse(envelope(known), known.status);
}

/** A `ServiceError` as is; anything else is logged with its stack and becomes `internal_error`. */
function asServiceError(error: unknown, log: Logger, req?: Request): ServiceError {
  if (error instanceof ServiceError) return error;
  log.error("Unexpected error while handling a request", {
    method: req?.method,
    url: req?.url,
    error,
  });
  return new ServiceError("internal_error", 500, "The daemon hit an unexpected error");
}

/** The contract's error envelope (C2.3): `details` is always an object. */
export function envelope(error: ServiceError): {
  error: { code: string; message: string; details: Record<string, unknown> };
  [extra: string]: unknown;
} {
  return {
    ...error.extra,
    error: { code: error.code, message: error.message, details: error.details },
  };
}
