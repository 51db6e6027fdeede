/**
 * Sessions started outside svc (D33): `GET /sessions/discover` lists the
 * built-in agents' own recent sessions, `POST /sessions/adopt` makes one a
 * svc session and resumes it natively.
 */
import { z } from "zod";
import { invalidRequest } from "../errors.ts";
import { APPROVAL_POLICIES } from "../approvals/broker.ts";
import { readJsonBody } from "../policy/body.ts";
import type { Adoption } from "../sessions/adoption/adopt.ts";
import {
  DEFAULT_DISCOVER_LIMIT,
  type Discovery,
  MAX_DISCOVER_LIMIT,
} from "../sessions/adoption/discovery.ts";
import { sessionRecord } from "../store/sessions_store.ts";
import { boundedText, parseInput } from "../validate.ts";
import { jsonResponse } from "./json.ts";
import { integerParam } from "./query.ts";
import type { Route } from "./route.ts";
import { errorDoc, sessionRecordSchema } from "./schemas.ts";

/** What the adoption routes need. */
export interface AdoptionDeps {
  readonly discovery: Discovery;
  readonly adoption: Adoption;
}

/** `POST /sessions/adopt`'s body. */
export const adoptRequestSchema = z.strictObject({
  harness: boundedText(1, 64),
  agentSessionId: boundedText(1, 200),
  cwd: boundedText(1, 4096).optional().describe(
    "The directory the conversation ran in (default: where its agent says)",
  ),
  model: boundedText(1, 64).optional(),
  title: boundedText(1, 200).optional(),
  approvals: z.enum(APPROVAL_POLICIES).optional(),
});

function discoveredSchema() {
  const session = z.object({
    agentSessionId: z.string(),
    harness: z.string(),
    cwd: z.string().nullable(),
    title: z.string(),
    lastActivityAt: z.string().nullable(),
  });
  return z.object({
    sessions: z.array(session),
    unavailable: z.array(z.object({ harness: z.string(), code: z.string(), message: z.string() }))
      .describe("Harnesses that could not list their sessions, and why"),
  });
}

/** The adoption routes; static paths, listed before `/sessions/:id`. */
export function adoptionRoutes(deps: AdoptionDeps): Route[] {
  return [
    {
      method: "GET",
      path: "/sessions/discover",
      summary: "The built-in agents' own recent sessions, started in or outside svc (D33)",
      operationId: "discoverSessions",
      tag: "sessions",
      query: z.object({
        harness: z.string().optional().describe("One harness (default: every installed built-in)"),
        cwd: z.string().optional().describe("Only sessions of this directory"),
        limit: z.int().min(1).max(MAX_DISCOVER_LIMIT).optional().describe(
          `Default ${DEFAULT_DISCOVER_LIMIT}`,
        ),
      }),
      responses: {
        200: { description: "Sessions, newest first", schema: discoveredSchema },
        400: errorDoc("`invalid_request`: an unknown harness, a bad `cwd` or `limit`"),
        409: errorDoc("`discover_unsupported`: the harness's sessions cannot be listed"),
        502: errorDoc("`agent_list_failed`: the agent asked for its list failed"),
      },
      handler: async ({ url }) => {
        const harness = url.searchParams.get("harness") ?? undefined;
        const cwd = url.searchParams.get("cwd") ?? undefined;
        if (harness === "") throw invalidRequest('Query parameter "harness" is empty', "harness");
        const limit = integerParam(url, "limit", { min: 1, max: MAX_DISCOVER_LIMIT }) ??
          DEFAULT_DISCOVER_LIMIT;
        return jsonResponse(await deps.discovery.discover({ harness, cwd, limit }));
      },
    },
    {
      method: "POST",
      path: "/sessions/adopt",
      summary: "Make a session started outside svc a svc session and resume it (D33)",
      operationId: "adoptSession",
      tag: "sessions",
      responses: {
        201: { description: "The new session's record, running", schema: sessionRecordSchema },
        400: errorDoc("`invalid_request`: the body, the harness, the id's format, the directory"),
        404: errorDoc("`agent_session_not_found`: the agent's store has no such session"),
        409: errorDoc(
          "`session_live` (a svc session runs it now), `discover_unsupported`, `not_resumable` (`details.reason`)",
        ),
        429: errorDoc("`too_many_sessions`: maxLiveSessions are running"),
        500: errorDoc("`launch_failed`: the agent could not be started (the session ended failed)"),
        503: errorDoc("`store_unavailable` or `daemon_stopping`"),
      },
      ownerOnly: "Adopting a session", // D23: TCP never executes anything.
      body: adoptRequestSchema,
      handler: async ({ req }) => {
        const request = parseInput(adoptRequestSchema, await readJsonBody(req));
        const { row } = await deps.adoption.adopt(request);
        return jsonResponse(sessionRecord(row), 201);
      },
    },
  ];
}
