import { z } from "zod";
import { invalidRequest, ServiceError, storeUnavailable } from "../errors.ts";
import { jsonResponse } from "./json.ts";
import type { Route } from "./route.ts";
import { actionFailureSchema, actionSuccessSchema } from "./schemas.ts";
import { absolutePath, boundedText, idPrefixSchema, parseInput } from "../validate.ts";
import { readJsonBody } from "../policy/body.ts";
import { checkActionAuthority, mayStartPrograms } from "../policy/access.ts";
import type { Peer } from "../policy/peer.ts";
import { parseDefinition } from "../automations/definition.ts";
import type { RoutineService } from "../automations/routines.ts";
import type { Scheduler } from "../automations/scheduler.ts";
import type { CapabilityRegistry } from "../sessions/capabilities.ts";
import type { ApprovalBroker } from "../approvals/broker.ts";
import type { Inbox } from "../automations/inbox.ts";
import type { Worktrees } from "../worktrees/worktrees.ts";
import type { ApprovalDeps } from "./approvals.ts";
import { RULE_SCOPES } from "../policy/approval_rules.ts";
import { HARNESS_ID_PATTERN } from "../sessions/harnesses.ts";

/** What the action router needs. */
export interface ActionDeps extends ApprovalDeps {
  readonly routines: RoutineService;
  readonly scheduler: Scheduler;
  readonly capabilities: CapabilityRegistry;
  readonly approvals: ApprovalBroker;
  /** Worktrees of isolated sessions and runs (D20). */
  readonly worktrees: Worktrees;
  /** Delivered run results (D21). */
  readonly inbox: Inbox;
  /** True once `svc.db` was deleted or replaced under the daemon (D24). */
  readonly storeLost: () => boolean;
  /** Routines were created, updated, deleted or imported (the daemon-wide feed, D19). */
  readonly changed: (notice: RoutinesChanged) => void;
}

/** The feed's `automations.changed` notice (D19): the action and the routines it changed. */
export interface RoutinesChanged {
  readonly action: string;
  readonly routineIds: readonly string[];
}

/** What an executor returns: the event kind, its payload and the versioned `result`. */
interface ActionOutcome {
  kind: string;
  payload: Record<string, unknown>;
  result?: unknown;
  /** Set by actions that change routines: the ids changed, for `automations.changed` (D19). */
  changedRoutineIds?: string[];
}

interface ActionDefinition {
  /** The action-specific top-level fields (the envelope's are added). */
  fields: z.ZodRawShape;
  run(input: Record<string, unknown>, peer: Peer): Promise<ActionOutcome> | ActionOutcome;
  /**
   * Set on actions that only read (or, given a function, on the inputs that
   * only read): they answer like a GET while the store is lost; every other
   * action is a mutation and answers 503 `store_unavailable` then (D24).
   */
  readOnly?: true | ((input: Record<string, unknown>) => boolean);
}

const id = boundedText(1, 96);

/**
 * A versioned automation action: kind `automations.changed`, payload = result
 * (C4.1). An action that changes routines names them with `changedRoutines`
 * (undefined: it changed none, and the feed hears nothing).
 */
function automation<Result extends object>(
  fields: z.ZodRawShape,
  run: (input: Record<string, unknown>) => Result | Promise<Result>,
  changedRoutines?: (result: Result) => string[] | undefined,
): ActionDefinition {
  return {
    fields,
    run: async (input) => {
      const result = await run(input);
      return {
        kind: "automations.changed",
        payload: { ...result } as Record<string, unknown>,
        result,
        changedRoutineIds: changedRoutines?.(result),
      };
    },
  };
}

/** `action`, marked as one that only reads (D24). */
function reading(action: ActionDefinition): ActionDefinition {
  return { ...action, readOnly: true };
}

/**
 * The closed table of actions (C4.1, D5, D10): anything else is refused. A
 * Map, so an id such as `constructor` or `__proto__` finds nothing (issue 28
 * item 4: an object literal answered those from Object.prototype, a 500).
 */
function actionTable(deps: ActionDeps): ReadonlyMap<string, ActionDefinition> {
  const { routines, scheduler } = deps;
  return new Map(Object.entries<ActionDefinition>({
    "svc.capabilities.refresh": {
      fields: {},
      readOnly: true,
      // Over TCP the last probe's records: a TCP peer never makes the daemon run programs (D23).
      run: async (_input, peer) => ({
        kind: "capabilities.changed",
        payload: {
          capabilities: mayStartPrograms(peer)
            ? await deps.capabilities.refresh()
            : await deps.capabilities.latest(),
        },
      }),
    },
    "svc.automations.list": {
      readOnly: true,
      fields: {
        limit: z.number().int().min(1).max(1000).optional(),
        cursor: id.optional(),
        /** Only routines whose id starts with this (issue 27 item 9). */
        idPrefix: idPrefixSchema().optional(),
      },
      run: (input) => {
        const result = routines.list({
          cursor: input.cursor as string | undefined,
          idPrefix: input.idPrefix as string | undefined,
          limit: (input.limit as number | undefined) ?? 100,
        });
        // The payload counts; the routines are in `result` only (issue 13: not twice).
        const payload = { count: result.routines.length, nextCursor: result.nextCursor };
        return { kind: "automations.changed", payload, result };
      },
    },
    "svc.automations.get": reading(automation(
      { id },
      (input) => ({ routine: routines.get(input.id as string) }),
    )),
    "svc.automations.create": automation(
      { definition: z.unknown() },
      (input) => routines.create(parseDefinition(input.definition)),
      (result) => [result.routine.id],
    ),
    "svc.automations.update": automation(
      { definition: z.unknown() },
      (input) => routines.update(parseDefinition(input.definition)),
      (result) => [result.routine.id],
    ),
    // D30: only the status, so an `operate` device may pause and activate (update stays the owner's).
    "svc.automations.pause": automation(
      { id },
      (input) => routines.setStatus(input.id as string, "PAUSED"),
      (result) => result.changed ? [result.routine.id] : undefined,
    ),
    "svc.automations.activate": automation(
      { id },
      (input) => routines.setStatus(input.id as string, "ACTIVE"),
      (result) => result.changed ? [result.routine.id] : undefined,
    ),
    "svc.automations.delete": automation(
      { id },
      (input) => routines.delete(input.id as string),
      (result) => [result.id],
    ),
    "svc.automations.tick": automation({}, () => scheduler.tick()),
    "svc.automations.runs": reading(automation(
      // `id`, `idPrefix` or both (issue 27 item 9: the CLI resolves short run ids).
      {
        id: id.optional(),
        idPrefix: idPrefixSchema().optional(),
        limit: z.number().int().optional(),
      },
      (input) => {
        if (input.id === undefined && input.idPrefix === undefined) {
          throw invalidRequest('Field "id" is required (or "idPrefix")', "id");
        }
        return {
          runs: routines.runs({
            id: input.id as string | undefined,
            idPrefix: input.idPrefix as string | undefined,
            limit: input.limit as number | undefined,
          }),
        };
      },
    )),
    "svc.automations.run": {
      fields: {
        id,
        cwd: absolutePath().optional(),
      },
      run: async (input) => {
        const result = await routines.runNow(input.id as string, input.cwd as string | undefined);
        // The payload carries `error` (C4.1 rule 4: clients inspect event.payload.error).
        return { kind: "automations.changed", payload: { ...result }, result };
      },
    },
    "svc.automations.import": automation(
      {},
      () => routines.import(),
      (result) => result.imported,
    ),
    "svc.sessions.approve": {
      fields: {
        sessionId: id,
        requestId: boundedText(1, 256),
        decision: z.enum(["allow", "deny"]),
        remember: z.boolean().optional(),
        // D28: where the rule of an "always" (remember) allow applies; implies remember.
        scope: z.enum(RULE_SCOPES).optional(),
        message: boundedText(1, 4096).optional(),
      },
      run: (input, peer) => {
        const { sessionId, requestId, decision } = input as {
          sessionId: string;
          requestId: string;
          decision: "allow" | "deny";
        };
        const scope = input.scope as typeof RULE_SCOPES[number] | undefined;
        // D30 audit: an answer from a paired device names it.
        const device = peer.transport === "tcp" ? peer.device : undefined;
        const { rule } = deps.approvals.answer(sessionId, requestId, {
          decision,
          remember: input.remember === true || scope !== undefined,
          message: (input.message as string | undefined) ?? null,
          ...(scope === undefined ? {} : { scope }),
          ...(device === undefined ? {} : { device: { id: device.id, name: device.name } }),
        });
        const result = { sessionId, requestId, decision, rule };
        return {
          kind: "approval.resolved",
          payload: { sessionId, requestId, decision, ruleId: rule?.id ?? null },
          result,
        };
      },
    },
    "svc.approvals.rules.add": {
      fields: {
        decision: z.enum(["allow", "deny"]),
        sessionId: id.optional(),
        harness: z.string().regex(HARNESS_ID_PATTERN).optional(),
        projectRoot: absolutePath().optional(),
        tool: boundedText(1, 128).optional(),
        command: z.array(boundedText(1, 4096)).min(1).max(64).optional(),
        path: boundedText(1, 4096).optional(),
        note: boundedText(1, 1024).optional(),
      },
      run: (input) => {
        const { action: _action, origin: _origin, intentId: _intentId, ...fields } = input;
        if (
          fields.tool === undefined && fields.command === undefined && fields.path === undefined
        ) {
          throw invalidRequest(
            "A rule must name a tool, a command or a path (to allow everything, use approvals: allow)",
            "tool",
          );
        }
        const rule = deps.approvalRules.add(
          fields as Parameters<ApprovalDeps["approvalRules"]["add"]>[0],
        );
        return { kind: "approval.rules.changed", payload: { added: rule.id }, result: { rule } };
      },
    },
    "svc.approvals.rules.remove": {
      fields: { id },
      run: (input) => {
        const result = deps.approvalRules.remove(input.id as string);
        return { kind: "approval.rules.changed", payload: { removed: result.id }, result };
      },
    },
    "svc.sessions.approvals": {
      fields: { sessionId: id.optional() },
      readOnly: true,
      run: (input) => {
        const result = { approvals: deps.approvals.list(input.sessionId as string | undefined) };
        return { kind: "approvals.listed", payload: { count: result.approvals.length }, result };
      },
    },
    "svc.automations.health": reading(
      automation({ id }, (input) => routines.health(input.id as string)),
    ),
    "svc.automations.overview": {
      fields: {},
      readOnly: true,
      run: () => {
        const result = routines.overview();
        return { kind: "automations.changed", payload: { count: result.routines.length }, result };
      },
    },
    "svc.automations.worktrees": {
      fields: { routineId: id.optional() },
      readOnly: true,
      run: (input) => {
        const result = { worktrees: deps.worktrees.list(input.routineId as string | undefined) };
        return { kind: "automations.changed", payload: { count: result.worktrees.length }, result };
      },
    },
    "svc.automations.prune": {
      fields: { routineId: id.optional(), force: z.boolean().optional() },
      run: async (input) => {
        const removals = await deps.worktrees.prune({
          routineId: input.routineId as string | undefined,
          force: input.force === true,
        });
        const result = { removals };
        const removed = removals.filter((removal) => removal.removed).length;
        return {
          kind: "automations.changed",
          payload: { removed, kept: removals.length - removed },
          result,
        };
      },
    },
    "svc.automations.inbox": {
      readOnly: true,
      fields: {
        unread: z.boolean().optional(),
        limit: z.number().int().min(1).max(1000).optional(),
      },
      run: (input) => {
        const result = {
          results: deps.inbox.list({
            unread: input.unread === true,
            limit: (input.limit as number | undefined) ?? 100,
          }),
        };
        return { kind: "automations.changed", payload: { count: result.results.length }, result };
      },
    },
    "svc.automations.result": {
      fields: { runId: id, markRead: z.boolean().optional() },
      readOnly: (input) => input.markRead !== true,
      run: async (input) => {
        const result = await deps.inbox.result(input.runId as string, input.markRead === true);
        return {
          kind: "automations.changed",
          payload: { runId: input.runId, markRead: input.markRead === true },
          result,
        };
      },
    },
  }));
}

const envelopeSchema = z.object({
  action: z.string({ error: "is required" }).min(1),
  origin: z.string().optional(),
  intentId: z.string().optional(),
});

/** The action failure shape (C4.1, D10) around the one typed error. */
function rejected(error: ServiceError): ServiceError {
  return new ServiceError(error.code, error.status, error.message, error.details, {
    ...error.extra,
    ok: false,
    accepted: false,
    status: "rejected",
    reason: error.message,
  });
}

/**
 * `POST /actions` (C4.1): malformed JSON or a missing `action` → 400; over
 * TCP every `svc.automations.*` id outside the diagnostics allowlist, known
 * or not, → 403 `AUTHORITY_REQUIRED` before validation; unknown ids → 400
 * (fail closed); then the action's closed schema and its executor.
 */
export function actionRoutes(deps: ActionDeps): Route[] {
  const table = actionTable(deps);
  return [{
    method: "POST",
    path: "/actions",
    summary: "The action router (C4.1, D10)",
    operationId: "runAction",
    tag: "actions",
    // One closed request schema per action, told apart by `action` (documentation of the table).
    body: z.discriminatedUnion(
      "action",
      [...table].map(([name, action]) =>
        z.strictObject({
          action: z.literal(name),
          origin: envelopeSchema.shape.origin,
          intentId: envelopeSchema.shape.intentId,
          ...action.fields,
        })
      ) as unknown as [z.ZodObject, ...z.ZodObject[]],
    ),
    responses: {
      200: {
        description: "Completed; check `result` and `event.payload.error` (C4.1 rule 4)",
        schema: () => z.union([...table.keys()].map((name) => actionSuccessSchema(name))),
      },
      400: {
        description: "Malformed, unknown action, or invalid fields",
        schema: actionFailureSchema,
      },
      403: { description: "`AUTHORITY_REQUIRED` over TCP", schema: actionFailureSchema },
      404: {
        description: "A named routine, run or request is unknown",
        schema: actionFailureSchema,
      },
      409: {
        description: "A conflict (routine exists, approval not pending)",
        schema: actionFailureSchema,
      },
      503: {
        description: "`store_unavailable`: an action that writes while the store refuses writes " +
          "or was lost (read-only actions answer like GETs, D24)",
        schema: actionFailureSchema,
      },
    },
    failureShape: rejected,
    storeLostChecked: true,
    handler: async ({ req, peer }) => {
      const body = await readJsonBody(req);
      if (body === null || typeof body !== "object" || Array.isArray(body)) {
        throw invalidRequest("Action request must be a JSON object");
      }
      const envelope = parseInput(envelopeSchema, body);
      checkActionAuthority(peer, envelope.action);
      const action = table.get(envelope.action);
      if (action === undefined) {
        throw invalidRequest(`Unknown action "${envelope.action}"`, "action");
      }
      if ("contextAdmission" in body) {
        throw invalidRequest(
          'Field "contextAdmission" is not accepted on actions',
          "contextAdmission",
        );
      }
      const input = parseInput(
        z.strictObject({ ...envelopeSchema.shape, ...action.fields }),
        body,
      );
      const readOnly = typeof action.readOnly === "function"
        ? action.readOnly(input)
        : action.readOnly === true;
      // D24: with svc.db gone, nothing is acknowledged that the next start would lose.
      if (!readOnly && deps.storeLost()) throw storeUnavailable();
      const outcome = await action.run(input, peer);
      if (outcome.changedRoutineIds !== undefined) {
        deps.changed({ action: envelope.action, routineIds: outcome.changedRoutineIds });
      }
      return jsonResponse({
        ok: true,
        accepted: true,
        action: envelope.action,
        status: "completed",
        event: {
          kind: outcome.kind,
          action: envelope.action,
          origin: envelope.origin ?? null,
          intentId: envelope.intentId ?? null,
          payload: outcome.payload,
        },
        ...(outcome.result === undefined ? {} : { result: outcome.result }),
      });
    },
  }];
}
