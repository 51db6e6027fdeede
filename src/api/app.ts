import { ServiceError, storeUnavailable } from "../errors.ts";
import { isStoreFailure } from "../store/store_failure.ts";
import { jsonResponse } from "./json.ts";
import type { Route, RouteContext } from "./route.ts";
import type { Peer } from "../policy/peer.ts";
import { checkRouteAuthority, checkTcpHeaders } from "../policy/access.ts";
import { checkBodyHeaders, maxBodyBytes } from "../policy/body.ts";
import { builtText } from "../transport/text_body.ts";
import type { Logger } from "../log.ts";

/**
 * The one transport-free handler that the socket, TCP and the pipe shim all
 * call. `beforeBody` lets a transport refuse a request from its head alone,
 * before reading its body (D23: a TCP peer's mutation is 403 at once):
 * given the request without its body, it answers the refusal or null.
 */
export type Handler = ((req: Request, peer: Peer) => Response | Promise<Response>) & {
  readonly beforeBody?: (req: Request, peer: Peer) => Response | null;
};

/** The route prefix of contract `svc.daemon.v1` (C1). */
export const API_PREFIX = "/api/v1";

interface CompiledRoute {
  readonly route: Route;
  readonly pattern: URLPattern;
}

/** What routing found for a method and path. */
type RouteMatch =
  | { readonly route: Route; readonly params: Record<string, string> }
  | { readonly route: null; readonly allowed: readonly string[] };

/**
 * The route table compiled for matching: static paths in a map (one lookup,
 * and they win over a parameterised path that also matches), the others
 * through URLPattern in table order.
 */
class RouteTable {
  readonly #exact = new Map<string, Route[]>();
  /** A static route's match, made once: its params are always none. */
  readonly #exactMatch = new Map<Route, RouteMatch>();
  readonly #patterned: CompiledRoute[] = [];

  constructor(routes: readonly Route[]) {
    for (const route of routes) {
      const pathname = API_PREFIX + route.path;
      if (route.path.includes(":")) {
        this.#patterned.push({ route, pattern: new URLPattern({ pathname }) });
      } else {
        this.#exact.set(pathname, [...(this.#exact.get(pathname) ?? []), route]);
        this.#exactMatch.set(route, Object.freeze({ route, params: NO_PARAMS }));
      }
    }
  }

  /**
   * The route for `method` at `pathname`. A static path wins outright: its
   * methods are the only ones there (GET /sessions/restricted is 405, not
   * /sessions/:id). `allowed` lists the path's methods, for 405's `Allow`
   * (RFC 9110), HEAD wherever GET is.
   */
  match(method: string, pathname: string): RouteMatch {
    const exact = this.#exact.get(pathname);
    if (exact) {
      const route = exact.find((candidate) => candidate.method === method);
      return route ? this.#exactMatch.get(route)! : { route: null, allowed: allowedMethods(exact) };
    }
    const matched: Route[] = [];
    for (const { route, pattern } of this.#patterned) {
      const match = pattern.exec({ pathname });
      if (!match) continue;
      matched.push(route);
      if (route.method !== method) continue;
      const params: Record<string, string> = {};
      for (const [key, value] of Object.entries(match.pathname.groups)) {
        if (value !== undefined) params[key] = decodePathSegment(value);
      }
      return { route, params };
    }
    return { route: null, allowed: allowedMethods(matched) };
  }
}

const NO_PARAMS: Record<string, string> = Object.freeze({});

function allowedMethods(routes: readonly Route[]): string[] {
  const methods: string[] = [];
  for (const { method } of routes) {
    if (methods.includes(method)) continue;
    methods.push(method);
    if (method === "GET") methods.push("HEAD");
  }
  return methods;
}

/**
 * Builds the daemon's handler: transport policy first (D14), then routing,
 * owner-only routes, body rules, the handler, and finally the one error map
 * (C2.3, D6). `Svc-Instance` (D5) is added by the transports, which carry
 * it on every response they write, their own refusals included.
 */
export function createHandler(
  routes: readonly Route[],
  options: {
    log: Logger;
    /**
     * True once `svc.db` was deleted or replaced under the daemon (D24):
     * mutations get 503 (a route with `storeLostChecked` decides itself).
     */
    storeLost?: () => boolean;
  },
): Handler {
  const table = new RouteTable(routes);
  const fail = (error: unknown, req: Request) => {
    const response = errorResponse(error, options.log, req);
    return req.method === "HEAD" ? withoutBody(response) : response;
  };
  // Synchronous routes (health) answer without a promise hop; async ones are awaited.
  const handle = (req: Request, peer: Peer) => {
    let result: Response | Promise<Response>;
    try {
      result = dispatch(table, req, peer, options.log, options.storeLost ?? (() => false));
    } catch (error) {
      return fail(error, req);
    }
    return result instanceof Promise ? result.catch((error) => fail(error, req)) : result;
  };
  const beforeBody = (req: Request, peer: Peer): Response | null => {
    if (peer.owner || !refusedFromHead(table, req, peer)) return null;
    // What the handler answers a bodiless request that is refused before its body: at once.
    const answer = handle(req, peer);
    return answer instanceof Promise ? null : answer;
  };
  return Object.assign(handle, { beforeBody });
}

/**
 * Whether a TCP request is refused whatever its body holds (D23, D30): its
 * Host or Origin is not this listener, no route matches, or the route is
 * owner-only (for a paired device: beyond its scope). The action router needs the body (its id decides), so it reads
 * it, bounded by `maxBodyBytes`.
 */
function refusedFromHead(table: RouteTable, req: Request, peer: Peer): boolean {
  try {
    checkTcpHeaders(req, peer);
    const found = table.match(
      req.method === "HEAD" ? "GET" : req.method,
      requestTarget(req.url).pathname,
    );
    if (found.route === null) return true;
    checkRouteAuthority(peer, found.route);
    return false;
  } catch {
    return true;
  }
}

function dispatch(
  table: RouteTable,
  req: Request,
  peer: Peer,
  log: Logger,
  storeLost: () => boolean,
): Response | Promise<Response> {
  checkTcpHeaders(req, peer);
  const target = requestTarget(req.url);
  // HEAD is GET without the body (RFC 9110 §9.3.2).
  const head = req.method === "HEAD";
  const found = table.match(head ? "GET" : req.method, target.pathname);
  if (found.route === null) {
    if (found.allowed.length > 0) {
      const response = errorResponse(
        new ServiceError(
          "method_not_allowed",
          405,
          `Method ${req.method} is not allowed on "${target.pathname}": use ${
            found.allowed.join(", ")
          }`,
        ),
        log,
      );
      response.headers.set("allow", found.allowed.join(", "));
      return response;
    }
    throw new ServiceError("not_found", 404, `No route for "${target.pathname}"`);
  }
  if (head) {
    const answer = dispatchRoute(found, req, target.href, peer, log, storeLost);
    return answer instanceof Promise ? answer.then(withoutBody) : withoutBody(answer);
  }
  return dispatchRoute(found, req, target.href, peer, log, storeLost);
}

/**
 * A HEAD answer: the GET answer's status and headers, with its length when
 * it is known (RFC 9110 §8.6: the same length or none); its body (a stream
 * too) is cancelled.
 */
function withoutBody(response: Response): Response {
  const text = builtText(response);
  response.body?.cancel().catch(() => {});
  const headers = new Headers(response.headers);
  if (text !== undefined && !headers.has("content-length")) {
    headers.set("content-length", String(utf8.encode(text).length));
  }
  return new Response(null, { status: response.status, headers });
}

const utf8 = new TextEncoder();

function dispatchRoute(
  found: { route: Route; params: Record<string, string> },
  req: Request,
  href: string,
  peer: Peer,
  log: Logger,
  storeLost: () => boolean,
): Response | Promise<Response> {
  const { route, params } = found;
  const reshape = (error: unknown): never => {
    if (!route.failureShape) throw error;
    throw route.failureShape(asServiceError(error, log, req));
  };
  try {
    checkRouteAuthority(peer, route);
    if (route.method !== "GET" && !route.storeLostChecked && storeLost()) {
      throw storeUnavailable();
    }
    // Body rules concern requests with bodies; a GET's body is never read.
    if (route.method !== "GET") checkBodyHeaders(req, maxBodyBytes(peer));
    const result = route.handler(new LazyUrlContext(req, href, params, peer));
    return result instanceof Promise ? result.catch(reshape) : result;
  } catch (error) {
    return reshape(error);
  }
}

/**
 * A handler's context. The URL object is built only for handlers that read
 * the query (/health does not: issue 14), and the context is a class, not an
 * object literal with a getter: a literal with an accessor, made per request,
 * cost 3.5 µs of a `/health` answer's ~25 under load (issue 26).
 */
class LazyUrlContext implements RouteContext {
  #url: URL | undefined;
  constructor(
    readonly req: Request,
    readonly href: string,
    readonly params: Record<string, string>,
    readonly peer: Peer,
  ) {}

  get url(): URL {
    return this.#url ??= new URL(this.href);
  }
}

/**
 * The path of `http://host/path?query` without building a URL (issue 14:
 * URL parsing was the largest cost of a /health answer), the host checked
 * by the characters an authority may hold. An invalid one is 400.
 */
function requestTarget(href: string): { href: string; pathname: string } {
  const match = PLAIN_TARGET.exec(href);
  if (match) return { href, pathname: match[1] === "" ? "/" : match[1] };
  // Dot segments, escapes or anything unusual: the URL parser's normalized path.
  try {
    return { href, pathname: new URL(href).pathname };
  } catch {
    throw new ServiceError(
      "invalid_request",
      400,
      "The request's Host or target is not a valid URL",
    );
  }
}

/**
 * An absolute URL whose authority holds only the characters an authority
 * may (RFC 3986 §3.2) and whose path the URL parser would leave as it is (no
 * dot segments, escapes or odd characters), up to its query or fragment.
 * Group 1 is the path.
 */
const PLAIN_TARGET =
  /^https?:\/\/[A-Za-z0-9._~%!$&'()*+,;=:@\[\]-]+((?:\/[A-Za-z0-9_~-][A-Za-z0-9_~.-]*)*\/?)(?:[?#]|$)/;

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
  if (isStoreFailure(error)) {
    log.error("The store refused a write", { method: req?.method, url: req?.url, error });
    return storeUnavailable();
  }
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
