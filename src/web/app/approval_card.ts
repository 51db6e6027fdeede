/**
 * A pending permission request as the web app's approvals view shows it
 * (D30): all of it, no truncation, every bidi control, zero-width and other
 * invisible character drawn as a visible escape (`revealed`, the same as
 * `svc ui`'s request panel), and the accessible name a list item gets.
 */
import { profileText } from "../../policy/profile_text.ts";
import { countdown } from "../../ui/format.ts";
import type { PendingApproval } from "../../ui/model.ts";
import { revealed } from "../../ui/request_panel.ts";

/** What a card shows. */
export interface ApprovalCard {
  readonly key: string;
  /** The list item's `aria-label`: the tool and the whole command (or summary). */
  readonly label: string;
  readonly tool: string;
  /** The command, or the summary of a request without one, revealed. */
  readonly command: string;
  readonly paths: readonly string[];
  /** What allowing a permissions request grants, or null. */
  readonly grants: string | null;
  readonly left: string;
}

export function approvalCard(approval: PendingApproval, nowMs: number): ApprovalCard {
  const tool = revealed(approval.tool);
  const command = revealed(approval.command ?? approval.summary);
  return {
    key: `${approval.sessionId}\n${approval.requestId}`,
    label: `${tool}: ${command}`,
    tool,
    command,
    paths: approval.paths.map((path) => revealed(path)),
    grants: approval.profile ? revealed(profileText(approval.profile)) : null,
    left: `${countdown(Date.parse(approval.expiresAt), nowMs)} left`,
  };
}
