/**
 * What a paired device may do (D30): each route and each action needs a
 * scope, or stays socket-only. Scopes nest: `approve` holds `read`,
 * `operate` holds both. A route or an action missing here is socket-only
 * (fail closed), and a test lists the route table against this one.
 */

/** The scopes a device can be given, weakest first. */
export const DEVICE_SCOPES = ["read", "approve", "operate"] as const;

/** One device scope (D30). */
export type DeviceScope = typeof DEVICE_SCOPES[number];

/**
 * What a route or an action needs from a device: a scope, `socket` (never a
 * device: device management, store operations, config and rules changes),
 * or `pairing` (the pairing exchange, open to a TCP peer without a device).
 */
export type DeviceNeed = DeviceScope | "socket" | "pairing";

/** Every route of `/api/v1`, as `METHOD path`, and what a device needs to call it. */
export const ROUTE_NEEDS: ReadonlyMap<string, DeviceNeed> = new Map<string, DeviceNeed>([
  ["GET /health", "read"],
  ["GET /capabilities", "read"],
  ["GET /api-version", "read"],
  ["GET /session-policy", "read"],
  ["GET /sessions", "read"],
  ["GET /usage", "read"],
  ["GET /sessions/:id", "read"],
  // D33: the agents' own sessions are read like svc's; adopting one starts an agent.
  ["GET /sessions/discover", "read"],
  ["POST /sessions/adopt", "operate"],
  ["GET /events/stream", "read"],
  ["GET /sessions/:id/events/stream", "read"],
  ["GET /stream", "read"],
  ["GET /events", "read"],
  ["GET /sessions/:id/events", "read"],
  ["GET /approval-rules", "read"],
  ["GET /approvals/log", "read"],
  ["GET /openapi.json", "read"],
  // The action router itself: each action's own need decides (ACTION_NEEDS).
  ["POST /actions", "read"],
  ["GET /devices/me", "read"],
  ["POST /devices/pair", "pairing"],
  ["POST /sessions/:id/interrupt", "approve"],
  ["POST /sessions", "operate"],
  ["POST /sessions/:id/input", "operate"],
  ["POST /sessions/:id/resume", "operate"],
  ["POST /sessions/:id/unpark", "operate"],
  ["POST /sessions/:id/close", "operate"],
  ["POST /sessions/:id/kill", "operate"],
  ["GET /sessions/:id/worktree/diff", "operate"],
  ["POST /sessions/:id/worktree/land", "operate"],
  // D34: the land queue and the check before a land are an operate device's, like a land.
  ["GET /sessions/:id/worktree/check", "operate"],
  ["GET /land-queue", "operate"],
  ["POST /land-queue", "operate"],
  ["POST /land-queue/:itemId/cancel", "operate"],
  // D31: the channels and their log hold no secret; a test send uses the owner's channels.
  ["GET /notifications", "read"],
  ["POST /notifications/test", "socket"],
  ["POST /sessions/:id/worktree/discard", "operate"],
  ["POST /sessions/restricted", "socket"],
  ["POST /shutdown", "socket"],
  ["GET /sessions/:sessionId/artifacts/:artifactId", "socket"],
  ["GET /devices", "socket"],
  ["POST /devices/pairing-codes", "socket"],
  ["POST /devices/revoke", "socket"],
]);

/** Every action of `POST /actions` and what a device needs to run it. */
export const ACTION_NEEDS: ReadonlyMap<string, DeviceNeed> = new Map<string, DeviceNeed>([
  ["svc.capabilities.refresh", "read"],
  ["svc.sessions.approvals", "read"],
  ["svc.automations.list", "read"],
  ["svc.automations.get", "read"],
  ["svc.automations.runs", "read"],
  ["svc.automations.health", "read"],
  ["svc.automations.overview", "read"],
  ["svc.automations.worktrees", "read"],
  ["svc.automations.inbox", "read"],
  ["svc.automations.result", "read"],
  ["svc.sessions.approve", "approve"],
  ["svc.automations.run", "operate"],
  // D30: the status alone; the whole definition (update) stays the owner's.
  ["svc.automations.pause", "operate"],
  ["svc.automations.activate", "operate"],
  ["svc.automations.create", "socket"],
  ["svc.automations.update", "socket"],
  ["svc.automations.delete", "socket"],
  ["svc.automations.import", "socket"],
  ["svc.automations.tick", "socket"],
  ["svc.automations.prune", "socket"],
  ["svc.approvals.rules.add", "socket"],
  ["svc.approvals.rules.remove", "socket"],
]);

/** What a device needs for `method path` (a route table path); socket-only when unlisted. */
export function routeNeed(method: string, path: string): DeviceNeed {
  return ROUTE_NEEDS.get(`${method} ${path}`) ?? "socket";
}

/** What a device needs for an action id; socket-only when unlisted. */
export function actionNeed(action: string): DeviceNeed {
  return ACTION_NEEDS.get(action) ?? "socket";
}

/** Whether a device given `scope` meets `need` (the pairing exchange needs no device at all). */
export function scopeMeets(scope: DeviceScope, need: DeviceNeed): boolean {
  if (need === "pairing") return true;
  if (need === "socket") return false;
  return DEVICE_SCOPES.indexOf(scope) >= DEVICE_SCOPES.indexOf(need);
}

/** The scopes `scope` holds, as the API lists them (`approve` → `["read", "approve"]`). */
export function heldScopes(scope: DeviceScope): DeviceScope[] {
  return DEVICE_SCOPES.slice(0, DEVICE_SCOPES.indexOf(scope) + 1);
}

/** A paired device as a request's peer carries it (D30). */
export interface DeviceGrant {
  readonly id: string;
  readonly name: string;
  readonly scope: DeviceScope;
}
