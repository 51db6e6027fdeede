import type { DeviceGrant } from "./device_scopes.ts";
import { isLoopbackHost, splitHostPort } from "./loopback.ts";
import type { TcpPeer } from "./peer.ts";

/**
 * The request rules of the TCP listener (D14, D23, D30), as one pure
 * function of the request, the listener's peer and a credential look-up:
 *
 * 1. `Host` names the listener (a loopback name with its port) or a
 *    `web.origins` entry, else 403 `forbidden` (DNS rebinding); an
 *    absolute-form target names that same Host.
 * 2. A request carrying a device cookie that is not GET or HEAD, and the
 *    pairing exchange, must carry `Origin` equal to the request's own origin
 *    and, when present, `Sec-Fetch-Site: same-origin`, else 403
 *    `origin_refused` (cross-site forms, `no-cors` fetches, rebinding
 *    without Origin). Any other request's Origin, when present, must be its
 *    own origin (D14), else 403 `forbidden`.
 * 3. Only then the credential: a revoked device is 401 `device_revoked`
 *    (but for the app's files, which need none); an unknown or expired one is
 *    no credential. Through a `web.origins` entry
 *    a request without a device reaches only the app's files and the
 *    pairing exchange, else 401 `not_paired`.
 */

/** The device cookie's name (D30). */
export const DEVICE_COOKIE = "svc_device";

/** The pairing exchange, which a peer without a device may call with the strict Origin rule. */
export const PAIRING_PATH = "/api/v1/devices/pair";

/** What a credential look-up finds for a token. */
export type CredentialState =
  | { readonly kind: "device"; readonly device: DeviceGrant }
  | { readonly kind: "revoked"; readonly deviceId: string }
  | { readonly kind: "none" };

/** The origin a request came through. */
export interface RequestOrigin {
  /** `http://127.0.0.1:3000`, or the `web.origins` entry its Host named. */
  readonly origin: string;
  /** True when Host named a `web.origins` entry (a tunnel or a proxy). */
  readonly tunnel: boolean;
  /** True for an https origin: the cookie gets `Secure`. */
  readonly secure: boolean;
}

/** The rules' answer: admitted (with the device, if any) or refused with a status and code. */
export type RequestVerdict =
  | {
    readonly admitted: true;
    readonly via: RequestOrigin;
    readonly device: DeviceGrant | null;
    /** The device cookie's token, when the request carried one that names a live device. */
    readonly token: string | null;
  }
  | {
    readonly admitted: false;
    readonly status: number;
    readonly code: string;
    readonly message: string;
  };

/** Applies the D30 rules in order; `credential` is asked only once Host and Origin passed. */
export function judgeTcpRequest(
  req: Request,
  peer: TcpPeer,
  credential: (token: string) => CredentialState,
): RequestVerdict {
  const via = checkHost(req, peer);
  if ("code" in via) return via;
  const token = deviceCookie(req.headers.get("cookie"));
  const pathname = pathOf(req.url);
  const safe = req.method === "GET" || req.method === "HEAD";
  const pairing = req.method === "POST" && pathname === PAIRING_PATH;
  if ((token !== null && !safe) || pairing) {
    const refusal = strictOrigin(req, via.origin);
    if (refusal !== null) return refuse(403, "origin_refused", refusal);
  } else {
    const refusal = foreignOrigin(req, via.origin);
    if (refusal !== null) return refusal;
  }
  const staticFile = safe && !pathname.startsWith("/api/");
  const state = token === null ? { kind: "none" as const } : credential(token);
  // The app's files need no credential: a revoked device's page still loads, and says so.
  if (state.kind === "revoked" && !staticFile) {
    return refuse(401, "device_revoked", `Device "${state.deviceId}" was revoked: pair it again`);
  }
  if (state.kind === "device") return { admitted: true, via, device: state.device, token };
  if (via.tunnel && !pairing && !staticFile) {
    return refuse(
      401,
      "not_paired",
      "This device is not paired: run svc devices pair on the daemon's machine",
    );
  }
  return { admitted: true, via, device: null, token: null };
}

/**
 * Rules 1 and 2 without the credential (D14, D23, D30): the origin the
 * request came through, or the refusal. A present Origin must be that origin.
 */
export function checkHostAndOrigin(req: Request, peer: TcpPeer): RequestOrigin | Refusal {
  const via = checkHost(req, peer);
  return "code" in via ? via : foreignOrigin(req, via.origin) ?? via;
}

type Refusal = Extract<RequestVerdict, { admitted: false }>;

/** Rule 1: the origin the Host names, and an absolute-form target naming that Host. */
function checkHost(req: Request, peer: TcpPeer): RequestOrigin | Refusal {
  const host = req.headers.get("host") ?? "";
  const via = originOfHost(effectiveHost(req, peer) ?? host, peer);
  if (via === null) {
    return refuse(403, "forbidden", `Host "${host}" is not this listener or a web.origins entry`);
  }
  // D23: an absolute-form target (`GET http://host:port/…`) must name the same Host.
  const target = URL.canParse(req.url) ? new URL(req.url).host : "";
  const named = URL.canParse(`http://${host}`) ? new URL(`http://${host}`).host : null;
  if (target !== named) {
    return refuse(403, "forbidden", `Request target "${target}" is not the Host "${host}"`);
  }
  return via;
}

/** D14: an Origin, when present, is the request's own origin. */
function foreignOrigin(req: Request, origin: string): Refusal | null {
  const sent = req.headers.get("origin");
  return sent === null || sent === origin
    ? null
    : refuse(403, "forbidden", `Origin "${sent}" is not allowed`);
}

/**
 * The client's address for per-peer limits: the connection's, or with
 * `web.trustProxy` and a loopback connection the first `X-Forwarded-For` entry.
 */
export function clientAddress(req: Request, peer: TcpPeer): string {
  const remote = peer.remote ?? "unknown";
  if (!proxyTrusted(peer)) return remote;
  const forwarded = req.headers.get("x-forwarded-for")?.split(",")[0].trim();
  return forwarded ? forwarded : remote;
}

/** The `svc_device` cookie's value, or null. */
export function deviceCookie(header: string | null): string | null {
  if (header === null) return null;
  for (const pair of header.split(";")) {
    const equals = pair.indexOf("=");
    if (equals < 0 || pair.slice(0, equals).trim() !== DEVICE_COOKIE) continue;
    const value = pair.slice(equals + 1).trim();
    return value === "" ? null : value;
  }
  return null;
}

/** Host, or with a trusted proxy its `X-Forwarded-Host`; null when none applies. */
function effectiveHost(req: Request, peer: TcpPeer): string | null {
  if (!proxyTrusted(peer)) return null;
  return req.headers.get("x-forwarded-host")?.split(",")[0].trim() || null;
}

function proxyTrusted(peer: TcpPeer): boolean {
  return peer.web?.trustProxy === true && peer.remote !== undefined &&
    isLoopbackHost(peer.remote);
}

/** The origin a Host names: a loopback name with the listener's port, or a web.origins entry. */
function originOfHost(host: string, peer: TcpPeer): RequestOrigin | null {
  const parsed = splitHostPort(host);
  if (parsed && isLoopbackHost(parsed.hostname) && parsed.port === peer.listener.port) {
    return { origin: `http://${host.toLowerCase()}`, tunnel: false, secure: false };
  }
  for (const entry of peer.web?.origins ?? []) {
    const url = new URL(entry);
    const named = URL.canParse(`${url.protocol}//${host}`)
      ? new URL(`${url.protocol}//${host}`).host
      : null;
    if (host !== "" && named === url.host) {
      return { origin: url.origin, tunnel: true, secure: url.protocol === "https:" };
    }
  }
  return null;
}

/** Why a strict-Origin request is refused, or null when its Origin and Sec-Fetch-Site pass. */
function strictOrigin(req: Request, origin: string): string | null {
  const sent = req.headers.get("origin");
  if (sent === null) return "A request that acts needs an Origin header: none was sent";
  if (sent !== origin) return `Origin "${sent}" is not this page's origin "${origin}"`;
  const site = req.headers.get("sec-fetch-site");
  if (site !== null && site !== "same-origin") {
    return `Sec-Fetch-Site "${site}" is not "same-origin"`;
  }
  return null;
}

function pathOf(url: string): string {
  return URL.canParse(url) ? new URL(url).pathname : "";
}

function refuse(status: number, code: string, message: string): Refusal {
  return { admitted: false, status, code, message };
}
