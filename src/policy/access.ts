import { forbidden, ServiceError } from "../api/errors.ts";
import { isLoopbackHost, splitHostPort } from "./loopback.ts";
import type { Peer } from "./peer.ts";

/**
 * Every access decision of svc, in one place (C5, D10, D11, D14). Handlers
 * never look at the transport themselves: the app asks these functions.
 */

/** Automation actions a TCP peer may call (D10): health and scheduling diagnostics. */
export const TCP_AUTOMATION_ALLOWLIST: ReadonlySet<string> = new Set([
  "svc.automations.health",
  "svc.automations.runs",
]);

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
  const origin = req.headers.get("origin");
  if (origin !== null && origin !== `http://${host}`) {
    throw forbidden(`Origin "${origin}" is not allowed`);
  }
}

/** Owner-only routes (C5.4, D9, D11) refuse a TCP peer with 403 `forbidden`. */
export function requireOwner(peer: Peer, what: string): void {
  if (!peer.owner) throw forbidden(`${what} needs the owner's local socket, not TCP`);
}

/**
 * C4.1 rule 3: over TCP every `svc.automations.*` id outside the allowlist,
 * known or not, gets 403 `AUTHORITY_REQUIRED` before any validation.
 */
export function checkActionAuthority(peer: Peer, action: string): void {
  if (peer.owner || !action.startsWith("svc.automations.")) return;
  if (TCP_AUTOMATION_ALLOWLIST.has(action)) return;
  throw new ServiceError(
    "AUTHORITY_REQUIRED",
    403,
    `Action "${action}" needs the owner's local socket, not TCP`,
    { action },
  );
}
