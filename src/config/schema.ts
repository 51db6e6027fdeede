import { type AutoResume, autoResumeSchema } from "../sessions/park_record.ts";
import { z } from "zod";
import { PROTOCOLS } from "../agents/protocol.ts";
import { APPROVAL_POLICIES, type ApprovalPolicy } from "../approvals/broker.ts";
import { NOTIFY_EVENTS, type NotifyConfig } from "../notify/notify_command.ts";
import {
  DEFAULT_AFTER_SECONDS,
  type NotificationsConfig,
  notificationsSchema,
} from "../notify/notification_config.ts";
import { boundedText, isAbsoluteHostPath } from "../validate.ts";
import { landVerifySchema, type ProjectLand } from "../worktrees/land_verify.ts";
import { type WorktreeSetup, worktreeSetupSchema } from "../worktrees/setup.ts";

const HARNESS_ID = /^[a-z0-9][a-z0-9._-]{0,63}$/;

/** Absolute on this host (issue 28 item 9: `C:\x` is not absolute on Linux). */
const absolutePath = z.string().refine(
  (path) => isAbsoluteHostPath(path),
  "must be an absolute path on this host",
);

const harnessSchema = z.strictObject({
  command: z.array(z.string().min(1)).min(1),
  prompt: z.enum(["arg", "stdin", "none"]).optional(),
  label: boundedText(1, 160).optional(),
  protocol: z.enum(PROTOCOLS).optional(),
}).superRefine((harness, ctx) => {
  const protocol = harness.protocol ?? "raw";
  if (protocol === "raw" && harness.prompt === undefined) {
    ctx.addIssue({ code: "custom", path: ["prompt"], message: "is required for a raw harness" });
  }
  if (protocol !== "raw" && (harness.prompt ?? "none") !== "none") {
    ctx.addIssue({
      code: "custom",
      path: ["prompt"],
      message:
        `must be "none" or absent: a "${protocol}" harness gets its prompt as the first turn`,
    });
  }
  if (protocol !== "raw" && harness.command.includes("{prompt}")) {
    ctx.addIssue({
      code: "custom",
      path: ["command"],
      message:
        `must not contain {prompt}: a "${protocol}" harness gets its prompt as the first turn`,
    });
  }
});

/** An http(s) origin: scheme, host and port, nothing after (D30 `web.origins`). */
const webOrigin = z.string().max(2048).refine((text) => {
  try {
    const url = new URL(text);
    return (url.protocol === "http:" || url.protocol === "https:") && url.origin === text;
  } catch {
    return false;
  }
}, 'must be an origin such as "https://box.tailnet.ts.net" (no path, no trailing slash)');

/** A positive number of minutes (fractions allowed: tests use seconds). */
const minutes = z.number().positive().max(7 * 24 * 60);

/** `$SVC_HOME/config.json` (D3): every key optional, unknown keys rejected. */
export const configSchema = z.strictObject({
  projectRoots: z.array(absolutePath).optional(),
  harnesses: z.record(
    z.string().regex(HARNESS_ID, "must match [a-z0-9][a-z0-9._-]{0,63}"),
    harnessSchema,
  ).optional(),
  rawArtifacts: z.boolean().optional(),
  maxLiveSessions: z.int().min(1).max(10_000).optional(),
  maxStreams: z.int().min(1).max(10_000).optional(),
  idleTimeoutMinutes: minutes.optional(),
  turnTimeoutMinutes: minutes.optional(),
  autoResume: autoResumeSchema.optional(),
  approvals: z.strictObject({
    interactive: z.enum(APPROVAL_POLICIES).optional(),
    unattended: z.enum(APPROVAL_POLICIES).optional(),
    timeoutSeconds: z.number().positive().max(7 * 24 * 3600).optional(),
  }).optional(),
  notify: z.strictObject({
    command: z.array(z.string().min(1)).min(1),
    on: z.array(z.enum(NOTIFY_EVENTS)).optional(),
  }).optional(),
  notifications: notificationsSchema.optional(),
  /** The web face (D30): origins a tunnel or proxy serves the TCP listener at. */
  web: z.strictObject({
    origins: z.array(webOrigin).max(16).optional(),
    trustProxy: z.boolean().optional(),
  }).optional(),
  worktrees: z.strictObject({
    keep: z.int().min(0).max(10_000).optional(),
  }).optional(),
  ui: z.strictObject({
    stalledAfterSeconds: z.int().min(5).max(86_400).optional(),
  }).optional(),
  /** Setup of new worktrees per project root (D27); a routine or a launch may override it. */
  worktreeSetup: z.record(absolutePath, worktreeSetupSchema).optional(),
  /** Settings per project root (D34: `land.verify`); the longest root holding a repository wins. */
  projects: z.array(z.strictObject({
    root: absolutePath,
    land: z.strictObject({ verify: landVerifySchema.optional() }).optional(),
  })).max(1000).optional(),
});

/** The daemon's configuration with defaults applied. */
export interface Config {
  projectRoots: string[] | null;
  harnesses: Record<string, z.output<typeof harnessSchema>>;
  rawArtifacts: boolean;
  maxLiveSessions: number;
  /** Server-Sent Event streams open at once (D19). */
  maxStreams: number;
  /** A conversation with no turn or input for this long is closed (D16). */
  idleTimeoutMinutes: number;
  /** A turn with no answer from the agent for this long is interrupted (D16). */
  turnTimeoutMinutes: number;
  /** Whether a session parked on a limit resumes by itself when it lifts (D33); off by default. */
  autoResume: AutoResume;
  /** Approval policies and the owner's time to answer (D18). */
  approvals: { interactive: ApprovalPolicy; unattended: ApprovalPolicy; timeoutSeconds: number };
  /** The owner's notification command (D21), or null. */
  notify: NotifyConfig | null;
  /** Where and about what the owner is told (D31). */
  notifications: NotificationsConfig;
  /**
   * The web face (D30): its origins besides the loopback names (notifications
   * link to the first), and whether X-Forwarded-* from a loopback peer is trusted.
   */
  web: { origins: string[]; trustProxy: boolean };
  /** Ended worktrees kept per routine; older ones are removed (D20). */
  worktrees: { keep: number };
  /** `svc ui` (D25): a working session with no event for this long is shown stalled. */
  ui: { stalledAfterSeconds: number };
  /** Setup of new worktrees, keyed by project root (D27). */
  worktreeSetup: Record<string, WorktreeSetup>;
  /** Per project root: how a land is verified (D34). */
  projects: ProjectLand[];
}

/** Defaults for a home without `config.json`. */
export const DEFAULT_CONFIG: Config = {
  projectRoots: null,
  harnesses: {},
  rawArtifacts: false,
  maxLiveSessions: 64,
  maxStreams: 256,
  idleTimeoutMinutes: 60,
  turnTimeoutMinutes: 30,
  autoResume: { enabled: false },
  approvals: { interactive: "ask", unattended: "deny", timeoutSeconds: 600 },
  ui: { stalledAfterSeconds: 120 },
  notify: null,
  notifications: { channels: [], afterSeconds: DEFAULT_AFTER_SECONDS },
  web: { origins: [], trustProxy: false },
  worktrees: { keep: 10 },
  worktreeSetup: {},
  projects: [],
};
