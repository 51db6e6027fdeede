/**
 * The land queue (D34): `POST /land-queue`, `GET /land-queue`, `POST
 * /land-queue/{itemId}/cancel`. Owner-only: landing changes the owner's
 * repository and runs the project's verify command (D23).
 */
import { z } from "zod";
import { readJsonBody } from "../policy/body.ts";
import { LAND_ITEM_STATES } from "../store/land_queue_store.ts";
import { parseInput } from "../validate.ts";
import type { LandQueue } from "../worktrees/land_queue.ts";
import { LAND_MODES } from "../worktrees/land_types.ts";
import { landVerifySchema } from "../worktrees/land_verify.ts";
import { jsonResponse } from "./json.ts";
import type { Route } from "./route.ts";
import { errorDoc } from "./schemas.ts";

/** What the land queue routes need. */
export interface LandQueueRouteDeps {
  readonly queue: LandQueue;
}

export const landQueueRequestSchema = z.strictObject({
  items: z.array(z.string().min(1).max(128)).min(1).max(100)
    .describe("Session ids (a run is named by its session), landed in this order"),
  mode: z.enum(LAND_MODES),
  verify: landVerifySchema.optional()
    .describe("Run instead of each project's land.verify"),
  sendBack: z.boolean().optional()
    .describe("A conflicted or red item's agent gets a turn to mend it, then it is queued again"),
  maxAttempts: z.int().min(1).max(10).optional().describe("Send-backs of one item; default 2"),
});

const landItemSchema = z.object({
  itemId: z.string(),
  sessionId: z.string(),
  position: z.int(),
  state: z.enum(LAND_ITEM_STATES),
  attempts: z.int().describe("Send-backs so far"),
  maxAttempts: z.int(),
  mode: z.enum(LAND_MODES),
  verify: landVerifySchema.nullable(),
  sendBack: z.boolean(),
  lastError: z.object({
    code: z.string(),
    message: z.string(),
    reason: z.string().optional(),
    files: z.array(z.string()).optional(),
    command: z.array(z.string()).optional(),
    tail: z.string().optional(),
  }).nullable(),
  landedCommit: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

const itemsSchema = () => z.object({ items: z.array(landItemSchema) });

/** The land queue's routes (D34). */
export function landQueueRoutes(deps: LandQueueRouteDeps): Route[] {
  return [
    {
      method: "GET",
      path: "/land-queue",
      summary: "The land queue's items and their states, in order (D34)",
      operationId: "listLandQueue",
      tag: "sessions",
      responses: {
        200: { description: "The items", schema: itemsSchema },
        403: errorDoc("`forbidden` over TCP"),
      },
      ownerOnly: "Reading the land queue",
      handler: () => jsonResponse({ items: deps.queue.list() }),
    },
    {
      method: "POST",
      path: "/land-queue",
      summary:
        "Queue isolated sessions' work to land in order, each on top of the one before (D34)",
      operationId: "enqueueLands",
      tag: "sessions",
      body: landQueueRequestSchema,
      responses: {
        202: { description: "Queued: the new items", schema: itemsSchema },
        400: errorDoc("`invalid_request`"),
        403: errorDoc("`forbidden` over TCP"),
        404: errorDoc("`session_not_found`"),
      },
      ownerOnly: "Landing worktrees",
      handler: async ({ req }) => {
        const request = parseInput(landQueueRequestSchema, await readJsonBody(req));
        return jsonResponse({ items: deps.queue.enqueue(request) }, 202);
      },
    },
    {
      method: "POST",
      path: "/land-queue/:itemId/cancel",
      summary:
        "Cancel a queued, sent back or failed item (a failed one stops the queue until then)",
      operationId: "cancelLandQueueItem",
      tag: "sessions",
      responses: {
        200: {
          description: "Cancelled",
          schema: () => z.object({ item: landItemSchema }),
        },
        403: errorDoc("`forbidden` over TCP"),
        404: errorDoc("`land_item_not_found`"),
        409: errorDoc("`land_item_busy`: being landed, landed or cancelled"),
      },
      ownerOnly: "Cancelling a land",
      handler: ({ params }) => jsonResponse({ item: deps.queue.cancel(params.itemId) }),
    },
  ];
}
