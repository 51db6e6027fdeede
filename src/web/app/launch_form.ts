/**
 * What the web's new-session page (`/#/new`, D30) adds to `svc ui`'s form
 * (src/ui/new_session_form.ts, which validates and launches): who may see
 * it, how a harness reads in its list, and the project roots it suggests.
 * Face-free: the device's scopes and the store's snapshot come in.
 */
import type { HarnessChoice, Snapshot } from "../../ui/model.ts";
import { allows } from "./device.ts";

/** Why this device may not launch (D30: launching is `operate`'s), or null: it may. */
export function launchRefusal(scopes: readonly string[]): string | null {
  if (allows(scopes, "operate")) return null;
  const may = allows(scopes, "approve")
    ? "may only read and answer requests"
    : allows(scopes, "read")
    ? "may only read"
    : "has no scope";
  return `Launching a session needs the operate scope: this device ${may}` +
    " (the owner pairs one with svc devices pair --scope operate)";
}

/** A harness as its choice reads: its label, with its id when the label differs. */
export function harnessText(choice: HarnessChoice): string {
  return choice.label === choice.id ? choice.id : `${choice.label} (${choice.id})`;
}

/**
 * The project roots the form suggests: those of the known sessions (an
 * isolated one's repository, not its worktree), the latest first, once each.
 * The daemon still decides which roots it allows.
 */
export function projectRootChoices(snapshot: Pick<Snapshot, "sessions">): string[] {
  const sessions = [...snapshot.sessions.values()]
    .sort((a, b) => b.created_at.localeCompare(a.created_at));
  const roots = sessions.map((session) => session.worktree?.repository ?? session.project_root);
  return [...new Set(roots.filter((root) => root !== ""))];
}
