/** The land check (D34) as one line, for every face: the CLI, svc ui and the web app. */
import { counted } from "../count_text.ts";
import type { LandCheck } from "./land_types.ts";

/** One line of the land check: clean, or the conflicting files. Pure. */
export function checkText(check: LandCheck): string {
  const onto = check.branch?.replace(/^refs\/heads\//, "") ?? "the detached HEAD";
  const at = `${onto} (${check.headCommit.slice(0, 12)})`;
  if (check.clean) return `Lands cleanly on ${at}`;
  return `Conflicts with ${at} in ${counted(check.conflicts.length, "file")}: ` +
    check.conflicts.join(", ");
}
