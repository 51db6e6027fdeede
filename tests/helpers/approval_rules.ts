/**
 * Rules and requests for the approval-rule matcher's table tests (D28): a
 * rule with defaults, one request decided against rules, and a session on a
 * temporary project root.
 */
import {
  type ApprovalRule,
  matchRules,
  prepareRequest,
  type RequestTarget,
  type RuleSession,
} from "../../src/policy/approval_rules.ts";

const CREATED = "2026-01-01T00:00:00.000Z";

/** An allow rule unless `fields` say otherwise. */
export function rule(fields: Partial<ApprovalRule>): ApprovalRule {
  return { id: `apr_${crypto.randomUUID()}`, decision: "allow", createdAt: CREATED, ...fields };
}

/** What `rules` decide for one request of `tool` (a shell request unless `target` says). */
export async function decide(
  rules: ApprovalRule[],
  target: Partial<RequestTarget>,
  session: RuleSession,
  tool = "Bash",
): Promise<"allow" | "deny" | null> {
  const full: RequestTarget = { kind: "shell", command: null, paths: [], ...target };
  const prepared = await prepareRequest(tool, full, session);
  return matchRules(rules, prepared, session)?.decision ?? null;
}

/** A session whose project root and cwd are a new temporary directory (the caller removes it). */
export async function tempSession(): Promise<RuleSession> {
  const root = await Deno.realPath(await Deno.makeTempDir());
  return { sessionId: "ses_1", harness: "claude", projectRoot: root, cwd: root };
}

/** Runs `body` with a temporary session, removing its project root after. */
export async function withSession(body: (session: RuleSession) => Promise<void>): Promise<void> {
  const session = await tempSession();
  try {
    await body(session);
  } finally {
    await Deno.remove(session.projectRoot, { recursive: true });
  }
}
