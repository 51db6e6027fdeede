/** Totals of `git diff --numstat` (D20). */
export interface DiffStat {
  changedFiles: number;
  insertions: number;
  deletions: number;
}

/**
 * Sums `git diff --numstat -z` output. Each record is `ins<TAB>del<TAB>path<NUL>`
 * (`-` counts for a binary file: changed, no lines); with renames off there
 * is no second path. Pure.
 */
export function parseNumstat(output: string): DiffStat {
  const stat = { changedFiles: 0, insertions: 0, deletions: 0 };
  for (const record of output.split("\0")) {
    const match = /^(\d+|-)\t(\d+|-)\t/.exec(record);
    if (!match) continue;
    stat.changedFiles++;
    if (match[1] !== "-") stat.insertions += Number(match[1]);
    if (match[2] !== "-") stat.deletions += Number(match[2]);
  }
  return stat;
}

/**
 * One path component of a branch name that git accepts (`git check-ref-format`):
 * routine ids may hold `.` where a ref may not (leading, doubled, `.lock` at the end).
 */
export function refComponent(text: string): string {
  return text
    .replace(/\.\.+/g, (dots) => "_".repeat(dots.length))
    .replace(/^\./, "_")
    .replace(/\.lock$/, "_lock")
    .replace(/\.$/, "_");
}
