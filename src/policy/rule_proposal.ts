/**
 * The rule an "always" answer proposes (D28) and its one-line description:
 * what `svc chat`, `svc ui` and the daemon show and store. Pure text, no
 * file system: the web bundle reaches it through svc ui's questions
 * (confirms.ts), so it stays apart from the rule matching in approval_rules.ts.
 */
import type { ApprovalRule, ToolKind } from "./approval_rules.ts";
import { type PermissionProfile, profileText } from "./profile_text.ts";

/** Where a rule made for a request in a session applies (the `a`lways answer's scope). */
export const RULE_SCOPES = ["session", "project", "everywhere"] as const;
export type RuleScope = typeof RULE_SCOPES[number];

/** The fields of a request a proposed rule is built from. */
export interface RuleSource {
  sessionId: string;
  projectRoot: string;
  tool: string;
  kind: ToolKind;
  /** The argv of a simple shell command, null when the command is anything more. */
  argv: string[] | null;
  command: string | null;
  /** A permissions request's profile: the rule grants that much and no more. */
  profile?: PermissionProfile | null;
}

/**
 * The allow rule an "always" answer creates (D28): scoped to the session,
 * its project or everywhere; for a shell command, that exact simple argv
 * under svc's `shell` kind (any agent's shell tool); for an edit, svc's
 * `edit` kind (only ever inside the project root); else the agent's tool.
 * Null for a shell command that is not one simple command: nothing safe to
 * remember, the answer is a plain allow.
 */
export function proposeRule(
  source: RuleSource,
  scope: RuleScope,
): Omit<ApprovalRule, "id" | "createdAt"> | null {
  const where = scope === "session"
    ? { sessionId: source.sessionId }
    : scope === "project"
    ? { projectRoot: source.projectRoot }
    : {};
  if (source.kind === "shell") {
    if (source.argv === null) return null;
    return { decision: "allow", ...where, tool: "shell", command: source.argv };
  }
  if (source.kind === "edit") return { decision: "allow", ...where, tool: "edit" };
  if (source.profile) {
    return { decision: "allow", ...where, tool: source.tool, profile: source.profile };
  }
  return { decision: "allow", ...where, tool: source.tool };
}

/**
 * What "always" would do in each scope for a pending request, one line each
 * (`  s  session    allow shell …`): what `svc chat` and `svc ui` show
 * before the user picks. A request that has no simple command gets a plain
 * allow, said so.
 */
export function alwaysChoices(pending: {
  sessionId: string;
  projectRoot?: string | null;
  tool: string;
  kind?: ToolKind;
  argv?: string[] | null;
  command?: string | null;
  profile?: PermissionProfile | null;
}): string[] {
  return RULE_SCOPES.map((scope) => {
    const rule = proposeRule({
      sessionId: pending.sessionId,
      projectRoot: pending.projectRoot ?? "",
      tool: pending.tool,
      kind: pending.kind ?? "other",
      argv: pending.argv ?? null,
      command: pending.command ?? null,
      profile: pending.profile ?? null,
    }, scope);
    const text = rule === null
      ? "no rule (not one simple command): a plain allow"
      : describeRule(rule);
    return `  [${scope[0]}] ${scope.padEnd(10)} ${text}`;
  });
}

/** One line describing a rule: `allow shell "npm test" in session ses_…`. */
export function describeRule(rule: Omit<ApprovalRule, "id" | "createdAt">): string {
  const parts: string[] = [rule.decision];
  parts.push(rule.tool ?? "any tool");
  if (rule.command !== undefined) parts.push(`command starting ${JSON.stringify(rule.command)}`);
  if (rule.path !== undefined) parts.push(`path ${rule.path}`);
  if (rule.profile !== undefined) parts.push(profileText(rule.profile));
  if (rule.harness !== undefined) parts.push(`for ${rule.harness}`);
  if (rule.sessionId !== undefined) parts.push(`in session ${rule.sessionId}`);
  else if (rule.projectRoot !== undefined) parts.push(`in project ${rule.projectRoot}`);
  else parts.push("everywhere");
  return parts.join(" ");
}
