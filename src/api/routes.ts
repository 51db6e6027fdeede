import type { Route } from "./route.ts";
import { z } from "zod";
import { jsonResponse } from "./json.ts";
import { openApiDocument } from "./openapi.ts";
import { svcVersion } from "../version.ts";
import { type ActionDeps, actionRoutes } from "./actions.ts";
import { type ArtifactDeps, artifactRoutes } from "./artifacts.ts";
import { approvalRoutes } from "./approvals.ts";
import { type EventDeps, eventRoutes } from "./events.ts";
import { type NotificationDeps, notificationRoutes } from "./notifications.ts";
import { type SessionDeps, sessionRoutes } from "./sessions.ts";
import { type AdoptionDeps, adoptionRoutes } from "./adoption_routes.ts";
import { type StreamDeps, streamRoutes } from "./streams.ts";
import { type SystemDeps, systemRoutes } from "./system.ts";
import { type WorktreeRouteDeps, worktreeRoutes } from "./worktree_routes.ts";
import { type LandQueueRouteDeps, landQueueRoutes } from "./land_queue_routes.ts";
import { type DeviceRouteDeps, deviceRoutes } from "./device_routes.ts";

/** What every route family needs, gathered by the daemon. */
export interface RouteDeps {
  readonly system: SystemDeps;
  readonly sessions: SessionDeps;
  readonly adoption: AdoptionDeps;
  readonly events: EventDeps;
  readonly streams: StreamDeps;
  readonly artifacts: ArtifactDeps;
  readonly actions: ActionDeps;
  readonly worktrees: WorktreeRouteDeps;
  readonly landQueue: LandQueueRouteDeps;
  readonly notifications: NotificationDeps;
  readonly devices: DeviceRouteDeps;
}

/**
 * The route table of `/api/v1`: every family's routes in one list. Static
 * paths come before parameterised ones (`/sessions/restricted` before
 * `/sessions/:id`), which a test checks.
 */
export function buildRoutes(deps: RouteDeps): Route[] {
  const routes: Route[] = [
    ...systemRoutes(deps.system),
    ...adoptionRoutes(deps.adoption),
    ...sessionRoutes(deps.sessions),
    ...streamRoutes(deps.streams),
    ...eventRoutes(deps.events),
    ...artifactRoutes(deps.artifacts),
    ...worktreeRoutes(deps.worktrees),
    ...landQueueRoutes(deps.landQueue),
    ...actionRoutes(deps.actions),
    ...approvalRoutes(deps.actions),
    ...notificationRoutes(deps.notifications),
    ...deviceRoutes(deps.devices),
  ];
  routes.push({
    method: "GET",
    path: "/openapi.json",
    summary: "This API as an OpenAPI 3.1 document (outside the stable subset)",
    operationId: "getOpenApi",
    tag: "system",
    responses: {
      200: { description: "The document", schema: () => z.record(z.string(), z.unknown()) },
    },
    handler: () => jsonResponse(openApiDocument(routes, svcVersion())),
  });
  return routes;
}
