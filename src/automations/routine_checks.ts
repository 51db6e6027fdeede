/**
 * What a routine definition needs from this machine (issue 27 item 6): a
 * known runtime, an existing cwd, a git repository for worktree isolation.
 * Checked when a routine is created or updated, so it is refused then
 * rather than failing at its first run. Files are read through `FileProbe`,
 * so tests hand in a fake.
 */
import { dirname, join } from "node:path";
import { type FieldProblem, invalidFields } from "../validate.ts";
import type { RoutineDefinition } from "./definition.ts";

/** The filesystem questions the checks ask. */
export interface FileProbe {
  /** "dir", "file" or null when nothing is at `path`. */
  kind(path: string): "dir" | "file" | null;
}

/** The real filesystem. */
export const realFiles: FileProbe = {
  kind(path) {
    try {
      const info = Deno.statSync(path);
      return info.isDirectory ? "dir" : "file";
    } catch {
      return null;
    }
  },
};

/** What the checks found: refusals (400) and warnings (answered, and shown by health). */
export interface RoutineCheck {
  problems: FieldProblem[];
  warnings: string[];
}

/**
 * Checks `definition` against the harnesses known (`knownRuntimes`) and the
 * files. A missing cwd refuses an ACTIVE routine (it would fail at its next
 * run) and only warns for a PAUSED one, whose directory may not exist yet.
 */
export function checkRoutine(
  definition: RoutineDefinition,
  options: { knownRuntimes: readonly string[]; files?: FileProbe },
): RoutineCheck {
  const files = options.files ?? realFiles;
  const problems: FieldProblem[] = [];
  const warnings: string[] = [];
  if (!options.knownRuntimes.includes(definition.runtime)) {
    problems.push({
      field: "definition.runtime",
      message: `Unknown runtime "${definition.runtime}": expected one of ${
        options.knownRuntimes.map((id) => `"${id}"`).join(", ")
      }`,
    });
  }
  const cwd = definition.cwd;
  const cwdKind = cwd === undefined ? null : files.kind(cwd);
  if (cwd !== undefined && cwdKind !== "dir") {
    const what = cwdKind === null ? "does not exist" : "is not a directory";
    if (definition.status === "ACTIVE") {
      problems.push({ field: "definition.cwd", message: `Directory "${cwd}" ${what}` });
    } else {
      warnings.push(`cwd "${cwd}" ${what}: runs will fail until it does`);
    }
  }
  if (definition.isolation === "worktree" && cwd !== undefined && cwdKind === "dir") {
    if (gitRoot(cwd, files) === null) {
      problems.push({
        field: "definition.isolation",
        message: `"worktree" needs cwd "${cwd}" to be inside a git repository`,
      });
    }
  }
  return { problems, warnings };
}

/** Throws 400 `invalid_request` naming every problem of `check`, if any. */
export function refuseProblems(check: RoutineCheck): void {
  if (check.problems.length > 0) throw invalidFields(check.problems);
}

/** The nearest directory at or above `dir` holding `.git` (a directory or a worktree's file). */
function gitRoot(dir: string, files: FileProbe): string | null {
  for (let current = dir;; current = dirname(current)) {
    if (files.kind(join(current, ".git")) !== null) return current;
    if (dirname(current) === current) return null;
  }
}
