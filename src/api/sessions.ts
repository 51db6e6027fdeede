import { invalidRequest, sessionNotFound } from "../errors.ts";
import { z } from "zod";
import {
  acceptedSchema,
  contextAdmissionRefusalSchema,
  errorDoc,
  errorEnvelopeSchema,
  sessionRecordSchema,
  usageTotalsSchema,
} from "./schemas.ts";
import { jsonResponse } from "./json.ts";
import { integerParam } from "./query.ts";
import type { Route } from "./route.ts";
import { ID_PREFIX_PATTERN, idPrefixSchema, parseInput } from "../validate.ts";
import { readJsonBody } from "../policy/body.ts";
import type { ApprovalPolicy } from "../approvals/broker.ts";
import type { Launcher } from "../sessions/launcher.ts";
import {
  emptyRequestSchema,
  inputRequestSchema,
  killRequestSchema,
  launchRequestSchema,
  parseLaunchRequest,
  refuseContextAdmission,
  resumeRequestSchema,
  unparkRequestSchema,
} from "../sessions/launch_request.ts";
import type { LaunchSpec, Supervisor } from "../sessions/supervisor.ts";
import type { Parking } from "../sessions/parking.ts";
import { type Clock, isoTime } from "../clock.ts";
import { USAGE_GROUPS, type UsageGroup, usageTotals } from "../sessions/usage_totals.ts";
import { launchIsolated } from "../worktrees/isolated_launch.ts";
import type { Worktrees } from "../worktrees/worktrees.ts";
import type { WorktreeSetup } from "../worktrees/setup.ts";
import {
  SESSION_STATUSES,
  sessionRecord,
  type SessionsStore,
  type SessionStatus,
} from "../store/sessions_store.ts";

/** What the session routes need. */
export interface SessionDeps {
  readonly sessions: SessionsStore;
  readonly supervisor: Supervisor;
  /** The launch checks (D7). */
  readonly launcher: Launcher;
  /** The approval policy of a launch that names none (config `approvals.interactive`, D18). */
  readonly defaultApprovals: () => ApprovalPolicy;
  /** Worktrees of isolated sessions (D20). */
  readonly worktrees: Worktrees;
  /** Config `worktreeSetup` for a launch in this directory (D27), or null. */
  readonly worktreeSetup?: (cwd: string) => WorktreeSetup | null;
  /** Sessions parked on a limit (D33). */
  readonly parking: Pick<Parking, "unpark">;
  readonly clock: Clock;
  /** The host's time zone: `GET /usage` days and `since` dates are its calendar days. */
  readonly hostZone: () => string;
}

/**
 * `since` of `GET /usage`: a date (`YYYY-MM-DD`, the start of that day in
 * `zone`) or an RFC 3339 instant, as the store's instant text; null when absent.
 */
function sinceParam(url: URL, zone: string): string | null {
  const raw = url.searchParams.get("since");
  if (raw === null) return null;
  try {
    const instant = /^\d{4}-\d{2}-\d{2}$/.test(raw)
      ? Temporal.PlainDate.from(raw).toZonedDateTime(zone).toInstant()
      : Temporal.Instant.from(raw);
    return isoTime(instant.epochMilliseconds);
  } catch {
    throw invalidRequest(
      `Query parameter "since" must be a date (YYYY-MM-DD) or an RFC 3339 instant, got "${raw}"`,
      "since",
    );
  }
}

/** Session routes (C4, D7). */
export function sessionRoutes(deps: SessionDeps): Route[] {
  return [
    {
      method: "GET",
      path: "/sessions",
      summary: "Session records, newest first (D7)",
      operationId: "listSessions",
      tag: "sessions",
      query: z.object({
        status: z.enum(SESSION_STATUSES).optional(),
        limit: z.int().min(1).max(1000).optional().describe("Clamped to 1-1000; default 100"),
        idPrefix: idPrefixSchema().optional().describe(
          "Only sessions whose id starts with this (issue 27 item 9: the CLI resolves short ids)",
        ),
      }),
      responses: {
        200: { description: "Session records", schema: () => z.array(sessionRecordSchema()) },
        400: errorDoc("A bad `status`, a non-integer `limit` or a bad `idPrefix`"),
      },
      handler: ({ url }) => {
        const status = url.searchParams.get("status");
        if (status !== null && !SESSION_STATUSES.includes(status as SessionStatus)) {
          throw invalidRequest(
            `Query parameter "status" must be one of ${SESSION_STATUSES.join(", ")}`,
            "status",
          );
        }
        const limit = integerParam(url, "limit", { min: 1, max: 1000 }) ?? 100;
        const idPrefix = url.searchParams.get("idPrefix") ?? undefined;
        if (idPrefix !== undefined && !ID_PREFIX_PATTERN.test(idPrefix)) {
          throw invalidRequest(
            'Query parameter "idPrefix" must be 1 to 96 ASCII letters, digits, ".", "_" or "-"',
            "idPrefix",
          );
        }
        const rows = deps.sessions.list({
          status: (status ?? undefined) as SessionStatus,
          idPrefix,
          limit,
        });
        return jsonResponse(rows.map(sessionRecord));
      },
    },
    {
      method: "POST",
      path: "/sessions",
      summary: "Launch a harness session (C4, D7)",
      operationId: "launchSession",
      tag: "sessions",
      responses: {
        201: { description: "The new session's record", schema: sessionRecordSchema },
        400: errorDoc("`invalid_request` (schema, harness, paths) or `not_a_git_repository`"),
        429: errorDoc("`too_many_sessions`: maxLiveSessions are running"),
        500: errorDoc("`launch_failed` (the record exists, ended failed) or `worktree_failed`"),
        503: {
          description:
            "`context_admission_unavailable` (C4.3), `store_unavailable` or `daemon_stopping`",
          schema: () => z.union([contextAdmissionRefusalSchema(), errorEnvelopeSchema()]),
        },
      },
      ownerOnly: "Launching a session", // D23: TCP never executes anything.
      body: launchRequestSchema,
      handler: async ({ req }) => {
        const request = parseLaunchRequest(await readJsonBody(req));
        refuseContextAdmission(request);
        const spec = await deps.launcher.checkLaunch(request);
        const launchSpec: LaunchSpec = {
          ...spec,
          origin: "api",
          oneShot: request.oneShot ?? false,
          approvals: request.approvals ?? deps.defaultApprovals(),
          ...(request.autoResume && { autoResume: request.autoResume }),
        };
        const { row } = request.isolation === "worktree"
          ? await launchIsolated(
            deps,
            launchSpec,
            request.worktreeSetup ?? deps.worktreeSetup?.(launchSpec.cwd) ?? null,
          )
          : await deps.supervisor.launch(launchSpec);
        return jsonResponse(sessionRecord(row), 201);
      },
    },
    {
      method: "GET",
      path: "/usage",
      summary: "Usage totals of the sessions, by harness, routine or day (D22)",
      operationId: "getUsage",
      tag: "sessions",
      query: z.object({
        by: z.enum(USAGE_GROUPS).optional(),
        since: z.string().optional().describe("YYYY-MM-DD (host zone) or an RFC 3339 instant"),
      }),
      responses: {
        200: { description: "Totals per group and overall", schema: usageTotalsSchema },
        400: errorDoc("A bad `by` or `since`"),
      },
      handler: ({ url }) => {
        const by = url.searchParams.get("by") ?? "harness";
        if (!USAGE_GROUPS.includes(by as UsageGroup)) {
          throw invalidRequest(
            `Query parameter "by" must be one of ${USAGE_GROUPS.join(", ")}`,
            "by",
          );
        }
        const zone = deps.hostZone();
        const since = sinceParam(url, zone);
        const totals = usageTotals(deps.sessions.usageRows(since), by as UsageGroup, zone);
        return jsonResponse({ by, since, timeZone: zone, ...totals });
      },
    },
    {
      method: "GET",
      path: "/sessions/:id",
      summary: "One session record (D7)",
      operationId: "getSession",
      tag: "sessions",
      responses: {
        200: { description: "The session record", schema: sessionRecordSchema },
        404: errorDoc("`session_not_found`"),
      },
      handler: ({ params }) => {
        const row = deps.sessions.get(params.id);
        if (!row) throw sessionNotFound(params.id);
        return jsonResponse(sessionRecord(row));
      },
    },
    {
      method: "POST",
      path: "/sessions/:id/input",
      summary: "The next user turn of a protocol session, or stdin of a raw one (D7, D16)",
      operationId: "sendInput",
      tag: "sessions",
      responses: {
        200: { description: "Accepted (and recorded)", schema: acceptedSchema },
        400: errorDoc("`invalid_request`"),
        404: errorDoc("`session_not_found`"),
        409: errorDoc("`session_not_live`, `session_input_closed` or `session_input_backlogged`"),
        503: {
          description:
            "`context_admission_unavailable` (C4.3), `store_unavailable` or `daemon_stopping`",
          schema: () => z.union([contextAdmissionRefusalSchema(), errorEnvelopeSchema()]),
        },
      },
      ownerOnly: "Sending input to a session",
      body: inputRequestSchema,
      handler: async ({ req, params }) => {
        const request = parseInput(inputRequestSchema, await readJsonBody(req));
        refuseContextAdmission(request);
        const delivery = await deps.supervisor.input(params.id, request.data);
        return jsonResponse({ ok: true, accepted: true, ...delivery });
      },
    },
    {
      method: "POST",
      path: "/sessions/:id/interrupt",
      summary: "Cancel the current turn; the session stays live (D16)",
      operationId: "interruptSession",
      tag: "sessions",
      responses: {
        200: { description: "Interrupted", schema: acceptedSchema },
        400: errorDoc("`invalid_request`: the body breaks the schema"),
        404: errorDoc("`session_not_found`"),
        409: errorDoc("`session_not_live`: the session is not running"),
      },
      body: emptyRequestSchema,
      ownerOnly: "Interrupting a session",
      handler: async ({ req, params }) => {
        parseInput(emptyRequestSchema, await readJsonBody(req));
        deps.supervisor.interrupt(params.id);
        return jsonResponse({ ok: true, accepted: true });
      },
    },
    {
      method: "POST",
      path: "/sessions/:id/close",
      summary: "End the conversation once the agent is idle (D16)",
      operationId: "closeSession",
      tag: "sessions",
      responses: {
        200: { description: "Closing", schema: acceptedSchema },
        400: errorDoc("`invalid_request`: the body breaks the schema"),
        404: errorDoc("`session_not_found`"),
        409: errorDoc("`session_not_live`: the session is not running"),
      },
      body: emptyRequestSchema,
      ownerOnly: "Closing a session",
      handler: async ({ req, params }) => {
        parseInput(emptyRequestSchema, await readJsonBody(req));
        deps.supervisor.close(params.id);
        return jsonResponse({ ok: true, accepted: true });
      },
    },
    resumeRoute(deps),
    unparkRoute(deps),
    {
      method: "POST",
      path: "/sessions/:id/kill",
      summary: "End a live session's process group (D7)",
      operationId: "killSession",
      tag: "sessions",
      responses: {
        200: { description: "Signalled", schema: acceptedSchema },
        400: errorDoc("`invalid_request`: the body breaks the schema"),
        404: errorDoc("`session_not_found`"),
        409: errorDoc("`session_not_live`: the session is not running"),
      },
      ownerOnly: "Killing a session",
      body: killRequestSchema,
      handler: async ({ req, params }) => {
        const request = parseInput(killRequestSchema, await readJsonBody(req));
        deps.supervisor.kill(params.id, request.signal ?? "SIGTERM");
        return jsonResponse({ ok: true, accepted: true });
      },
    },
  ];
}

/**
 * `POST /sessions/{id}/resume` (D26): relaunches an ended conversation's
 * agent with its own resume; the same session and event log go on.
 */
function resumeRoute(deps: SessionDeps): Route {
  return {
    method: "POST",
    path: "/sessions/:id/resume",
    summary: "Continue an ended conversation in a new agent process (D26)",
    operationId: "resumeSession",
    tag: "sessions",
    responses: {
      200: { description: "The session record, running again", schema: sessionRecordSchema },
      400: errorDoc("`invalid_request`: the body breaks the schema"),
      404: errorDoc("`session_not_found`"),
      409: errorDoc(
        "`session_live`, `not_resumable` (`details.reason`, e.g. `paths_refused`) or `worktree_removed`",
      ),
      ...STARTING_AN_AGENT,
    },
    ownerOnly: "Resuming a session", // D23: TCP never executes anything.
    body: resumeRequestSchema,
    handler: async ({ req, params }) => {
      const request = parseInput(resumeRequestSchema, await readJsonBody(req));
      const { row: resumed } = await deps.supervisor.resume(
        params.id,
        request.model !== undefined ? { model: request.model } : {},
      );
      return jsonResponse(sessionRecord(resumed));
    },
  };
}

/** The answers of a route that starts an agent process again (resume, unpark). */
const STARTING_AN_AGENT = {
  429: errorDoc("`too_many_sessions`: maxLiveSessions are running"),
  500: errorDoc("`launch_failed`: the agent could not be started (the session ended failed)"),
  503: errorDoc("`store_unavailable` or `daemon_stopping`"),
};

/**
 * `POST /sessions/{id}/unpark` (D33): resumes a parked session now and sends
 * its interrupted turn again; `{ "cancel": true }` stops its timer instead.
 */
function unparkRoute(deps: SessionDeps): Route {
  return {
    method: "POST",
    path: "/sessions/:id/unpark",
    summary: "Resume a session parked on a limit now, or stop its timer (D33)",
    operationId: "unparkSession",
    tag: "sessions",
    responses: {
      200: {
        description: "The session record: running again, or still parked with the timer cancelled",
        schema: sessionRecordSchema,
      },
      400: errorDoc("`invalid_request`: the body breaks the schema"),
      404: errorDoc("`session_not_found`"),
      409: errorDoc(
        "`session_not_parked`, `session_live`, `not_resumable` (`details.reason`) or `worktree_removed`",
      ),
      ...STARTING_AN_AGENT,
    },
    ownerOnly: "Unparking a session", // D23: TCP never executes anything.
    body: unparkRequestSchema,
    handler: async ({ req, params }) => {
      const request = parseInput(unparkRequestSchema, await readJsonBody(req));
      const row = await deps.parking.unpark(params.id, { cancel: request.cancel ?? false });
      return jsonResponse(sessionRecord(row));
    },
  };
}
