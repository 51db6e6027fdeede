import { forbidden, ServiceError } from "../errors.ts";
import { isLoopbackHost, splitHostPort } from "./loopback.ts";
import type { Peer } from "./peer.ts";

/**
 * Every access decision of svc, in one place (C5, D10, D11, D14). Handlers
 * never look at the transport themselves: the app asks these functions.
 */

/**
 * Owner-authority actions a TCP peer may still call (D10, D18): health and
 * scheduling diagnostics, and the (redacted) list of pending approvals.
 */
export const TCP_AUTOMATION_ALLOWLIST: ReadonlySet<string> = new Set([
  "svc.automations.health",
  "svc.automations.runs",
  "svc.sessions.approvals",
]);

/** Action families that need owner authority (C4.1 rule 3, D18, D28). */
const OWNER_ACTION_PREFIXES = ["svc.automations.", "svc.sessions.", "svc.approvals."];

/**
 * D14: a TCP request must name the listener in `Host` (a loopback name with
 * the listener's port), and an `Origin`, when present, must be that same
 * origin. Blocks DNS rebinding and cross-site browser requests.
 */
export function checkTcpHeaders(req: Request, peer: Peer): void {
  if (peer.transport !== "tcp") return;
  const host = req.headers.get("host") ?? "";
  const parsed = splitHostPort(host);
  if (!parsed || !isLoopbackHost(parsed.hostname) || parsed.port !== peer.listener.port) {
    throw forbidden(`Host "${host}" is not this loopback listener`);
  }
  // D23: an absolute-form target (`GET http://host:port/…`) must name the same listener.
  const target = URL.canParse(req.url) ? new URL(req.url).host : "";
  if (target !== new URL(`http://${host}`).host) {
    throw forbidden(`Request target "${target}" is not the Host "${host}"`);
  }
  const origin = req.headers.get("origin");
  if (origin !== null && origin !== `http://${host}`) {
    throw forbidden(`Origin "${origin}" is not allowed`);
  }
}

/**
 * Whether a request may make the daemon start programs (D23, issue 28 item
 * 5): the owner's socket may; a TCP peer never does, so a TCP
 * `svc.capabilities.refresh` is answered from the last probe.
 */
export function mayStartPrograms(peer: Peer): boolean {
  return peer.owner;
}

/** Owner-only routes (C5.4, D9, D11) refuse a TCP peer with 403 `forbidden`. */
export function requireOwner(peer: Peer, what: string): void {
  if (!peer.owner) throw forbidden(`${what} needs the owner's local socket, not TCP`);
}

/**
 * C4.1 rule 3 (and D18 for `svc.sessions.approve`, D28 for the approval
 * rules): over TCP every `svc.automations.*`, `svc.sessions.*` and
 * `svc.approvals.*` id outside the allowlist, known or not, gets 403
 * `AUTHORITY_REQUIRED` before any validation. Rules are read with `GET
 * /approval-rules`, which TCP may.
 */
export function checkActionAuthority(peer: Peer, action: string): void {
  if (peer.owner || !OWNER_ACTION_PREFIXES.some((prefix) => action.startsWith(prefix))) return;
  if (TCP_AUTOMATION_ALLOWLIST.has(action)) return;
  throw new ServiceError(
    "AUTHORITY_REQUIRED",
    403,
    `Action "${action}" needs the owner's local socket, not TCP`,
    { action },
  );
}
