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
 *
 * D34 adds the check (the same merge, answered without landing) and the
 * verify: the result checked out in a scratch worktree and the project's
 * command run there before the checkout moves (`land_verify.ts`).
 */
import { join } from "node:path";
import { type Clock, isoTime } from "../clock.ts";
import { ServiceError, sessionNotFound } from "../errors.ts";
import type { OwnedProcesses } from "../sessions/owned_processes.ts";
import type { RunsStore } from "../store/runs_store.ts";
import type { SessionRow, SessionsStore } from "../store/sessions_store.ts";
import { git, gitOk, type GitOptions, type GitResult, type PinnedWorktree } from "./git.ts";
import { withSnapshotIndex } from "./snapshot.ts";
import { checkWorktree, worktreeTampered } from "./worktree_pin.ts";
import type { WorktreeRecord } from "./worktree_record.ts";
import type { Worktrees } from "./worktrees.ts";
import {
  type DiffPage,
  type DiffStatPage,
  readDiffPage,
  readDiffStat,
  refuseUnlanded,
} from "./worktree_diff.ts";
import { commitIdentity, mergedResult, NEUTRAL, rebasedResult } from "./land_result.ts";
import {
  checkoutBranch,
  landConflict,
  nothingToLand,
  refuseLocalChanges,
  requireMergeTree,
} from "./land_checks.ts";
import { mergeCheck } from "./land_check.ts";
import type {
  LandCheck,
  Landed,
  LandEventKind,
  LandHooks,
  LandMode,
  LandRequest,
} from "./land_types.ts";
import { type LandVerify, runVerify, verifyFailed, verifyPassed } from "./land_verify.ts";

/** What a discard did. */
export interface Discarded {
  sessionId: string;
  path: string;
  branch: string;
  branchDeleted: boolean;
}

/** Each git command of a diff or a land gets this long. */
const GIT_TIMEOUT_MS = 120_000;
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
  readonly #verifyFor: (repository: string) => LandVerify | null;
  readonly #record: (sessionId: string, kind: string, payload: unknown) => Promise<void>;
  readonly #publish: (kind: LandEventKind, data: Record<string, unknown>) => void;

  constructor(options: {
    sessions: SessionsStore;
    runs: RunsStore;
    worktrees: Worktrees;
    clock: Clock;
    /** `$SVC_HOME/worktrees`: scratch worktrees of a rebase go there. */
    root: string;
    processes?: OwnedProcesses;
    /** The project's configured `land.verify` for a repository (D34). */
    verifyFor?: (repository: string) => LandVerify | null;
    /** Appends an event to an ended session's log (`worktree.verify`). */
    record?: (sessionId: string, kind: string, payload: unknown) => Promise<void>;
    /** The `land.*` notices of `/stream`. */
    publish?: (kind: LandEventKind, data: Record<string, unknown>) => void;
  }) {
    this.#sessions = options.sessions;
    this.#runs = options.runs;
    this.#worktrees = options.worktrees;
    this.#clock = options.clock;
    this.#root = options.root;
    this.#processes = options.processes;
    this.#verifyFor = options.verifyFor ?? (() => null);
    this.#record = options.record ?? (() => Promise.resolve());
    this.#publish = options.publish ?? (() => {});
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

  /** A page of the diff against the base commit (see `readDiffPage`). */
  diff(sessionId: string, offset: number, length: number): Promise<DiffPage> {
    return this.#reviewed(
      sessionId,
      (record, pinned) =>
        this.#withSnapshot(pinned, (env, headCommit) =>
          readDiffPage(
            { sessionId, baseCommit: record.baseCommit, headCommit },
            { offset, length },
            this.#pinnedOptions(pinned, env),
          )),
    );
  }

  /** The diff's counts per file and in all (`?stat=1`). */
  stat(sessionId: string): Promise<DiffStatPage> {
    return this.#reviewed(
      sessionId,
      (record, pinned) =>
        this.#withSnapshot(pinned, (env, headCommit) =>
          readDiffStat(
            { sessionId, baseCommit: record.baseCommit, headCommit },
            this.#pinnedOptions(pinned, env),
          )),
    );
  }

  /**
   * Whether the work (its uncommitted files too) would merge cleanly into the
   * checkout's HEAD, and which files both sides changed (D34). Only objects
   * are written to the repository: its checkout, index, refs and status stay as they were.
   */
  async check(sessionId: string): Promise<LandCheck> {
    return await this.#reviewed(sessionId, async (record, pinned) => {
      const repo = record.repository;
      await this.#requireGit();
      const { work } = await this.#workCommit(sessionId, pinned, {
        identity: await commitIdentity(this.#options(repo)),
      });
      const symbolic = await this.#git(["symbolic-ref", "-q", "HEAD"], this.#options(repo));
      const headCommit = await this.#rev(repo, "HEAD");
      return {
        sessionId,
        branch: symbolic.code === 0 ? symbolic.stdout.trim() : null,
        headCommit,
        ...await mergeCheck({ work, target: headCommit }, this.#options(repo)),
        verify: { configured: this.#verifyFor(repo) !== null },
      };
    });
  }

  /** Lands the worktree's work on the owner's checked-out branch (see the module comment). */
  async land(sessionId: string, request: LandRequest, hooks: LandHooks = {}): Promise<Landed> {
    const about = { ...(hooks.itemId && { itemId: hooks.itemId }), sessionId };
    try {
      const landed = await this.#locked(`worktree:${sessionId}`, async () => {
        const { row, record } = await this.#entry(sessionId);
        await this.#requireGit();
        this.#refuseLanding(row, record);
        const pinned = await this.#pinned(sessionId, record);
        return await this.#locked(
          `repository:${record.repository}`,
          () => this.#land(row, record, pinned, { request, hooks, about }),
        );
      });
      this.#publish("land.landed", { ...about, commit: landed.landedCommit });
      return landed;
    } catch (error) {
      const refusal = error instanceof ServiceError ? error : null;
      const files = refusal?.details?.files;
      this.#publish("land.failed", {
        ...about,
        code: refusal?.code ?? "internal_error",
        ...(Array.isArray(files) && { files }),
      });
      throw error;
    }
  }

  /**
   * After a crash between the checkout moving and the land being recorded
   * (D34): true when `commit` is in the checkout's HEAD, then recorded as
   * the session's land; false when it never landed.
   */
  landedBefore(sessionId: string, attempt: { commit: string; mode: LandMode }): Promise<boolean> {
    return this.#locked(`worktree:${sessionId}`, async () => {
      const row = this.#sessions.get(sessionId);
      if (!row?.worktree_json) return false;
      const record = JSON.parse(row.worktree_json) as WorktreeRecord;
      if (record.landedCommit === attempt.commit) return true;
      const repo = record.repository;
      const inHead = await this.#git(
        ["merge-base", "--is-ancestor", attempt.commit, "HEAD"],
        this.#options(repo),
      );
      if (inHead.code !== 0) return false;
      this.#recordLanded(row, record, { ...attempt, work: record.headCommit ?? attempt.commit });
      return true;
    });
  }

  /**
   * git's version, asked once. In the filesystem's root: svc's worktrees
   * folder may not exist yet, and a moved checkout is answered by its own check.
   */
  #requireGit(): Promise<void> {
    this.#gitChecked ??= requireMergeTree(this.#options("/"));
    return this.#gitChecked.catch((error) => {
      this.#gitChecked = null;
      throw error;
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
      if (!force && !record.landedAt) {
        if (check.tampered !== null) throw worktreeTampered(sessionId, record.path, check.tampered);
        await refuseUnlanded(sessionId, record, this.#pinnedOptions(check.pinned));
      }
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

  /**
   * The commit of all the worktree's work: its HEAD, or its uncommitted
   * work committed on top (`tip`), made without touching its index or branch.
   */
  async #workCommit(
    sessionId: string,
    pinned: PinnedWorktree,
    options: { identity: Record<string, string>; message?: string },
  ): Promise<{ worktreeHead: string; tip: string | null; work: string }> {
    const worktreeHead = await this.#pinnedRev(pinned, "HEAD");
    const tip = await this.#withSnapshot(pinned, async (env, _head, tree) => {
      if (tree === await this.#pinnedRev(pinned, "HEAD^{tree}")) return null;
      const message = options.message ?? `Uncommitted work of svc session ${sessionId}`;
      return (await this.#gitOk(
        [...NEUTRAL, "commit-tree", tree, "-p", worktreeHead, "-m", message],
        this.#pinnedOptions(pinned, { ...env, ...options.identity }),
      )).trim();
    });
    return { worktreeHead, tip, work: tip ?? worktreeHead };
  }

  async #land(
    row: SessionRow,
    record: WorktreeRecord,
    pinned: PinnedWorktree,
    land: { request: LandRequest; hooks: LandHooks; about: Record<string, string> },
  ): Promise<Landed> {
    const { request, hooks, about } = land;
    const repo = record.repository;
    const identity = await commitIdentity(this.#options(repo));
    // 1. The worktree's uncommitted work as a commit on top of its HEAD.
    const { worktreeHead, tip, work } = await this.#workCommit(row.id, pinned, {
      identity,
      message: request.message,
    });
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
      title: row.title,
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
    this.#publish("land.checked", { ...about, commit: result });
    // 4. The project's verify passes on the result (D34), run where the checkout is not.
    const verify = request.verify ?? this.#verifyFor(repo);
    if (verify) {
      hooks.verifying?.();
      const outcome = await runVerify(
        { repo, result, scratch: join(this.#root, `${row.id}.verify`) },
        verify,
        {
          options: (cwd) => this.#options(cwd),
          record: (payload) => this.#record(row.id, "worktree.verify", payload),
          processes: this.#processes,
        },
      );
      if (!verifyPassed(outcome)) throw verifyFailed(row.id, outcome);
      this.#publish("land.verified", { ...about, commit: result });
    }
    // 5. Nothing of the owner's in the checkout is in the land's way.
    await refuseLocalChanges(row.id, { repo, target, result }, this.#options(repo));
    hooks.moving?.(result);
    // 6. Move the checkout: a fast-forward to a commit whose parent is its HEAD.
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
    // 7. The worktree's branch gains the commit of its uncommitted work.
    if (tip !== null) {
      await this.#git(
        ["update-ref", "-m", "svc land", `refs/heads/${record.branch}`, tip, worktreeHead],
        this.#pinnedOptions(pinned),
      );
      await this.#git(["reset", "-q", "--mixed", tip], this.#pinnedOptions(pinned));
    }
    const landedAt = this.#recordLanded(row, record, { work, commit: result, mode: request.mode });
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

  /** Records the land on the session (and its run); returns when it landed. */
  #recordLanded(
    row: SessionRow,
    record: WorktreeRecord,
    land: { work: string; commit: string; mode: LandMode },
  ): string {
    const landedAt = isoTime(this.#clock.now());
    const landed: WorktreeRecord = {
      ...record,
      headCommit: land.work,
      landedAt,
      landedCommit: land.commit,
      landedMode: land.mode,
    };
    this.#sessions.update(row.id, { worktree_json: JSON.stringify(landed) });
    if (row.run_id) this.#runs.update(row.run_id, { worktree: landed });
    return landedAt;
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
