/** One file of a worktree's diff stat. */
export interface DiffFile {
  path: string;
  /** The path before a rename; null otherwise. */
  oldPath: string | null;
  /** Null for a binary file. */
  insertions: number | null;
  deletions: number | null;
  binary: boolean;
}

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

/**
 * Files of `git diff --numstat -z` with renames on: `ins<TAB>del<TAB>path<NUL>`,
 * or for a rename `ins<TAB>del<TAB><NUL>old<NUL>new<NUL>`. Pure.
 */
export function parseNumstatFiles(output: string): DiffFile[] {
  const parts = output.split("\0");
  const files: DiffFile[] = [];
  for (let i = 0; i < parts.length; i++) {
    const match = /^(\d+|-)\t(\d+|-)\t(.*)$/s.exec(parts[i]);
    if (!match) continue;
    const binary = match[1] === "-";
    const counts = {
      insertions: binary ? null : Number(match[1]),
      deletions: binary ? null : Number(match[2]),
      binary,
    };
    if (match[3] === "") {
      files.push({ path: parts[i + 2], oldPath: parts[i + 1], ...counts });
      i += 2;
    } else {
      files.push({ path: match[3], oldPath: null, ...counts });
    }
  }
  return files;
}
