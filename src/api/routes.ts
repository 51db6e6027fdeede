import type { Route } from "./route.ts";
import { type SystemDeps, systemRoutes } from "./system.ts";

/** What every route family needs, gathered by the daemon. */
export interface RouteDeps {
  readonly system: SystemDeps;
}

/** The route table of `/api/v1`: every family's routes, in one list. */
export function buildRoutes(deps: RouteDeps): Route[] {
  return [...systemRoutes(deps.system)];
}
