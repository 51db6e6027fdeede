import { join } from "node:path";
import type { Usage } from "../agents/protocol.ts";
import type { RoutineRow } from "../store/routines_store.ts";
import type { Delivery, RunRow } from "../store/runs_store.ts";
import type { WorktreeRecord } from "../worktrees/worktree_record.ts";
import type { DiffStatPage } from "../worktrees/worktree_diff.ts";
import { isAbsoluteHostPath } from "../validate.ts";
import { counted } from "../count_text.ts";

/** A routine's `outputTarget` (D21). */
export type OutputTarget = { kind: "inbox" } | { kind: "file"; path: string };

/**
 * The result file's path (D21): `<inbox>/<folder>/<run>.md` or
 * `<dir>/<folder>-<run>.md`, where the folder is `routineFolder(routineId)`.
 */
export function resultPath(target: OutputTarget, inbox: string, routineId: string, runId: string) {
  const routine = routineFolder(routineId);
  return target.kind === "inbox"
    ? join(inbox, routine, `${runId}.md`)
    : join(target.path, `${routine}-${runId}.md`);
}

/**
 * A routine id as a file name, one to one (issue 28 item 13): ids hold
 * only `[A-Za-z0-9._-]` and no separator; a leading `.` becomes `%2E`, so a
 * name never climbs (`..`) or hides (`.x`), and since ids never hold `%` no
 * two ids share a name. (Before, a leading `.` became `_`: `.` and `_` shared
 * a folder.) Every other id is its own name. Pure.
 */
export function routineFolder(routineId: string): string {
  return routineId.startsWith(".") ? `%2E${routineId.slice(1)}` : routineId;
}

/** The routine id whose folder is `folder` (the inverse of `routineFolder`). Pure. */
export function routineIdOfFolder(folder: string): string {
  return folder.startsWith("%2E") ? `.${folder.slice(3)}` : folder;
}

/**
 * Writes `run`'s result where `routine` says (D21) and says how that went;
 * null when the routine has no `outputTarget`. Never throws: a target that
 * cannot be written gives `status: "failed"` with the reason.
 */
export async function deliverResult(
  run: RunRow,
  routine: RoutineRow,
  inbox: string,
  /** The worktree's diff stat of an isolated run (D27), when it could be taken. */
  stat: DiffStatPage | null = null,
): Promise<Delivery | null> {
  const target = routine.definition.outputTarget as OutputTarget | undefined;
  if (target === undefined) return null;
  if (target.kind === "file" && !isAbsoluteHostPath(target.path)) {
    // Stored before the definition checked paths for the host (issue 28 item 9): never relative.
    return {
      status: "failed",
      kind: "file",
      path: null,
      error: `Output path "${target.path}" is not an absolute path on this host`,
      readAt: null,
    };
  }
  const path = resultPath(target, inbox, routine.id, run.id);
  try {
    await writeAtomically(path, renderResult(run, routine, stat));
    return { status: "delivered", kind: target.kind, path, error: null, readAt: null };
  } catch (error) {
    return {
      status: "failed",
      kind: target.kind,
      path: null,
      error: `Cannot write "${path}": ${(error as Error).message}`,
      readAt: null,
    };
  }
}

/**
 * Writes `text` to `path` so a reader sees either no file or all of it: a
 * hidden temporary file (0600, synced) in the same directory, renamed over.
 */
export async function writeAtomically(path: string, text: string): Promise<void> {
  const dir = join(path, "..");
  await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
  const temporary = join(dir, `.${crypto.randomUUID()}.tmp`);
  try {
    const file = await Deno.open(temporary, { write: true, createNew: true, mode: 0o600 });
    try {
      const bytes = new TextEncoder().encode(text);
      for (let written = 0; written < bytes.length;) {
        written += await file.write(bytes.subarray(written));
      }
      await file.sync();
    } finally {
      file.close();
    }
    if (Deno.build.os !== "windows") await Deno.chmod(temporary, 0o600); // Not masked by umask.
    await Deno.rename(temporary, path);
  } catch (error) {
    await Deno.remove(temporary).catch(() => {});
    throw error;
  }
}

/** The Markdown result of a run (D21). Pure. */
export function renderResult(
  run: RunRow & { deniedTools?: readonly string[] },
  routine: RoutineRow,
  stat: DiffStatPage | null = null,
): string {
  const rows: Array<[string, string]> = [
    ["Routine", `${routine.definition.name} (\`${routine.id}\`)`],
    ["Run", `\`${run.id}\` (${run.trigger})`],
    ["Status", run.status],
  ];
  if (run.error) rows.push(["Error", `${run.error.code}: ${oneLine(run.error.message)}`]);
  if (run.scheduledFor) rows.push(["Scheduled for", run.scheduledFor]);
  rows.push(["Started", run.startedAt ?? "never started"], ["Ended", run.endedAt ?? "—"]);
  if (run.sessionId) rows.push(["Session", `\`${run.sessionId}\``]);
  if (run.usage) rows.push(["Usage", usageText(run.usage)]);
  if (run.worktree) rows.push(["Worktree", worktreeText(run.worktree)]);
  const denials = deniedText(run.permissionDenials ?? null, run.deniedTools ?? []);
  if (denials) rows.push(["Permissions", oneLine(denials)]);
  const table = ["| | |", "|---|---|", ...rows.map(([name, value]) => `| ${name} | ${value} |`)];
  const result = run.summary?.trim() ? run.summary.trim() : "_The run produced no final message._";
  const log = run.sessionId
    ? `Read the full log with:\n\n    svc events ${run.sessionId}\n`
    : "No session ran, so there is no log.\n";
  const review = run.worktree && run.sessionId ? reviewText(run.sessionId, run.worktree, stat) : "";
  const denied = denials ? `**${denials}**\n\n` : "";
  return `# ${oneLine(routine.definition.name)}: ${run.status}\n\n${table.join("\n")}\n\n` +
    `## Result\n\n${denied}${result}\n\n${review}## Full log\n\n${log}`;
}

/** Files of the diff stat listed in a result; the rest are counted. */
const MAX_STAT_FILES = 50;

/**
 * An isolated run's review section (D27): the diff stat and the exact
 * commands that show, land or discard its work. Pure.
 */
function reviewText(sessionId: string, worktree: WorktreeRecord, stat: DiffStatPage | null) {
  if (worktree.removedAt !== null) return "";
  const lines = ["## Review", ""];
  if (stat !== null && stat.files.length === 0) {
    lines.push(
      "The worktree has no changes. Remove it with:",
      "",
      `    svc worktrees discard ${sessionId}`,
    );
    return `${lines.join("\n")}\n\n`;
  }
  if (stat !== null) {
    lines.push("```");
    for (const file of stat.files.slice(0, MAX_STAT_FILES)) {
      const name = file.oldPath === null ? file.path : `${file.oldPath} => ${file.path}`;
      const counts = file.binary ? "binary" : `+${file.insertions} -${file.deletions}`;
      lines.push(`${counts.padEnd(14)} ${name.replace(/[\r\n]/g, "?")}`);
    }
    if (stat.files.length > MAX_STAT_FILES) {
      lines.push(`... and ${counted(stat.files.length - MAX_STAT_FILES, "more file")}`);
    }
    lines.push(
      `${counted(stat.changedFiles, "file")} changed, +${stat.insertions} -${stat.deletions}`,
      "```",
      "",
    );
  }
  lines.push(
    "Review the diff:",
    "",
    `    svc worktrees diff ${sessionId}`,
    "",
    "Land it on the branch checked out in your repository (or --merge, --rebase; -m MESSAGE):",
    "",
    `    svc worktrees land ${sessionId} --squash`,
    "",
    "Or discard it (worktree and branch):",
    "",
    `    svc worktrees discard ${sessionId} --force`,
  );
  return `${lines.join("\n")}\n\n`;
}

/**
 * "2 tool calls denied by policy: Bash, Write" (issue 27 item 7: a run whose
 * tools were all denied still reports `succeeded`); null when none was. Pure.
 */
export function deniedText(count: number | null, tools: readonly string[]): string | null {
  if (!count) return null;
  const calls = counted(count, "tool call");
  const names = [...new Set(tools)];
  return `${calls} denied by policy${names.length > 0 ? `: ${names.join(", ")}` : ""}`;
}

function usageText(usage: Usage): string {
  const parts: string[] = [];
  if (usage.inputTokens !== null) {
    const cached = usage.cachedInputTokens === null ? "" : ` (${usage.cachedInputTokens} cached)`;
    parts.push(`${counted(usage.inputTokens, "input token")}${cached}`);
  }
  if (usage.outputTokens !== null) parts.push(counted(usage.outputTokens, "output token"));
  if (usage.costUsd !== null) parts.push(`$${usage.costUsd.toFixed(4)}`);
  return parts.length === 0 ? "not reported by the harness" : parts.join(", ");
}

function worktreeText(worktree: WorktreeRecord): string {
  const place = `\`${worktree.path}\` on branch \`${worktree.branch}\``;
  if (worktree.changedFiles === null) {
    return `${place}${worktree.error ? ` (changes not counted: ${oneLine(worktree.error)})` : ""}`;
  }
  const head = worktree.headCommit === worktree.baseCommit
    ? `no commits beyond ${worktree.baseCommit.slice(0, 12)}`
    : `${worktree.baseCommit.slice(0, 12)}..${worktree.headCommit?.slice(0, 12)}`;
  return `${place}: ${
    counted(worktree.changedFiles, "file")
  } changed, +${worktree.insertions} −${worktree.deletions}` +
    ` (${worktree.uncommittedFiles} uncommitted), ${head}`;
}

/** Table cells and headings hold one line; `|` would end a cell. */
function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, " ").replaceAll("|", "\\|");
}
