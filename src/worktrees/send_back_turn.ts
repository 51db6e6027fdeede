/**
 * The turn a sent-back agent gets (D34): what failed — the conflicting files,
 * or the verify command and the end of its output — and what to do: rebase
 * its branch onto the checkout's current HEAD and make the command pass.
 */
import type { LandCheck } from "./land_types.ts";

/** Why a land queue item did not land, as stored on it and shown by the API. */
export interface LandFailure {
  code: string;
  message: string;
  /** `details.reason` of a `land_conflict`. */
  reason?: string;
  files?: string[];
  command?: string[];
  tail?: string;
}

/** The text of the turn; `check` names the checkout's branch and HEAD when known. Pure. */
export function sendBackTurn(failure: LandFailure, check: LandCheck | null): string {
  const branch = check?.branch?.replace(/^refs\/heads\//, "") ?? null;
  const onto = branch === null
    ? "the checkout's current HEAD"
    : `the current HEAD of ${branch} (${check!.headCommit.slice(0, 12)})`;
  const lines = [`svc could not land your work: ${failure.message}.`];
  if (failure.code === "verify_failed" && failure.command) {
    lines.push(
      "",
      `The verify command \`${
        failure.command.join(" ")
      }\` failed on the landed result. The end of its output:`,
      "",
      "```",
      (failure.tail ?? "").trimEnd(),
      "```",
    );
  } else if (failure.files && failure.files.length > 0) {
    lines.push("", "Conflicting files:", ...failure.files.map((file) => `- ${file}`));
  }
  lines.push(
    "",
    `Commit your work, then rebase your branch onto ${onto}` +
      (branch === null ? "" : ` (\`git rebase ${branch}\`)`) +
      ", resolve the conflicts" +
      (failure.command ? ` and make \`${failure.command.join(" ")}\` pass` : "") +
      ", and commit the result. svc lands it again when this turn ends.",
  );
  return lines.join("\n");
}
