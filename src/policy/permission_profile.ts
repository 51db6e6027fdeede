/**
 * What a permissions request asks for beyond the agent's sandbox (issue 33
 * item 5, D18, D28): codex's `item/permissions/requestApproval` names paths to
 * read and write and the network. The owner is shown this profile, the grant
 * is exactly it, and an "always" rule made from it grants later requests only
 * as far as it reaches: a path under one it names, the network if it did.
 */
import { sep } from "node:path";

export { type PermissionProfile, profileText } from "./profile_text.ts";
import type { PermissionProfile } from "./profile_text.ts";

/**
 * Whether `granted` reaches everything `asked` asks for: each write under a
 * granted write, each read under a granted read or write, the network only
 * when granted. Paths are compared normalised and absolute.
 */
export function profileCovers(granted: PermissionProfile, asked: PermissionProfile): boolean {
  const under = (roots: string[]) => (path: string) =>
    roots.some((root) => path === root || path.startsWith(root.endsWith(sep) ? root : root + sep));
  return (granted.network || !asked.network) &&
    asked.write.every(under(granted.write)) &&
    asked.read.every(under([...granted.read, ...granted.write]));
}

/**
 * Whether an allow rule with `ruleProfile` may answer a request asking
 * `asked` (null: not a permissions request). A permissions request is
 * answered only by a rule whose profile covers it — a rule stored without
 * one (`{tool: "permissions"}`, before issue 33) grants none — and a profile
 * rule answers nothing else.
 */
export function profileAllows(
  ruleProfile: PermissionProfile | undefined,
  asked: PermissionProfile | null,
): boolean {
  if (asked === null) return ruleProfile === undefined;
  return ruleProfile !== undefined && profileCovers(ruleProfile, asked);
}
