/**
 * `svc worktrees list|prune` (D20) and `diff|land|discard` (D27): the
 * worktrees of isolated sessions and runs, and taking their work home.
 */
import type { SvcClient } from "../client/client.ts";
import type { Removal } from "../worktrees/worktrees.ts";
import type { DiffStatPage } from "../worktrees/worktree_diff.ts";
import type { LandCheck, Landed } from "../worktrees/land_types.ts";
import { checkText } from "../worktrees/check_text.ts";
import type { WorktreeRecord } from "../worktrees/worktree_record.ts";
import { act } from "./action.ts";
import { CLIENT_OPTIONS, parseCommandArgs, requireId } from "./args.ts";
import { bold, cyan, green, red, useColor } from "./color.ts";
import {
  type Command,
  EXIT,
  type Io,
  pickSubcommand,
  type Subcommand,
  UsageError,
} from "./command.ts";
import { withClient } from "./connect.ts";
import { describeError, printList, printResponse, table } from "./output.ts";
import { terminalSafe } from "./terminal_text.ts";
import { resolveRoutineId, resolveSessionId } from "./id_prefix.ts";
import { counted } from "../count_text.ts";

interface Listed {
  sessionId: string;
  routineId: string | null;
  runId: string | null;
  status: string;
  worktree: WorktreeRecord;
}

export const worktreesCommand: Command = {
  name: "worktrees",
  summary: "List and prune the git worktrees of isolated sessions and runs",
  usage: `Usage: svc worktrees <subcommand> [options]

Subcommands:
  list [--routine ID]
      Worktrees svc made and has not removed, oldest first: the session, its
      status, changes (files, +insertions -deletions, uncommitted files),
      branch and path.
  prune [--routine ID] [--force]
      Removes the worktrees of ended sessions. One with uncommitted changes is
      kept unless --force (which deletes those changes). A branch is deleted
      only when it has no commit beyond its base.
  diff SESSION [--stat]
      The worktree's changes against its base commit: commits, staged,
      unstaged and new files, as a unified diff (a binary file shows as
      "Binary files ... differ"). On a terminal in colour through $PAGER (or
      less -R); plain otherwise (svc worktrees diff ID > work.patch). --stat
      prints the counts per file.
  land SESSION [--squash|--merge|--rebase] [-m MSG]
      Takes the work into the branch checked out in your repository: one
      commit (--squash, the default), a merge commit (--merge) or the agent's
      commits on top (--rebase). Uncommitted work is first committed on the
      worktree's branch (with MSG under --rebase). Refused with nothing
      changed when HEAD is detached, when files the land touches have local
      changes, or on a conflict (the files are listed). Never pushes.
  discard SESSION [--force]
      Removes the worktree and deletes its branch. Work never landed needs
      --force.

Every subcommand takes --home DIR, and --json to print the raw response.
Retention: config worktrees.keep (default 10) per routine. See docs/automations.md.`,
  run(args, io) {
    const { run, rest } = pickSubcommand(SUBCOMMANDS, args);
    return run(rest, io);
  },
};

const SUBCOMMANDS: Record<string, Subcommand> = { list, prune, diff, land, discard };

/** "3 files +10 -2 (1 uncommitted)", or "-" before the session ended. Pure. */
export function changesText(worktree: WorktreeRecord): string {
  if (worktree.changedFiles === null) return worktree.error ? "not counted" : "-";
  return `${
    counted(worktree.changedFiles, "file")
  } +${worktree.insertions} -${worktree.deletions}` +
    (worktree.uncommittedFiles ? ` (${worktree.uncommittedFiles} uncommitted)` : "");
}

/** How a worktree's work was landed (D27): `squash 1a2b3c4`, or `-` while it was not. */
export function landedText(worktree: WorktreeRecord): string {
  if (!worktree.landedAt) return "-";
  return `${worktree.landedMode ?? "landed"} ${(worktree.landedCommit ?? "").slice(0, 7)}`.trim();
}

async function list(args: string[], io: Io): Promise<number> {
  const { values } = parseCommandArgs(args, { ...CLIENT_OPTIONS, routine: { type: "string" } });
  return await withClient(values.home, io, async (client) => {
    const response = await act<{ worktrees: Listed[] }>(
      client,
      "svc.automations.worktrees",
      values.routine === undefined
        ? {}
        : { routineId: await resolveRoutineId(client, values.routine) },
    );
    return printList(
      io,
      response,
      values.json,
      ({ result }) => result.worktrees,
      ({ result }) =>
        result.worktrees.length === 0 ? "No worktrees" : table(
          ["SESSION", "STATUS", "CHANGES", "LANDED", "BRANCH", "PATH"],
          result.worktrees.map((entry) => [
            entry.sessionId,
            entry.status,
            changesText(entry.worktree),
            landedText(entry.worktree),
            entry.worktree.branch,
            entry.worktree.path,
          ]),
        ),
    );
  });
}

async function prune(args: string[], io: Io): Promise<number> {
  const { values } = parseCommandArgs(args, {
    ...CLIENT_OPTIONS,
    routine: { type: "string" },
    force: { type: "boolean" },
  });
  return await withClient(values.home, io, async (client) => {
    const response = await act<{ removals: Removal[] }>(client, "svc.automations.prune", {
      ...(values.routine !== undefined &&
        { routineId: await resolveRoutineId(client, values.routine) }),
      ...(values.force && { force: true }),
    });
    return printResponse(io, response, values.json, ({ result }) => {
      if (result.removals.length === 0) return "Nothing to prune";
      return result.removals.map((removal) =>
        removal.removed
          ? `Removed ${removal.path}` +
            (removal.branchDeleted
              ? ` and branch ${removal.branch}`
              : ` (branch ${removal.branch} kept: it has commits not landed)`)
          : `Kept ${removal.path}: ${removal.reason}`
      ).join("\n");
    });
  });
}

async function diff(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    args,
    { ...CLIENT_OPTIONS, stat: { type: "boolean" } },
    { positionals: 1 },
  );
  const idText = requireId(positionals, "session");
  return await withClient(values.home, io, async (client) => {
    const id = await resolveSessionId(client, idText);
    const path = `/sessions/${encodeURIComponent(id)}/worktree/diff`;
    if (values.stat) {
      const response = await client.get<{ stat: DiffStatPage }>(`${path}?stat=1`);
      return printResponse(io, response, values.json, ({ stat }) => statText(stat));
    }
    if (values.json) {
      const response = await client.get(path);
      return printResponse(io, response, true, () => "");
    }
    const terminal = Deno.stdout.isTerminal();
    const color = useColor(io, Deno.stdout);
    // D34: whether it lands cleanly, on standard error so that the patch on standard output stays a patch.
    const check = await client.get<{ check: LandCheck }>(
      `/sessions/${encodeURIComponent(id)}/worktree/check`,
    );
    if (check.ok) io.err(terminalSafe(checkText(check.body.check)));
    const pager = terminal ? startPager(io) : null;
    try {
      return await pageDiff(client, path, io, (text) => {
        const shown = terminal ? colorDiff(terminalSafe(text, { keepTabs: true }), color) : text;
        if (pager) return pager.write(shown);
        io.write(shown);
        return Promise.resolve();
      });
    } finally {
      await pager?.close();
    }
  });
}

/** Reads the diff page by page, handing each to `write` cut at a line end. */
async function pageDiff(
  client: SvcClient,
  path: string,
  io: Io,
  write: (text: string) => Promise<void>,
): Promise<number> {
  let offset = 0;
  let carry = "";
  for (;;) {
    const response = await client.get<{ diff: { data: string; nextOffset: number | null } }>(
      `${path}?offset=${offset}`,
    );
    if (!response.ok) {
      io.err(describeError(response.body));
      return EXIT.refused;
    }
    const text = carry + response.body.diff.data;
    const next = response.body.diff.nextOffset;
    const cut = next === null ? text.length : text.lastIndexOf("\n") + 1;
    await write(text.slice(0, cut)).catch(() => {});
    carry = text.slice(cut);
    if (next === null) return EXIT.ok;
    offset = next;
  }
}

/** Colours a unified diff line by line, as git does. Pure. */
export function colorDiff(text: string, color: boolean): string {
  if (!color) return text;
  return text.split("\n").map((line) => {
    if (/^(diff --git|index |--- |\+\+\+ |new file|deleted file|rename |similarity )/.test(line)) {
      return bold(line);
    }
    if (line.startsWith("@@")) return cyan(line);
    if (line.startsWith("+")) return green(line);
    if (line.startsWith("-")) return red(line);
    return line;
  }).join("\n");
}

/** A pager (`$PAGER`, split on spaces, no shell; else `less -R`) fed through its stdin, or null. */
function startPager(io: Io): { write(text: string): Promise<void>; close(): Promise<void> } | null {
  const argv = (io.env("PAGER")?.trim() || "less -R").split(/\s+/);
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(argv[0], {
      args: argv.slice(1),
      stdin: "piped",
      stdout: "inherit",
      stderr: "inherit",
      env: { LESS: io.env("LESS") ?? "FRX" },
    }).spawn();
  } catch {
    return null; // No pager: print directly.
  }
  const writer = child.stdin.getWriter();
  const encoder = new TextEncoder();
  return {
    write: (text) => writer.write(encoder.encode(text)),
    async close() {
      await writer.close().catch(() => {});
      await child.status;
    },
  };
}

/** `--stat`: one line per file, then the totals. Pure. */
export function statText(stat: DiffStatPage): string {
  if (stat.files.length === 0) return `No changes since ${stat.baseCommit.slice(0, 12)}`;
  const rows = stat.files.map((file) => [
    file.oldPath === null ? file.path : `${file.oldPath} => ${file.path}`,
    file.binary ? "binary" : `+${file.insertions} -${file.deletions}`,
  ]);
  return `${table(["FILE", "CHANGES"], rows)}\n${counted(stat.changedFiles, "file")} changed, ` +
    `+${stat.insertions} -${stat.deletions} since ${stat.baseCommit.slice(0, 12)}`;
}

async function land(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, {
    ...CLIENT_OPTIONS,
    squash: { type: "boolean" },
    merge: { type: "boolean" },
    rebase: { type: "boolean" },
    message: { type: "string", short: "m" },
  }, { positionals: 1 });
  const idText = requireId(positionals, "session");
  const modes = (["squash", "merge", "rebase"] as const).filter((mode) => values[mode]);
  if (modes.length > 1) throw new UsageError("Choose one of --squash, --merge, --rebase");
  const body = { mode: modes[0] ?? "squash", ...(values.message && { message: values.message }) };
  return await withClient(values.home, io, async (client) => {
    const id = await resolveSessionId(client, idText);
    const response = await client.post<{ landed: Landed }>(
      `/sessions/${encodeURIComponent(id)}/worktree/land`,
      body,
    );
    if (!response.ok && !values.json) {
      io.err(describeError(response.body));
      const files = (response.body as { error?: { details?: { files?: string[] } } }).error
        ?.details?.files ?? [];
      for (const file of files) io.err(terminalSafe(`  ${file}`));
      return EXIT.refused;
    }
    return printResponse(
      io,
      response,
      values.json,
      ({ landed }) =>
        `Landed on ${landed.branch.replace(/^refs\/heads\//, "")} (${landed.mode}): ` +
        `${landed.previousCommit.slice(0, 12)}..${landed.landedCommit.slice(0, 12)}`,
    );
  });
}

async function discard(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    args,
    { ...CLIENT_OPTIONS, force: { type: "boolean" } },
    { positionals: 1 },
  );
  const idText = requireId(positionals, "session");
  return await withClient(values.home, io, async (client) => {
    const id = await resolveSessionId(client, idText);
    const response = await client.post<{
      discarded: { path: string; branch: string };
    }>(`/sessions/${encodeURIComponent(id)}/worktree/discard`, values.force ? { force: true } : {});
    return printResponse(
      io,
      response,
      values.json,
      ({ discarded }) => `Removed ${discarded.path} and branch ${discarded.branch}`,
    );
  });
}
