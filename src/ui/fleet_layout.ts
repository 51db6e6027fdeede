/**
 * The fleet's layout (D25): the line above its table, and its columns at a
 * terminal width: fixed columns for the
 * short facts, project and branch only from 110 columns, and on a wide
 * terminal the branch as long as the longest listed one needs (a worktree
 * branch is `svc/session/<id>`, 42 characters) while the title keeps at
 * least half of what is left.
 */

/** Widths in terminal columns, one per field of a fleet row. */
export interface FleetColumns {
  /** The host's name, in a view of several hosts (D32); else 0: no column. */
  host: number;
  id: number;
  state: number;
  harness: number;
  turns: number;
  tokens: number;
  cost: number;
  last: number;
  project: number;
  branch: number;
  title: number;
}

import stringWidth from "string-width";
import { counted } from "../count_text.ts";

/** The narrowest terminal that shows the project and branch columns. */
export const WIDE_FLEET = 110;

const BRANCH_MIN = 16;

/** The widest a HOST column grows (a longer context name is cut). */
const HOST_MAX = 12;

/**
 * The columns of a `width`-column fleet whose ids need `idWidth` columns
 * (`uniquePrefixLength`) and that lists `branches` (as they are shown);
 * `hosts`, the hosts' names when there are several (a HOST column first).
 */
export function fleetColumns(
  width: number,
  fit: { idWidth: number; branches: readonly string[]; hosts?: readonly string[] },
): FleetColumns {
  const wide = width >= WIDE_FLEET;
  const longest = Math.max(0, ...fit.branches.map((branch) => stringWidth(branch)));
  const fixed = { id: fit.idWidth, state: 11, harness: 8, turns: 5, tokens: 6, cost: 7, last: 4 };
  const project = wide ? 14 : 0;
  // One space between columns, and the selection mark before the first.
  const gaps = Object.keys(fixed).length + 1 + (wide ? 2 : 0) + 1;
  const used = Object.values(fixed).reduce((sum, n) => sum + n, 0) + project + gaps;
  const host = hostColumn(fit.hosts ?? [], width - used - TITLE_MIN);
  const rest = width - used - (host > 0 ? host + 1 : 0);
  const branch = wide ? Math.max(BRANCH_MIN, Math.min(longest, Math.floor(rest / 2))) : 0;
  return { host, ...fixed, project, branch, title: Math.max(TITLE_MIN, rest - branch) };
}

/** The narrowest title column. */
const TITLE_MIN = 8;

/**
 * The HOST column of several `hosts` (0: one host, no column): as wide as
 * the longest name up to `HOST_MAX`, and within `room` (with its gap) so the
 * title keeps its least at 80 columns.
 */
function hostColumn(hosts: readonly string[], room: number): number {
  if (hosts.length <= 1) return 0;
  const longest = Math.max(...hosts.map((name) => stringWidth(name)));
  return Math.max(4, Math.min(HOST_MAX, longest, room - 1));
}

/**
 * The line above the fleet's table: the filter being typed, else how many
 * sessions are listed (`1 session live`), which, and the filter kept.
 */
export function fleetHeading(
  listed: number,
  shown: { showEnded: boolean; filter: string; filtering: boolean },
): string {
  if (shown.filtering) return `filter: ${shown.filter}█  (Enter keeps it, Esc clears)`;
  const which = shown.showEnded ? " (ended shown: a)" : " live (a: show ended)";
  const filter = shown.filter === "" ? "" : ` · filter "${shown.filter}"`;
  return `${counted(listed, "session")}${which}${filter}`;
}
