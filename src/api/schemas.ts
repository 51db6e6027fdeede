/**
 * The shapes the daemon answers with, as zod schemas, for the OpenAPI
 * document (issue 15). The contract tests validate every response the
 * integration tests receive against the document made from these, so a
 * schema here that drifts from what a route sends fails the tests.
 */
import { z } from "zod";
import { routineDefinitionSchema } from "../automations/definition.ts";
import { SESSION_STATUSES } from "../store/sessions_store.ts";

const nullable = <T extends z.ZodType>(schema: T) => schema.nullable();

/**
 * Builds every schema once, on first use: the OpenAPI document is their only
 * reader at run time, so a daemon nobody asks for it never constructs them
 * (issue 14: about 5 MB of memory and 8 ms of start-up).
 */
const built = (() => {
  let schemas: ReturnType<typeof build> | null = null;
  return () => schemas ??= build();
})();

function build() {
  const isoTime = z.string().describe("RFC 3339 time, UTC");

  /** The error envelope (C2.3); some refusals add top-level members (C4.3's `accepted`). */
  const errorEnvelopeSchema = z.looseObject({
    error: z.object({
      code: z.string(),
      message: z.string(),
      details: z.record(z.string(), z.unknown()),
    }),
  });

  /** C4.3: a valid `contextAdmission` is refused with 503 and these members. */
  const contextAdmissionRefusalSchema = z.object({
    accepted: z.literal(false),
    receiptIssued: z.literal(false),
    error: errorEnvelopeSchema.shape.error,
  });

  /** The `/actions` failure shape (C4.1, D10): the envelope plus ok/accepted/status/reason. */
  const actionFailureSchema = z.looseObject({
    ok: z.literal(false),
    accepted: z.literal(false),
    status: z.literal("rejected"),
    reason: z.string(),
    error: errorEnvelopeSchema.shape.error,
  });

  /** C4.4: the restricted-launch refusal, its own body. */
  const restrictedRefusalSchema = z.object({
    decision: z.literal("rejected"),
    code: z.literal("enforcement_unavailable"),
    admission: z.literal("not_started"),
  });

  const capabilityRecordSchema = z.object({
    id: z.string(),
    label: z.string(),
    owner: z.string(),
    status: z.enum(["enabled", "disabled", "degraded"]),
    policy: z.string(),
    actions: z.array(z.string()),
  });

  const healthSchema = z.object({
    ok: z.boolean(),
    uptime: z.number(),
    liveSessions: z.int(),
    parkedSessions: z.int().describe("Sessions waiting out a provider's limit (D33)"),
    nextParkedUntil: nullable(isoTime).describe(
      "The soonest parkedUntil of a parked session: when the first limit lifts",
    ),
    store: z.enum(["ok", "degraded", "lost"]),
    probing: z.boolean(),
    apiVersion: z.string(),
    svcVersion: z.string(),
    sessionPolicyContracts: z.array(z.string()),
    pid: z.int(),
    startedAt: isoTime,
    instanceId: z.string(),
    endpoint: z.union([
      z.object({ transport: z.literal("unix"), path: z.string() }),
      z.object({ transport: z.literal("pipe"), name: z.string() }),
    ]),
    tcp: nullable(z.string()),
    capabilities: z.array(capabilityRecordSchema),
  });

  const usageSchema = z.object({
    inputTokens: nullable(z.number()),
    outputTokens: nullable(z.number()),
    cachedInputTokens: nullable(z.number()),
    costUsd: nullable(z.number()),
  });

  const worktreeSchema = z.object({
    path: z.string(),
    branch: z.string(),
    repository: z.string(),
    baseCommit: z.string(),
    headCommit: nullable(z.string()),
    changedFiles: nullable(z.int()),
    insertions: nullable(z.int()),
    deletions: nullable(z.int()),
    uncommittedFiles: nullable(z.int()),
    error: nullable(z.string()),
    removedAt: nullable(isoTime),
    landedAt: nullable(isoTime).optional().describe("When its work was landed (D27)"),
    landedCommit: nullable(z.string()).optional().describe("The owner's branch after the land"),
    landedMode: nullable(z.enum(["squash", "merge", "rebase"])).optional(),
  });

  const sessionRecordSchema = z.object({
    id: z.string(),
    project_root: z.string(),
    cwd: z.string(),
    harness: z.string(),
    title: z.string(),
    status: z.enum(SESSION_STATUSES),
    exit_code: nullable(z.int()),
    signal: nullable(z.string()),
    pid: nullable(z.int()),
    model: nullable(z.string()),
    familiar_id: nullable(z.string()),
    origin: z.enum(["api", "automation"]),
    routine_id: nullable(z.string()),
    run_id: nullable(z.string()),
    created_at: isoTime,
    updated_at: isoTime,
    ended_at: nullable(isoTime),
    last_seq: z.int(),
    protocol: z.enum(["raw", "claude", "codex-app-server", "acp"]),
    activity: nullable(z.enum(["starting", "working", "idle", "waiting_approval"])),
    agent_session_id: nullable(z.string()),
    turns: z.int(),
    approvals: nullable(z.enum(["ask", "deny", "allow"])),
    usage: nullable(usageSchema),
    worktree: nullable(worktreeSchema),
    resumable: z.boolean().describe(
      "The session has ended and POST /sessions/{id}/resume can continue it (D26)",
    ),
    resumes: z.int().describe("How many times the conversation was resumed (D26)"),
    parked: nullable(z.object({
      until: isoTime.describe("When the limit lifts: the agent's reset time, or a backoff"),
      reason: z.enum(["usage_limit", "rate_limit"]),
      autoResume: z.object({
        state: z.enum(["waiting", "off", "cancelled", "max_per_day", "failed", "done"]),
        at: nullable(isoTime).describe("When the timer resumes it, while `waiting`"),
        note: nullable(z.string()),
      }),
    })).describe("While the status is `parked` (D33): until when, why, its auto-resume"),
  });

  const eventRecordSchema = z.object({
    seq: z.int(),
    id: z.string(),
    session_id: z.string(),
    kind: z.string(),
    payload_json: z.string().describe("The event's payload as JSON text (C2.1)"),
    created_at: isoTime,
  });

  const eventPageSchema = z.object({
    events: z.array(eventRecordSchema),
    nextCursor: z.object({ afterSeq: z.int() }),
    hasMore: z.boolean(),
  });

  const acceptedSchema = z.object({
    ok: z.literal(true),
    accepted: z.literal(true),
    queued: z.boolean().optional().describe(
      "A protocol session's turn waits behind the running one",
    ),
  });

  const usageTotalSchema = usageSchema.extend({ key: nullable(z.string()), sessions: z.int() });

  const usageTotalsSchema = z.object({
    by: z.enum(["harness", "routine", "day"]),
    since: nullable(isoTime),
    timeZone: z.string(),
    groups: z.array(usageTotalSchema),
    total: usageTotalSchema,
  });

  const artifactSchema = z.object({
    artifact: z.object({
      id: z.string(),
      sessionId: z.string(),
      bytes: z.int(),
      offset: z.int(),
      length: z.int(),
      nextOffset: nullable(z.int()),
      encoding: z.literal("utf-8"),
      data: z.string(),
    }),
  });

  /** A stored routine (D10): the definition plus its times. */
  const storedRoutineSchema = z.looseObject({
    ...routineDefinitionSchema.shape,
    createdAt: isoTime,
    updatedAt: isoTime,
  });

  const runError = nullable(z.object({ code: z.string(), message: z.string() }));

  const runRecordSchema = z.object({
    id: z.string(),
    routineId: z.string(),
    trigger: z.enum(["schedule", "manual"]),
    scheduledFor: nullable(isoTime),
    status: z.enum(["running", "parked", "succeeded", "failed", "timed_out", "skipped"]),
    sessionId: nullable(z.string()),
    startedAt: nullable(isoTime),
    endedAt: nullable(isoTime),
    exitCode: nullable(z.int()),
    error: runError,
    permissionDenials: nullable(z.int()),
    usage: nullable(usageSchema),
    summary: nullable(z.string()),
    worktree: nullable(worktreeSchema),
    delivery: nullable(z.object({
      status: z.enum(["delivered", "failed"]),
      kind: z.enum(["inbox", "file"]),
      path: nullable(z.string()),
      error: nullable(z.string()),
      readAt: nullable(isoTime),
    })),
  });

  const toolKind = z.enum(["shell", "edit", "read", "fetch", "other"]);
  /** What a permissions request asks beyond the agent's sandbox (issue 33). */
  const permissionProfileSchema = z.object({
    network: z.boolean().describe("Network access"),
    read: z.array(z.string()).describe("Paths to read, absolute"),
    write: z.array(z.string()).describe("Paths to write (and read), absolute"),
  });
  const pendingApprovalSchema = z.object({
    sessionId: z.string(),
    requestId: z.string(),
    tool: z.string(),
    summary: z.string(),
    requestedAt: isoTime,
    expiresAt: isoTime,
    kind: toolKind.describe("svc's kind of the tool (D28)"),
    command: nullable(z.string()).describe("The shell command (redacted)"),
    argv: nullable(z.array(z.string())).describe("Its argv when it is one simple command"),
    paths: z.array(z.string()).describe("Paths it reads or writes, absolute"),
    projectRoot: nullable(z.string()),
    profile: nullable(permissionProfileSchema).describe(
      "A permissions request's profile: exactly what allowing it grants; null for other requests",
    ),
  });

  /** A standing approval rule (D28). */
  const approvalRuleSchema = z.object({
    id: z.string(),
    decision: z.enum(["allow", "deny"]),
    sessionId: z.string().optional(),
    harness: z.string().optional(),
    projectRoot: z.string().optional(),
    tool: z.string().optional().describe("The agent's tool name or svc's kind"),
    command: z.array(z.string()).optional().describe("An argv prefix"),
    path: z.string().optional().describe("A glob over absolute paths"),
    profile: permissionProfileSchema.optional().describe(
      "Permissions requests it allows: those asking no more than this",
    ),
    createdAt: isoTime,
    note: z.string().optional(),
  });

  /** One decision of the approval log (D28). */
  const approvalLogEntrySchema = z.object({
    cursor: z.string(),
    at: isoTime,
    sessionId: z.string(),
    harness: nullable(z.string()),
    requestId: z.string(),
    tool: nullable(z.string()),
    summary: nullable(z.string()),
    command: nullable(z.string()),
    paths: z.array(z.string()),
    decision: z.enum(["allow", "deny"]),
    by: z.enum(["owner", "policy", "timeout", "ended", "rule"]),
    ruleId: nullable(z.string()),
    device: nullable(z.object({ id: z.string(), name: z.string() }))
      .describe("The paired device the owner answered from (D30)"),
  });

  /** A routine's scheduling state (D12): the health action's answer, and each routine of the overview. */
  const routineHealthSchema = z.object({
    id: z.string(),
    status: z.enum(["ACTIVE", "PAUSED"]),
    nextDueAt: nullable(isoTime),
    lastPlannedAt: nullable(isoTime),
    lastRunAt: nullable(isoTime),
    lastSuccessAt: nullable(isoTime),
    consecutiveFailures: z.int(),
    missedCount: z.int(),
    lease: nullable(z.object({ owner: z.string(), expiresAt: isoTime })),
    stale: nullable(z.enum(["scheduler_not_ticking", "lease_expired"])),
  });

  /** `pause` and `activate` (D30): the routine as it now is; `changed` false when it already was. */
  const statusResult = z.object({
    routine: storedRoutineSchema,
    updatedAt: isoTime,
    changed: z.boolean().describe("False when the routine already had that status (not written)"),
    warnings: z.array(z.string()).describe("What may fail its runs (a cwd not there yet)"),
  });

  /** Each action's `result` (C4.1, D10, D18, D20, D21); `svc.capabilities.refresh` has none. */
  const ACTION_RESULTS: Record<string, z.ZodType | null> = {
    "svc.capabilities.refresh": null,
    "svc.automations.list": z.object({
      routines: z.array(storedRoutineSchema),
      nextCursor: nullable(z.string()),
    }),
    "svc.automations.get": z.object({ routine: nullable(storedRoutineSchema) }),
    "svc.automations.create": z.object({
      routine: storedRoutineSchema,
      createdAt: isoTime,
      warnings: z.array(z.string()).describe("What may fail its runs (a cwd not there yet)"),
    }),
    "svc.automations.update": z.object({
      routine: storedRoutineSchema,
      updatedAt: isoTime,
      warnings: z.array(z.string()).describe("What may fail its runs (a cwd not there yet)"),
    }),
    "svc.automations.pause": statusResult,
    "svc.automations.activate": statusResult,
    "svc.automations.delete": z.object({ id: z.string(), deleted: z.literal(true) }),
    "svc.automations.tick": z.object({
      planned: z.array(z.object({ routineId: z.string(), scheduledFor: isoTime, missed: z.int() })),
      recovered: z.array(z.object({ runId: z.string(), routineId: z.string(), error: z.string() })),
      claimed: z.array(z.object({
        routineId: z.string(),
        runId: z.string(),
        scheduledFor: isoTime,
        status: z.string(),
      })),
      failures: z.array(z.object({
        routineId: z.string(),
        runId: z.string().optional(),
        error: z.object({ code: z.string(), message: z.string() }),
      })),
    }),
    "svc.automations.runs": z.object({ runs: z.array(runRecordSchema) }),
    "svc.automations.run": z.object({
      runId: nullable(z.string()),
      status: runRecordSchema.shape.status,
      sessionId: nullable(z.string()),
      error: runError,
    }),
    "svc.automations.import": z.object({
      imported: z.array(z.string()),
      skipped: z.array(z.object({ id: z.string(), reason: z.string() })),
      failed: z.array(z.object({ file: z.string(), reason: z.string() })),
    }),
    "svc.automations.health": routineHealthSchema.extend({
      warnings: z.array(z.string()).describe("What may fail its runs (a cwd not there yet)"),
    }),
    "svc.automations.overview": z.object({
      routines: z.array(routineHealthSchema.extend({
        name: z.string(),
        runtime: z.string(),
        lastRun: nullable(z.object({
          id: z.string(),
          status: runRecordSchema.shape.status,
          endedAt: nullable(isoTime),
        })),
      })),
      truncated: z.boolean(),
    }),
    "svc.automations.worktrees": z.object({
      worktrees: z.array(z.object({
        sessionId: z.string(),
        routineId: nullable(z.string()),
        runId: nullable(z.string()),
        status: z.string(),
        worktree: worktreeSchema,
      })),
    }),
    "svc.automations.prune": z.object({
      removals: z.array(z.object({
        sessionId: z.string(),
        path: z.string(),
        branch: z.string(),
        removed: z.boolean(),
        branchDeleted: z.boolean(),
        reason: z.string().optional(),
      })),
    }),
    "svc.automations.inbox": z.object({
      results: z.array(z.object({
        runId: z.string(),
        routineId: z.string(),
        status: runRecordSchema.shape.status,
        endedAt: nullable(isoTime),
        path: z.string(),
        readAt: nullable(isoTime),
        headline: nullable(z.string()),
      })),
    }),
    "svc.automations.result": z.object({ run: runRecordSchema, markdown: z.string() }),
    "svc.sessions.approve": z.object({
      sessionId: z.string(),
      requestId: z.string(),
      decision: z.enum(["allow", "deny"]),
      rule: nullable(approvalRuleSchema).describe("The rule an always answer created (D28)"),
    }),
    "svc.approvals.rules.add": z.object({ rule: approvalRuleSchema }),
    "svc.approvals.rules.remove": z.object({ id: z.string(), removed: z.literal(true) }),
    "svc.sessions.approvals": z.object({ approvals: z.array(pendingApprovalSchema) }),
  };
  return {
    errorEnvelopeSchema,
    contextAdmissionRefusalSchema,
    actionFailureSchema,
    restrictedRefusalSchema,
    capabilityRecordSchema,
    healthSchema,
    usageSchema,
    worktreeSchema,
    sessionRecordSchema,
    eventRecordSchema,
    eventPageSchema,
    acceptedSchema,
    usageTotalsSchema,
    artifactSchema,
    storedRoutineSchema,
    runRecordSchema,
    approvalRuleSchema,
    approvalLogEntrySchema,
    ACTION_RESULTS,
  };
}

export const errorEnvelopeSchema = (): z.ZodType => built().errorEnvelopeSchema;
export const contextAdmissionRefusalSchema = (): z.ZodType => built().contextAdmissionRefusalSchema;
export const actionFailureSchema = (): z.ZodType => built().actionFailureSchema;
export const restrictedRefusalSchema = (): z.ZodType => built().restrictedRefusalSchema;
export const capabilityRecordSchema = (): z.ZodType => built().capabilityRecordSchema;
export const healthSchema = (): z.ZodType => built().healthSchema;
export const usageSchema = (): z.ZodType => built().usageSchema;
export const worktreeSchema = (): z.ZodType => built().worktreeSchema;
export const sessionRecordSchema = (): z.ZodType => built().sessionRecordSchema;
export const eventRecordSchema = (): z.ZodType => built().eventRecordSchema;
export const eventPageSchema = (): z.ZodType => built().eventPageSchema;
export const acceptedSchema = (): z.ZodType => built().acceptedSchema;
export const usageTotalsSchema = (): z.ZodType => built().usageTotalsSchema;
export const artifactSchema = (): z.ZodType => built().artifactSchema;
export const storedRoutineSchema = (): z.ZodType => built().storedRoutineSchema;
export const runRecordSchema = (): z.ZodType => built().runRecordSchema;
export const approvalRuleSchema = (): z.ZodType => built().approvalRuleSchema;
export const approvalLogEntrySchema = (): z.ZodType => built().approvalLogEntrySchema;

/** The success shape of action `action` (C4.1), with its `result` when it has one. */
export function actionSuccessSchema(action: string): z.ZodType {
  const { ACTION_RESULTS } = built();
  const result = Object.hasOwn(ACTION_RESULTS, action) ? ACTION_RESULTS[action] : null;
  return z.object({
    ok: z.literal(true),
    accepted: z.literal(true),
    action: z.literal(action),
    status: z.literal("completed"),
    event: z.object({
      kind: z.string(),
      action: z.literal(action),
      origin: nullable(z.string()),
      intentId: nullable(z.string()),
      payload: z.record(z.string(), z.unknown()),
    }),
    ...(result === null ? {} : { result }),
  });
}

/** A documented error answer: the envelope, with what causes it. */
export function errorDoc(description: string): { description: string; schema: () => z.ZodType } {
  return { description, schema: errorEnvelopeSchema };
}
