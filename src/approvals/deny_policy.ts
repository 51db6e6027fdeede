import type { PermissionDecision } from "../agents/conversation.ts";

/**
 * The `deny` policy (D18): every permission request is answered at once,
 * denied, so no agent waits on a prompt nobody sees. The owner-facing broker
 * (ask / allow) builds on the same decision shape.
 */
export function denyByPolicy(): Promise<PermissionDecision> {
  return Promise.resolve({
    decision: "deny",
    remember: false,
    message: "Denied by svc: this session's approval policy is deny",
    by: "policy",
  });
}
