import { z } from "zod";
import { invalidRequest, ServiceError } from "../errors.ts";
import { boundedText, parseInput } from "../validate.ts";
import { redactText } from "../events/redact.ts";
import { APPROVAL_POLICIES } from "../approvals/broker.ts";
import { ISOLATIONS } from "../worktrees/isolated_launch.ts";
import { worktreeSetupSchema } from "../worktrees/setup.ts";
import { autoResumeSchema } from "./park_record.ts";

const SHA256_DIGEST = /^sha256:[0-9a-f]{64}$/;
const utf8Length = (text: string) => new TextEncoder().encode(text).length;

/** Largest prompt, in UTF-8 bytes (D7). */
export const MAX_PROMPT_BYTES = 256 * 1024;

/** The `contextAdmission` intent (C4.3, D11). */
export const contextAdmissionSchema = z.strictObject({
  version: z.literal(1),
  sources: z.array(z.strictObject({
    kind: z.enum(["file", "text"]),
    ref: boundedText(1, 1024),
    digest: z.string().regex(SHA256_DIGEST, "must be sha256:<64 lowercase hex>"),
  })).min(1).max(64),
});

/** `POST /sessions` (D7): closed, so unknown keys are refused. */
export const launchRequestSchema = z.strictObject({
  projectRoot: boundedText(1, 4096),
  harness: boundedText(1, 64),
  prompt: z.string().refine(
    (prompt) => prompt.length > 0 && utf8Length(prompt) <= MAX_PROMPT_BYTES,
    `must be 1 to ${MAX_PROMPT_BYTES} bytes of UTF-8`,
  ),
  cwd: boundedText(1, 4096).optional(),
  model: boundedText(1, 64).optional(),
  title: boundedText(0, 160).optional(),
  familiarId: boundedText(1, 64).optional(),
  /** Close a protocol session after its first turn (D16). */
  oneShot: z.boolean().optional(),
  /** How permission requests are answered (D18); default config `approvals.interactive`. */
  approvals: z.enum(APPROVAL_POLICIES).optional(),
  /** Run in a new git worktree of the repository containing cwd (D20); default "none". */
  isolation: z.enum(ISOLATIONS).optional(),
  /** Replaces config `worktreeSetup` for this isolated launch (D27). */
  worktreeSetup: worktreeSetupSchema.optional(),
  contextAdmission: contextAdmissionSchema.optional(),
  /** Resume by itself when a limit it parked on lifts (D33); default config `autoResume`. */
  autoResume: autoResumeSchema.optional(),
});

/** `POST /sessions/{id}/unpark` (D33): `cancel` stops waiting instead of resuming now. */
export const unparkRequestSchema = z.strictObject({
  cancel: z.boolean().optional(),
});

export type LaunchRequest = z.output<typeof launchRequestSchema>;

/** `POST /sessions/{id}/input` (D7). */
export const inputRequestSchema = z.strictObject({
  data: z.string(),
  contextAdmission: contextAdmissionSchema.optional(),
});

/** `POST /sessions/{id}/resume` (D26): optionally another model for the rest of it. */
export const resumeRequestSchema = z.strictObject({
  model: boundedText(1, 64).optional(),
});

/** `POST /sessions/{id}/interrupt` and `/close` (D16): an empty object. */
export const emptyRequestSchema = z.strictObject({});

/** `POST /sessions/{id}/kill` (D7): no `contextAdmission` here (C4.3 rule 3). */
export const killRequestSchema = z.strictObject({
  signal: z.enum(["SIGTERM", "SIGKILL"]).optional(),
});

/**
 * C4.3: a request carrying a valid `contextAdmission` intent is refused with
 * 503 and nothing executes; an invalid one was already refused by the schema.
 */
export function refuseContextAdmission(request: { contextAdmission?: unknown }): void {
  if (request.contextAdmission === undefined) return;
  throw new ServiceError(
    "context_admission_unavailable",
    503,
    "Context admission is not enabled on this daemon: nothing was executed",
    {},
    { accepted: false, receiptIssued: false },
  );
}

/** Parses a launch body: `sessionPolicy` (even null) is refused first (C4, D7). */
export function parseLaunchRequest(body: unknown): LaunchRequest {
  if (body !== null && typeof body === "object" && "sessionPolicy" in body) {
    throw invalidRequest(
      'Field "sessionPolicy" is not accepted here: restricted launches use /sessions/restricted',
      "sessionPolicy",
    );
  }
  return parseInput(launchRequestSchema, body);
}

/** The default title: the prompt's first line, redacted, cut to 160 characters (D7, D9). */
export function defaultTitle(prompt: string): string {
  return cutText(redactText(prompt.split(/\r?\n/, 1)[0]), 160);
}

/** The first `max` UTF-16 units of `text`, one fewer rather than half a surrogate pair. */
function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  const last = text.charCodeAt(max - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}
