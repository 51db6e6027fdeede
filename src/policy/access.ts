import { forbidden, ServiceError } from "../errors.ts";
import { actionNeed, type DeviceNeed, routeNeed, scopeMeets } from "./device_scopes.ts";
import type { Peer } from "./peer.ts";
import { checkHostAndOrigin } from "./web_request.ts";

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
 * D14, D30: a TCP request must name the listener in `Host` (a loopback name
 * with the listener's port, or a `web.origins` entry), and an `Origin`, when
 * present, must be that same origin. Blocks DNS rebinding and cross-site
 * browser requests (web_request.ts holds the rules).
 */
export function checkTcpHeaders(req: Request, peer: Peer): void {
  if (peer.transport !== "tcp") return;
  const checked = checkHostAndOrigin(req, peer);
  if ("code" in checked) throw new ServiceError(checked.code, checked.status, checked.message);
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
 * A route's authority: the owner may call every route; a paired device the
 * routes its scope meets (D30, device_scopes.ts); any other TCP peer the
 * routes that are not owner-only (D23).
 */
export function checkRouteAuthority(
  peer: Peer,
  route: { readonly method: string; readonly path: string; readonly ownerOnly?: string },
): void {
  if (peer.owner) return;
  if (peer.device === undefined) {
    if (route.ownerOnly) requireOwner(peer, route.ownerOnly);
    return;
  }
  const need = routeNeed(route.method, route.path);
  if (scopeMeets(peer.device.scope, need)) return;
  throw new ServiceError(
    "forbidden",
    403,
    `${route.method} "${route.path}" ${needText(need)}: device "${peer.device.name}" has ` +
      `scope "${peer.device.scope}"`,
    { need, scope: peer.device.scope },
  );
}

function needText(need: DeviceNeed): string {
  return need === "socket" ? "needs the owner's local socket" : `needs scope "${need}"`;
}

/**
 * C4.1 rule 3 (and D18 for `svc.sessions.approve`, D28 for the approval
 * rules; D30: a paired device runs the actions its scope meets): over TCP every `svc.automations.*`, `svc.sessions.*` and
 * `svc.approvals.*` id outside the allowlist, known or not, gets 403
 * `AUTHORITY_REQUIRED` before any validation. Rules are read with `GET
 * /approval-rules`, which TCP may.
 */
export function checkActionAuthority(peer: Peer, action: string): void {
  if (!peer.owner && peer.device !== undefined) {
    const need = actionNeed(action);
    if (scopeMeets(peer.device.scope, need)) return;
    throw new ServiceError(
      "AUTHORITY_REQUIRED",
      403,
      `Action "${action}" ${
        needText(need)
      }: device "${peer.device.name}" has scope "${peer.device.scope}"`,
      { action, need, scope: peer.device.scope },
    );
  }
  if (peer.owner || !OWNER_ACTION_PREFIXES.some((prefix) => action.startsWith(prefix))) return;
  if (TCP_AUTOMATION_ALLOWLIST.has(action)) return;
  throw new ServiceError(
    "AUTHORITY_REQUIRED",
    403,
    `Action "${action}" needs the owner's local socket, not TCP`,
    { action },
  );
}
