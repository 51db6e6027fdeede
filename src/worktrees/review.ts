/**
 * Reviewing and landing an isolated run's work (D27): its diff against the
 * base commit, taking it into the owner's checked-out branch, discarding it.
 *
 * Landing computes the result entirely outside the owner's checkout (a
 * scratch index for uncommitted work, `git merge-tree --write-tree` and
 * `commit-tree` for squash and merge, a scratch worktree for rebase), checks
 * that the checkout's HEAD is a branch, that none of the files the land
 * touches has local changes and that no ignored file is where it writes
 * (`land_checks.ts`), and only then moves the checkout with
 * `git merge --ff-only`, which itself refuses rather than overwrite. Every
 * refusal leaves the checkout's HEAD, index and files as they were.
 */
import { join } from "node:path";
import { type Clock, isoTime } from "../clock.ts";
import { ServiceError, sessionNotFound } from "../errors.ts";
import type { OwnedProcesses } from "../sessions/owned_processes.ts";
import type { RunsStore } from "../store/runs_store.ts";
import type { SessionRow, SessionsStore } from "../store/sessions_store.ts";
import {
  git,
  gitOk,
  type GitOptions,
  gitPage,
  type GitResult,
  type PinnedWorktree,
} from "./git.ts";
import { withSnapshotIndex } from "./snapshot.ts";
import { checkWorktree, type WorktreeCheck, worktreeTampered } from "./worktree_pin.ts";
import type { WorktreeRecord } from "./worktree_record.ts";
import { IGNORE_SUBMODULES, type Worktrees } from "./worktrees.ts";
import { type DiffFile, parseNumstatFiles } from "./diff_stat.ts";
import { mergedResult, NEUTRAL, rebasedResult } from "./land_result.ts";
import { checkoutBranch, landConflict, nothingToLand, refuseLocalChanges } from "./land_checks.ts";

export const LAND_MODES = ["squash", "merge", "rebase"] as const;
export type LandMode = typeof LAND_MODES[number];

/** `?stat=1`: the counts of the diff against the base commit. */
export interface DiffStatPage {
  sessionId: string;
  baseCommit: string;
  headCommit: string;
  changedFiles: number;
  insertions: number;
  deletions: number;
  files: DiffFile[];
}

/** A byte range of the unified diff against the base commit. */
export interface DiffPage {
  sessionId: string;
  baseCommit: string;
  headCommit: string;
  /** The whole diff's size in bytes. */
  bytes: number;
  offset: number;
  bytesRead: Uint8Array<ArrayBuffer>;
}

/** What a land did. */
export interface Landed {
  sessionId: string;
  mode: LandMode;
  /** The owner's branch (`refs/heads/...`) that was moved. */
  branch: string;
  previousCommit: string;
  landedCommit: string;
  landedAt: string;
  /** The commit of the worktree's uncommitted changes, when there were some. */
  uncommittedCommit: string | null;
}

/** What a discard did. */
export interface Discarded {
  sessionId: string;
  path: string;
  branch: string;
  branchDeleted: boolean;
}

/** Each git command of a diff or a land gets this long. */
const GIT_TIMEOUT_MS = 120_000;
/** Identity of commits when the owner's git has none configured. */
const FALLBACK_IDENTITY = {
  GIT_AUTHOR_NAME: "svc",
  GIT_AUTHOR_EMAIL: "svc@localhost",
  GIT_COMMITTER_NAME: "svc",
  GIT_COMMITTER_EMAIL: "svc@localhost",
};
/** Diff output that is git's own, whatever the owner configured (no external diff, no textconv). */
const DIFF_FLAGS = [
  "--no-color",
  "--submodule=short",
  "--no-ext-diff",
  "--no-textconv",
  "--find-renames",
  "--src-prefix=a/",
  "--dst-prefix=b/",
];

/** The diff, land and discard of isolated sessions' worktrees (D27). */
export class WorktreeReview {
  readonly #sessions: SessionsStore;
  readonly #runs: RunsStore;
  readonly #worktrees: Worktrees;
  readonly #clock: Clock;
  readonly #root: string;
  readonly #processes: OwnedProcesses | undefined;
  /** Held per worktree (`worktree:<session id>`) and per repository (`repository:<path>`). */
  readonly #locks = new Map<string, Promise<unknown>>();
  /** Whether this git has `merge-tree --write-tree` (2.38 and later), once asked. */
  #gitChecked: Promise<void> | null = null;

  constructor(options: {
    sessions: SessionsStore;
    runs: RunsStore;
    worktrees: Worktrees;
    clock: Clock;
    /** `$SVC_HOME/worktrees`: scratch worktrees of a rebase go there. */
    root: string;
    processes?: OwnedProcesses;
  }) {
    this.#sessions = options.sessions;
    this.#runs = options.runs;
    this.#worktrees = options.worktrees;
    this.#clock = options.clock;
    this.#root = options.root;
    this.#processes = options.processes;
  }

  /**
   * Bytes `offset` to `offset + length` of the unified diff of the worktree
   * against its base: commits, staged, unstaged and new (not ignored) files.
   * A binary file shows as git's "Binary files ... differ" line.
   */
  diff(sessionId: string, offset: number, length: number): Promise<DiffPage> {
    return this.#reviewed(
      sessionId,
      (record, pinned) =>
        this.#withSnapshot(pinned, async (env, headCommit) => {
          const page = await gitPage(
            ["diff", "--cached", ...DIFF_FLAGS, record.baseCommit, "--"],
            this.#pinnedOptions(pinned, env),
            offset,
            length,
          );
          if (page.code !== 0) throw new Error(`git diff failed: ${page.stderr}`);
          return {
            sessionId,
            baseCommit: record.baseCommit,
            headCommit,
            bytes: page.total,
            offset: Math.min(offset, page.total),
            bytesRead: page.bytes,
          };
        }),
    );
  }

  /** The diff's counts per file and in all (`?stat=1`). */
  stat(sessionId: string): Promise<DiffStatPage> {
    return this.#reviewed(
      sessionId,
      (record, pinned) =>
        this.#withSnapshot(pinned, async (env, headCommit) => {
          const numstat = await this.#gitOk(
            ["diff", "--cached", "--numstat", "-z", ...DIFF_FLAGS, record.baseCommit, "--"],
            this.#pinnedOptions(pinned, env),
          );
          const files = parseNumstatFiles(numstat);
          return {
            sessionId,
            baseCommit: record.baseCommit,
            headCommit,
            changedFiles: files.length,
            insertions: files.reduce((sum, file) => sum + (file.insertions ?? 0), 0),
            deletions: files.reduce((sum, file) => sum + (file.deletions ?? 0), 0),
            files,
          };
        }),
    );
  }

  /** Runs `body` on the session's worktree, untampered, holding the worktree's lock. */
  #reviewed<T>(
    sessionId: string,
    body: (record: WorktreeRecord, pinned: PinnedWorktree) => Promise<T>,
  ): Promise<T> {
    return this.#locked(`worktree:${sessionId}`, async () => {
      const { record } = await this.#entry(sessionId);
      return await body(record, await this.#pinned(sessionId, record));
    });
  }

  /** Lands the worktree's work on the owner's checked-out branch (see the module comment). */
  async land(sessionId: string, request: { mode: LandMode; message?: string }): Promise<Landed> {
    return await this.#locked(`worktree:${sessionId}`, async () => {
      this.#gitChecked ??= this.#checkGit();
      await this.#gitChecked.catch((error) => {
        this.#gitChecked = null;
        throw error;
      });
      const { row, record } = await this.#entry(sessionId);
      this.#refuseLanding(row, record);
      const pinned = await this.#pinned(sessionId, record);
      return await this.#locked(
        `repository:${record.repository}`,
        () => this.#land(row, record, pinned, request),
      );
    });
  }

  #refuseLanding(row: SessionRow, record: WorktreeRecord): void {
    const sessionId = row.id;
    if (row.status === "running") {
      throw new ServiceError(
        "session_live",
        409,
        `Session "${sessionId}" is still running: land its work once it has ended`,
        { sessionId },
      );
    }
    if (record.landedAt) {
      throw new ServiceError(
        "already_landed",
        409,
        `The work of session "${sessionId}" was landed at ${record.landedAt} as ${record.landedCommit}`,
        { sessionId, landedCommit: record.landedCommit ?? null },
      );
    }
  }

  /** Landing needs `git merge-tree --write-tree`: git 2.38 or later. */
  async #checkGit(): Promise<void> {
    const version = await this.#gitOk(["--version"], this.#options(this.#root));
    const match = /(\d+)\.(\d+)/.exec(version);
    if (match && (Number(match[1]) > 2 || (Number(match[1]) === 2 && Number(match[2]) >= 38))) {
      return;
    }
    throw new ServiceError(
      "git_unsupported",
      500,
      `Landing needs git 2.38 or later (merge-tree --write-tree); this is ${version.trim()}`,
    );
  }

  /**
   * Removes the worktree and deletes its branch. Work never landed
   * (commits beyond base or uncommitted changes) or a tampered worktree
   * needs `force`. Every refusal comes before anything is removed.
   */
  discard(sessionId: string, force: boolean): Promise<Discarded> {
    return this.#locked(`worktree:${sessionId}`, async () => {
      const { row, record } = await this.#entry(sessionId);
      if (row.status === "running") {
        throw new ServiceError(
          "session_live",
          409,
          `Session "${sessionId}" is still running: discard its worktree once it has ended`,
          { sessionId },
        );
      }
      const check = await checkWorktree(record, this.#options(record.repository));
      if (!force && !record.landedAt) await this.#refuseUnlanded(sessionId, record, check);
      await this.#locked(`repository:${record.repository}`, async () => {
        await this.#worktrees.remove(sessionId, record, true);
        const exists = await this.#git(
          ["rev-parse", "--verify", "--quiet", `refs/heads/${record.branch}`],
          this.#options(record.repository),
        );
        if (exists.code === 0) {
          await this.#gitOk(["branch", "-D", record.branch], this.#options(record.repository));
        }
      });
      const stored = this.#sessions.get(sessionId);
      if (row.run_id && stored?.worktree_json) {
        this.#runs.update(row.run_id, { worktree: JSON.parse(stored.worktree_json) });
      }
      return { sessionId, path: record.path, branch: record.branch, branchDeleted: true };
    });
  }

  /** 409 unless the worktree holds nothing a discard would lose (and svc can tell). */
  async #refuseUnlanded(
    sessionId: string,
    record: WorktreeRecord,
    check: WorktreeCheck,
  ): Promise<void> {
    if (check.tampered !== null) throw worktreeTampered(sessionId, record.path, check.tampered);
    const options = this.#pinnedOptions(check.pinned);
    const ahead = await this.#gitOk(["rev-list", "--count", `${record.baseCommit}..HEAD`], options);
    const status = await this.#gitOk(
      ["status", "--porcelain", "-z", "--untracked-files=all", IGNORE_SUBMODULES],
      options,
    );
    const commits = Number(ahead.trim());
    const uncommittedFiles = status.split("\0").filter((entry) => entry !== "").length;
    if (commits > 0 || uncommittedFiles > 0) {
      throw new ServiceError(
        "unlanded_work",
        409,
        `The worktree of session "${sessionId}" holds work never landed ` +
          `(${commits} commits, ${uncommittedFiles} uncommitted files): force discards it`,
        { sessionId, commits, uncommittedFiles },
      );
    }
  }

  async #land(
    row: SessionRow,
    record: WorktreeRecord,
    pinned: PinnedWorktree,
    request: { mode: LandMode; message?: string },
  ): Promise<Landed> {
    const repo = record.repository;
    const identity = await this.#identity(repo);
    // 1. The worktree's uncommitted work as a commit on top of its HEAD, made
    //    without touching its index or branch yet.
    const worktreeHead = await this.#pinnedRev(pinned, "HEAD");
    const tip = await this.#withSnapshot(pinned, async (env, _head, tree) => {
      if (tree === await this.#pinnedRev(pinned, "HEAD^{tree}")) return null;
      const message = request.message ?? `Uncommitted work of svc session ${row.id}`;
      return (await this.#gitOk(
        [...NEUTRAL, "commit-tree", tree, "-p", worktreeHead, "-m", message],
        this.#pinnedOptions(pinned, { ...env, ...identity }),
      )).trim();
    });
    const work = tip ?? worktreeHead;
    if (work === record.baseCommit) throw nothingToLand(row.id, "the worktree has no changes");
    // 2. The owner's checkout: on a branch.
    const branch = await checkoutBranch(row.id, repo, this.#options(repo));
    const target = await this.#rev(repo, "HEAD");
    const contained = await this.#git(
      ["merge-base", "--is-ancestor", work, target],
      this.#options(repo),
    );
    if (contained.code === 0) throw nothingToLand(row.id, `${branch} already contains it`);
    // 3. The result, computed without touching the checkout.
    const input = {
      sessionId: row.id,
      record,
      work,
      target,
      identity,
      options: (cwd: string, env?: Record<string, string>) => this.#options(cwd, env),
    };
    const result = request.mode === "rebase"
      ? await rebasedResult(input, join(this.#root, `${row.id}.land`))
      : await mergedResult(input, { mode: request.mode, message: request.message });
    if (result === target) throw nothingToLand(row.id, `${branch} already holds its changes`);
    // 4. Nothing of the owner's in the checkout is in the land's way.
    await refuseLocalChanges(row.id, { repo, target, result }, this.#options(repo));
    // 5. Move the checkout: a fast-forward to a commit whose parent is its HEAD.
    const moved = await this.#git(
      ["merge", "--ff-only", "--quiet", "--no-verify-signatures", result],
      this.#options(repo),
    );
    if (moved.code !== 0) {
      throw landConflict(
        row.id,
        "checkout_changed",
        [],
        `git refused to move "${repo}" to the landed commit: ${moved.stderr}`,
      );
    }
    // 6. The worktree's branch gains the commit of its uncommitted work.
    if (tip !== null) {
      await this.#git(
        ["update-ref", "-m", "svc land", `refs/heads/${record.branch}`, tip, worktreeHead],
        this.#pinnedOptions(pinned),
      );
      await this.#git(["reset", "-q", "--mixed", tip], this.#pinnedOptions(pinned));
    }
    const landedAt = isoTime(this.#clock.now());
    const landed: WorktreeRecord = {
      ...record,
      headCommit: work,
      landedAt,
      landedCommit: result,
      landedMode: request.mode,
    };
    this.#sessions.update(row.id, { worktree_json: JSON.stringify(landed) });
    if (row.run_id) this.#runs.update(row.run_id, { worktree: landed });
    return {
      sessionId: row.id,
      mode: request.mode,
      branch,
      previousCommit: target,
      landedCommit: result,
      landedAt,
      uncommittedCommit: tip,
    };
  }

  /** The owner's identity for commits, or svc's when git has none configured. */
  async #identity(repo: string): Promise<Record<string, string>> {
    const author = await this.#git(["var", "GIT_AUTHOR_IDENT"], this.#options(repo));
    const committer = await this.#git(["var", "GIT_COMMITTER_IDENT"], this.#options(repo));
    return author.code === 0 && committer.code === 0 ? {} : FALLBACK_IDENTITY;
  }

  /** Runs `body` with a scratch index of the worktree's files (see `withSnapshotIndex`). */
  async #withSnapshot<T>(
    pinned: PinnedWorktree,
    body: (env: Record<string, string>, headCommit: string, tree: string) => Promise<T>,
  ): Promise<T> {
    const headCommit = await this.#pinnedRev(pinned, "HEAD");
    return await withSnapshotIndex(pinned, this.#options(pinned.workTree), async (env) => {
      const tree = (await this.#gitOk(["write-tree"], this.#pinnedOptions(pinned, env))).trim();
      return await body(env, headCommit, tree);
    });
  }

  /** The session and its worktree, which must exist and not be removed. */
  async #entry(sessionId: string): Promise<{ row: SessionRow; record: WorktreeRecord }> {
    const row = this.#sessions.get(sessionId);
    if (!row) throw sessionNotFound(sessionId);
    if (row.worktree_json === null) {
      throw new ServiceError(
        "worktree_not_found",
        404,
        `Session "${sessionId}" did not run in a worktree (isolation "worktree", D20)`,
        { sessionId },
      );
    }
    const record = JSON.parse(row.worktree_json) as WorktreeRecord;
    const gone = record.removedAt !== null ||
      !await Deno.stat(record.path).then((info) => info.isDirectory, () => false);
    if (gone) {
      throw new ServiceError(
        "worktree_removed",
        409,
        `The worktree of session "${sessionId}" was removed` +
          (record.removedAt ? ` at ${record.removedAt}` : ""),
        { sessionId, removedAt: record.removedAt },
      );
    }
    return { row, record };
  }

  /** The worktree's git directory, unless the worktree was tampered with (409, issue 33). */
  async #pinned(sessionId: string, record: WorktreeRecord): Promise<PinnedWorktree> {
    const check = await checkWorktree(record, this.#options(record.repository));
    if (check.tampered !== null) throw worktreeTampered(sessionId, record.path, check.tampered);
    return check.pinned;
  }

  /** One land, discard or diff at a time per worktree, and one land or discard per repository. */
  async #locked<T>(key: string, body: () => Promise<T>): Promise<T> {
    const before = this.#locks.get(key) ?? Promise.resolve();
    const run = before.catch(() => {}).then(body);
    this.#locks.set(key, run);
    try {
      return await run;
    } finally {
      if (this.#locks.get(key) === run) this.#locks.delete(key);
    }
  }

  async #rev(cwd: string, revision: string): Promise<string> {
    return (await this.#gitOk(["rev-parse", "--verify", revision], this.#options(cwd))).trim();
  }

  async #pinnedRev(pinned: PinnedWorktree, revision: string): Promise<string> {
    return (await this.#gitOk(["rev-parse", "--verify", revision], this.#pinnedOptions(pinned)))
      .trim();
  }

  #options(cwd: string, env?: Record<string, string>): GitOptions {
    return { cwd, env, timeoutMs: GIT_TIMEOUT_MS, processes: this.#processes };
  }

  /** Options of a git on the worktree, pinned to its git directory (issue 33). */
  #pinnedOptions(pinned: PinnedWorktree, env?: Record<string, string>): GitOptions {
    return { ...this.#options(pinned.workTree, env), pinned };
  }

  #git(args: readonly string[], options: GitOptions): Promise<GitResult> {
    return git(args, options);
  }

  #gitOk(args: readonly string[], options: GitOptions): Promise<string> {
    return gitOk(args, options);
  }
}
