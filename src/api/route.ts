import type { z } from "zod";
import type { Peer } from "../policy/peer.ts";
import type { ServiceError } from "../errors.ts";

/** What a handler gets: the request, its parsed URL, the path parameters and the peer. */
export interface RouteContext {
  readonly req: Request;
  readonly url: URL;
  readonly params: Readonly<Record<string, string>>;
  readonly peer: Peer;
}

/** One documented answer of a route (issue 15: the OpenAPI document is made from these). */
export interface ResponseDoc {
  readonly description: string;
  /**
   * The body's schema, built when the OpenAPI document is (src/api/schemas.ts
   * says why); absent for an empty body.
   */
  readonly schema?: () => z.ZodType;
  /** Default `application/json`. */
  readonly contentType?: "application/json" | "text/event-stream";
}

/** One entry of the route table (routes are data, as in Deno's std/http). */
export interface Route {
  readonly method: "GET" | "POST" | "DELETE";
  /** Path relative to `/api/v1`, in URLPattern syntax (`/sessions/:id`). */
  readonly path: string;
  /** One line for people and for the OpenAPI document. */
  readonly summary: string;
  /** The OpenAPI operationId, a stable name for generated clients. */
  readonly operationId: string;
  /** The OpenAPI tag (route family). */
  readonly tag:
    | "system"
    | "sessions"
    | "events"
    | "streams"
    | "actions"
    | "approvals"
    | "notifications"
    | "devices";
  /** The query parameters with their bounds (documentation; handlers parse them). */
  readonly query?: z.ZodObject;
  /** Every status the route itself answers, with its body (generic errors are added). */
  readonly responses: Readonly<Record<number, ResponseDoc>>;
  /** The request body's schema, when the route takes one (documentation only). */
  readonly body?: z.ZodType;
  /** When set, a TCP peer gets 403 `forbidden` naming this, before the handler runs. */
  readonly ownerOnly?: string;
  /**
   * Reshapes every error once the route matched (body rules, validation,
   * unexpected errors): the action router's failure shape (C4.1, D10).
   */
  readonly failureShape?: (error: ServiceError) => ServiceError;
  /**
   * Set when the handler itself refuses what would write while the store is
   * lost (D24): the action router, whose read-only actions answer like GETs.
   * Otherwise every route but GET answers 503 `store_unavailable` then.
   */
  readonly storeLostChecked?: true;
  readonly handler: (ctx: RouteContext) => Response | Promise<Response>;
}
