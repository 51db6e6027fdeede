import { invalidRequest, sessionNotFound } from "./errors.ts";
import { jsonResponse } from "./json.ts";
import { integerParam } from "./query.ts";
import type { Route } from "./route.ts";
import { parseInput } from "./validate.ts";
import { readJsonBody } from "../policy/body.ts";
import type { CapabilityRegistry } from "../sessions/capabilities.ts";
import type { ApprovalPolicy } from "../approvals/broker.ts";
import type { HarnessSpec } from "../sessions/harnesses.ts";
import {
  defaultTitle,
  emptyRequestSchema,
  inputRequestSchema,
  killRequestSchema,
  launchRequestSchema,
  MAX_PROMPT_BYTES,
  parseLaunchRequest,
  refuseContextAdmission,
} from "../sessions/launch_request.ts";
import { resolveLaunchPaths } from "../sessions/paths.ts";
import { redactText } from "../events/redact.ts";
import type { LaunchSpec, Supervisor } from "../sessions/supervisor.ts";
import {
  SESSION_STATUSES,
  sessionRecord,
  type SessionsStore,
  type SessionStatus,
} from "../store/sessions_store.ts";

/** A prompt passed as one argument must stay under Linux's per-argument limit (128 KiB). */
const MAX_ARG_PROMPT_BYTES = 120 * 1024;

/** What the session routes need. */
export interface SessionDeps {
  readonly sessions: SessionsStore;
  readonly supervisor: Supervisor;
  readonly harnesses: () => ReadonlyMap<string, HarnessSpec>;
  readonly capabilities: CapabilityRegistry;
  readonly projectRoots: () => readonly string[] | null;
  /** The approval policy of a launch that names none (config `approvals.interactive`, D18). */
  readonly defaultApprovals: () => ApprovalPolicy;
}

/**
 * Validates a launch down to a `LaunchSpec` (D7): harness known and enabled,
 * prompt small enough for how the harness takes it, paths contained. Shared
 * by `POST /sessions` and automation runs (C3: one launch path).
 */
export async function prepareLaunch(
  deps: SessionDeps,
  request: {
    projectRoot: string;
    cwd?: string;
    harness: string;
    prompt: string;
    model?: string;
    title?: string;
    familiarId?: string;
  },
): Promise<Omit<LaunchSpec, "origin" | "oneShot" | "approvals">> {
  const harness = deps.harnesses().get(request.harness);
  const status = deps.capabilities.harness(request.harness)?.status;
  if (!harness || status === undefined) {
    throw invalidRequest(`Harness "${request.harness}" is not supported`, "harness");
  }
  if (status === "disabled") {
    throw invalidRequest(
      `Harness "${request.harness}" is not installed: its program was not found`,
      "harness",
    );
  }
  const promptBytes = new TextEncoder().encode(request.prompt).length;
  if (promptBytes === 0 || promptBytes > MAX_PROMPT_BYTES) {
    throw invalidRequest(`Prompt must be 1 to ${MAX_PROMPT_BYTES} bytes of UTF-8`, "prompt");
  }
  if (harness.prompt === "arg" && promptBytes > MAX_ARG_PROMPT_BYTES) {
    throw invalidRequest(
      `Prompt is too long for harness "${harness.id}", which takes it as an argument (at most ${MAX_ARG_PROMPT_BYTES} bytes)`,
      "prompt",
    );
  }
  const paths = await resolveLaunchPaths(request.projectRoot, request.cwd, deps.projectRoots());
  return {
    ...paths,
    harness,
    prompt: request.prompt,
    model: request.model ?? null,
    title: request.title === undefined ? defaultTitle(request.prompt) : redactText(request.title),
    familiarId: request.familiarId ?? null,
  };
}

/** Session routes (C4, D7). */
export function sessionRoutes(deps: SessionDeps): Route[] {
  return [
    {
      method: "GET",
      path: "/sessions",
      summary: "Session records, newest first (D7)",
      handler: ({ url }) => {
        const status = url.searchParams.get("status");
        if (status !== null && !SESSION_STATUSES.includes(status as SessionStatus)) {
          throw invalidRequest(
            `Query parameter "status" must be one of ${SESSION_STATUSES.join(", ")}`,
            "status",
          );
        }
        const limit = integerParam(url, "limit", { min: 1, max: 1000 }) ?? 100;
        const rows = deps.sessions.list({ status: (status ?? undefined) as SessionStatus, limit });
        return jsonResponse(rows.map(sessionRecord));
      },
    },
    {
      method: "POST",
      path: "/sessions",
      summary: "Launch a harness session (C4, D7)",
      body: launchRequestSchema,
      handler: async ({ req }) => {
        const request = parseLaunchRequest(await readJsonBody(req));
        refuseContextAdmission(request);
        const spec = await prepareLaunch(deps, request);
        const { row } = await deps.supervisor.launch({
          ...spec,
          origin: "api",
          oneShot: request.oneShot ?? false,
          approvals: request.approvals ?? deps.defaultApprovals(),
        });
        return jsonResponse(sessionRecord(row), 201);
      },
    },
    {
      method: "GET",
      path: "/sessions/:id",
      summary: "One session record (D7)",
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
      body: inputRequestSchema,
      handler: async ({ req, params }) => {
        const request = parseInput(inputRequestSchema, await readJsonBody(req));
        refuseContextAdmission(request);
        const delivery = deps.supervisor.input(params.id, request.data);
        return jsonResponse({ ok: true, accepted: true, ...delivery });
      },
    },
    {
      method: "POST",
      path: "/sessions/:id/interrupt",
      summary: "Cancel the current turn; the session stays live (D16)",
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
      body: emptyRequestSchema,
      ownerOnly: "Closing a session",
      handler: async ({ req, params }) => {
        parseInput(emptyRequestSchema, await readJsonBody(req));
        deps.supervisor.close(params.id);
        return jsonResponse({ ok: true, accepted: true });
      },
    },
    {
      method: "POST",
      path: "/sessions/:id/kill",
      summary: "End a live session's process group (D7)",
      body: killRequestSchema,
      handler: async ({ req, params }) => {
        const request = parseInput(killRequestSchema, await readJsonBody(req));
        deps.supervisor.kill(params.id, request.signal ?? "SIGTERM");
        return jsonResponse({ ok: true, accepted: true });
      },
    },
  ];
}
