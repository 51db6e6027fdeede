import { autoResumeSchema } from "../sessions/park_record.ts";
import { z } from "zod";
import { ServiceError } from "../errors.ts";
import {
  absolutePathRequirement,
  type HostOs,
  isAbsoluteHostPath,
  parseInputAll,
} from "../validate.ts";
import { APPROVAL_POLICIES } from "../approvals/broker.ts";
import { parseRrule } from "./rrule.ts";
import { ISOLATIONS } from "../worktrees/isolated_launch.ts";
import { worktreeSetupSchema } from "../worktrees/setup.ts";

/** Zod error option: "required field is missing" when absent, else `requirement`. */
function requires(requirement: string) {
  return {
    error: (issue: { input?: unknown }) =>
      issue.input === undefined ? "required field is missing" : requirement,
  };
}

/** A path absolute on `os`, the daemon's host (issue 28 item 9: `C:/x` is relative on Linux). */
function hostPath(os: HostOs) {
  const requirement = requires(absolutePathRequirement(os));
  return z.string(requirement).refine((path) => isAbsoluteHostPath(path, os), requirement);
}

function boundedString(min: number, max: number) {
  const text = `expected a string of ${min} to ${max} characters`;
  // JavaScript string length, as for sessions (D7); zod's .max counts code points past the bound.
  return z.string(requires(text)).min(min, requires(text)).max(max, requires(text)).refine(
    (value) => value.length >= min && value.length <= max,
    requires(text),
  );
}

function boundedInt(min: number, max: number) {
  const text = `expected an integer from ${min} to ${max}`;
  return z.int(requires(text)).min(min, requires(text)).max(max, requires(text));
}

/** The longest recurrence rule accepted (D12). */
export const MAX_RRULE_CHARS = 256;

const idText = 'expected 1 to 96 ASCII letters, digits, ".", "_" or "-"';

/** The routine definition of contract C2.6 for host `os` (closed: unknown keys are refused). */
function definitionSchema(os: HostOs) {
  return z.strictObject({
    schemaVersion: z.literal(1, requires("expected 1")),
    id: z.string(requires(idText)).regex(/^[A-Za-z0-9._-]{1,96}$/, requires(idText)),
    name: boundedString(1, 160),
    status: z.enum(["ACTIVE", "PAUSED"], requires('expected "ACTIVE" or "PAUSED"')),
    rrule: z.string(requires("expected a recurrence rule string")).check((ctx) => {
      // D12: at most 256 characters, checked before parsing (a 20k-entry rule was accepted).
      if (ctx.value.length > MAX_RRULE_CHARS) {
        ctx.issues.push({
          code: "custom",
          message: `expected at most ${MAX_RRULE_CHARS} characters, got ${ctx.value.length}`,
          input: ctx.value,
        });
        return;
      }
      try {
        parseRrule(ctx.value);
      } catch (error) {
        if (!(error instanceof ServiceError)) throw error;
        ctx.issues.push({ code: "custom", message: error.message, input: ctx.value });
      }
    }),
    timezone: z.enum(["local", "utc"], requires('expected "local" or "utc"')),
    misfire: z.literal("latest", requires('expected "latest"')),
    overlap: z.literal("forbid", requires('expected "forbid"')),
    timeoutMinutes: boundedInt(1, 44640),
    runtime: boundedString(1, 64),
    prompt: z.string(requires("expected 1 to 262144 bytes of UTF-8")).refine(
      (prompt) => prompt.length > 0 && new TextEncoder().encode(prompt).length <= 256 * 1024,
      requires("expected 1 to 262144 bytes of UTF-8"),
    ),
    familiarId: boundedString(1, 64).optional(),
    cwd: hostPath(os).optional(),
    model: boundedString(1, 64).optional(),
    /** Overrides config `approvals.unattended` for this routine's runs (D18). */
    approvals: z.enum(APPROVAL_POLICIES, requires('expected "ask", "deny" or "allow"')).optional(),
    /** A run parked on a limit resumes by itself when it lifts (D33); default config's. */
    autoResume: autoResumeSchema.optional(),
    tags: z.array(boundedString(1, 64), requires("expected an array of at most 32 strings"))
      .max(32, requires("expected an array of at most 32 strings")).optional(),
    /** Run each time in a new git worktree of the repository containing cwd (D20). */
    isolation: z.enum(ISOLATIONS, requires('expected "none" or "worktree"')).optional(),
    /** Replaces config `worktreeSetup` for this routine's isolated runs (D27). */
    worktreeSetup: worktreeSetupSchema.optional(),
    /** Where each run's result is written (D21). */
    outputTarget: z.discriminatedUnion("kind", [
      z.strictObject({ kind: z.literal("inbox") }),
      z.strictObject({
        kind: z.literal("file"),
        path: hostPath(os),
      }),
    ], requires('expected {"kind": "inbox"} or {"kind": "file", "path": "/abs/dir"}')).optional(),
  }, requires("expected an object"));
}

/** The routine definition of contract C2.6 on this host. */
export const routineDefinitionSchema = definitionSchema(Deno.build.os);

/** A validated routine definition (C2.6). */
export type RoutineDefinition = z.output<typeof routineDefinitionSchema>;

/** A routine as the store keeps and the API returns it (D10). */
export type StoredRoutine = RoutineDefinition & { createdAt: string; updatedAt: string };

/**
 * Validates a routine definition, or throws 400 `invalid_request` whose
 * `details.field` is the offending path under `fieldPrefix`
 * (`definition.rrule`, `definition.bogus` for an unknown key).
 */
export function parseDefinition(
  input: unknown,
  fieldPrefix = "definition",
  os: HostOs = Deno.build.os,
): RoutineDefinition {
  const schema = os === Deno.build.os ? routineDefinitionSchema : definitionSchema(os);
  return parseInputAll(schema, withoutStoredFields(input), fieldPrefix);
}

/**
 * A stored routine (`get`'s result) carries read-only `createdAt` and
 * `updatedAt`; dropping them lets `get` → edit → `update` round-trip.
 */
function withoutStoredFields(input: unknown): unknown {
  if (input === null || typeof input !== "object" || Array.isArray(input)) return input;
  const { createdAt: _created, updatedAt: _updated, ...definition } = input as Record<
    string,
    unknown
  >;
  return definition;
}
