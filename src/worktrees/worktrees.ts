import { join, relative } from "node:path";
import { ServiceError } from "../errors.ts";
import { type Clock, isoTime } from "../clock.ts";
import type { Logger } from "../log.ts";
import { isInside } from "../sessions/paths.ts";
import type { SessionRow, SessionsStore } from "../store/sessions_store.ts";
import { parseNumstat } from "./diff_stat.ts";
import { git, gitOk, type GitOptions, type GitResult } from "./git.ts";
import type { OwnedProcesses } from "../sessions/owned_processes.ts";
import type { WorktreeRecord } from "./worktree_record.ts";
import { runSetup, type SetupRecorder, type WorktreeSetup } from "./setup.ts";
import { withSnapshotIndex } from "./snapshot.ts";
import { checkWorktree, tamperedMessage, type WorktreeCheck } from "./worktree_pin.ts";

/** Counting a finished worktree's changes gets this long per git command. */
const SUMMARY_TIMEOUT_MS = 60_000;
/**
 * `git status` in a worktree never looks inside a nested repository: git
 * would run a second git there, through that repository's own `.git` and
 * config, which the agent wrote (issue 33).
 */
export const IGNORE_SUBMODULES = "--ignore-submodules=all";

/** What `remove` did with one worktree. */
export interface Removal {
  sessionId: string;
  path: string;
  branch: string;
  removed: boolean;
  /** False when the branch holds commits beyond its base (kept for review). */
  branchDeleted: boolean;
  /** Why it was kept, when it was. */
  reason?: string;
}

/** Written before `git worktree add`, deleted once the session row holds the worktree. */
interface PendingMarker {
  repository: string;
  branch: string;
  baseCommit: string;
}

/**
 * Git worktrees of isolated sessions and runs (D20): added on a new branch
 * under `$SVC_HOME/worktrees/<session id>`, summarized when the session
 * ends, removed by prune or retention. Only the real `git` touches the
 * owner's repository, and only to add and remove worktrees and their
 * branches: never the owner's checkout, index or HEAD.
 */
export class Worktrees {
  readonly #root: string;
  readonly #sessions: SessionsStore;
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #processes: OwnedProcesses | undefined;
  readonly #removed: (sessionId: string, record: WorktreeRecord) => void;

  constructor(options: {
    root: string;
    sessions: SessionsStore;
    clock: Clock;
    log: Logger;
    /** Tracks every git process, so a stopping daemon ends them (issue 28 item 15). */
    processes?: OwnedProcesses;
    /** Told of every worktree removed (its approval rules go with it, issue 38 item 10). */
    removed?: (sessionId: string, record: WorktreeRecord) => void;
  }) {
    this.#root = options.root;
    this.#sessions = options.sessions;
    this.#clock = options.clock;
    this.#log = options.log;
    this.#processes = options.processes;
    this.#removed = options.removed ?? (() => {});
  }

  /**
   * Adds a worktree of the repository containing `cwd` (already a real path)
   * at HEAD on `branch`, for session `id`; returns its record and the
   * matching working directory inside it. Outside a repository (or in one
   * without a commit) throws 400 `not_a_git_repository` naming `cwd`.
   */
  async create(cwd: string, id: string, branch: string): Promise<{
    record: WorktreeRecord;
    cwd: string;
  }> {
    const top = await this.#git(["rev-parse", "--show-toplevel"], { cwd });
    if (top.code !== 0 || top.stdout.trim() === "") {
      throw notAGitRepository(`"${cwd}" is not inside a git repository`);
    }
    const repository = await Deno.realPath(top.stdout.trim());
    const head = await this.#git(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], {
      cwd: repository,
    });
    if (head.code !== 0) {
      throw notAGitRepository(`The git repository "${repository}" has no commit to start from`);
    }
    const baseCommit = head.stdout.trim();
    const path = join(this.#root, id);
    await Deno.mkdir(this.#root, { recursive: true, mode: 0o700 });
    const marker: PendingMarker = { repository, branch, baseCommit };
    await Deno.writeTextFile(this.#markerPath(id), JSON.stringify(marker), { mode: 0o600 });
    const added = await this.#git(["worktree", "add", "--quiet", "-b", branch, path, baseCommit], {
      cwd: repository,
    });
    if (added.code !== 0) {
      await Deno.remove(this.#markerPath(id)).catch(() => {});
      throw new ServiceError(
        "worktree_failed",
        500,
        `Cannot add a git worktree of "${repository}": ${added.stderr}`,
        { field: "cwd", repository },
      );
    }
    const record: WorktreeRecord = {
      path,
      branch,
      repository,
      baseCommit,
      headCommit: null,
      changedFiles: null,
      insertions: null,
      deletions: null,
      uncommittedFiles: null,
      error: null,
      removedAt: null,
      landedAt: null,
      landedCommit: null,
      landedMode: null,
    };
    const inside = join(path, relative(repository, cwd));
    if (!await exists(inside)) {
      await this.discard(id, record);
      throw new ServiceError(
        "invalid_request",
        400,
        `Working directory "${cwd}" holds nothing git tracks, so the worktree has no such directory`,
        { field: "cwd" },
      );
    }
    return { record, cwd: inside };
  }

  /** Runs `worktreeSetup` in a new worktree before its agent starts (D27). */
  async setup(
    setup: WorktreeSetup,
    record: WorktreeRecord,
    recorder: SetupRecorder,
  ): Promise<void> {
    await runSetup(
      setup,
      { repository: record.repository, worktree: record.path },
      recorder,
      this.#processes,
    );
  }

  /** The session row now holds the worktree: crash recovery no longer needs the marker. */
  async settle(id: string): Promise<void> {
    await Deno.remove(this.#markerPath(id)).catch(() => {});
  }

  /**
   * Takes back a worktree whose session never started (the launch failed):
   * nothing of the agent's is in it.
   */
  async discard(id: string, record: WorktreeRecord): Promise<void> {
    await this.#removeWorktree(record);
    await this.#deleteBranchIfDone(record);
    await this.settle(id);
    if (this.#sessions.get(id)) this.#store(id, { ...record, removedAt: this.#now() });
  }

  /**
   * The record of an ending session with its changes counted (D20): base to
   * the worktree's files as they are, uncommitted changes and new files
   * included, through a scratch index so the worktree's own is untouched.
   * Git is pinned to the worktree's git directory; a tampered worktree is
   * not counted (issue 33). Never throws: a count that fails leaves `error` set.
   */
  async summarize(record: WorktreeRecord): Promise<WorktreeRecord> {
    try {
      const gitOptions = { timeoutMs: SUMMARY_TIMEOUT_MS, processes: this.#processes };
      const check = await checkWorktree(record, gitOptions);
      if (check.tampered !== null) {
        return { ...record, error: tamperedMessage(record.path, check.tampered) };
      }
      const options = { ...gitOptions, cwd: record.path, pinned: check.pinned };
      const headCommit = (await gitOk(["rev-parse", "HEAD"], options)).trim();
      const numstat = await withSnapshotIndex(check.pinned, gitOptions, (env) =>
        gitOk(
          [
            "diff",
            "--cached",
            "--numstat",
            "-z",
            "--no-renames",
            "--no-ext-diff",
            "--no-textconv",
            record.baseCommit,
          ],
          { ...options, env },
        ));
      const status = await gitOk(
        ["status", "--porcelain", "-z", "--no-renames", IGNORE_SUBMODULES],
        options,
      );
      return {
        ...record,
        headCommit,
        ...parseNumstat(numstat),
        uncommittedFiles: status.split("\0").filter((entry) => entry !== "").length,
        error: null,
      };
    } catch (error) {
      return { ...record, error: (error as Error).message };
    }
  }

  /** The session's fields to store as it ends: its worktree summarized (supervisor hook). */
  async finalize(row: SessionRow): Promise<Partial<SessionRow>> {
    if (row.worktree_json === null) return {};
    const record = JSON.parse(row.worktree_json) as WorktreeRecord;
    if (record.removedAt !== null) return {};
    return { worktree_json: JSON.stringify(await this.summarize(record)) };
  }

  /** Worktrees svc made and has not removed, oldest first (optionally of one routine). */
  list(
    routineId?: string,
  ): Array<
    {
      sessionId: string;
      routineId: string | null;
      runId: string | null;
      status: string;
      worktree: WorktreeRecord;
    }
  > {
    return this.#sessions.withWorktrees(routineId).flatMap((row) => {
      const worktree = JSON.parse(row.worktree_json!) as WorktreeRecord;
      if (worktree.removedAt !== null) return [];
      return [{
        sessionId: row.id,
        routineId: row.routine_id,
        runId: row.run_id,
        status: row.status,
        worktree,
      }];
    });
  }

  /**
   * Removes the worktrees of ended sessions (optionally of one routine).
   * One with uncommitted changes is kept unless `force` (as `git worktree
   * remove` does); a branch is deleted only when it has no commit beyond base.
   */
  async prune(options: { routineId?: string; force?: boolean } = {}): Promise<Removal[]> {
    const removals: Removal[] = [];
    for (const entry of this.list(options.routineId)) {
      if (entry.status === "running") continue;
      removals.push(await this.remove(entry.sessionId, entry.worktree, options.force === true));
    }
    return removals;
  }

  /** Retention (config `worktrees.keep`): a routine's newest `keep` ended worktrees stay. */
  async retain(routineId: string, keep: number): Promise<Removal[]> {
    const ended = this.list(routineId).filter((entry) => entry.status !== "running");
    const removals: Removal[] = [];
    for (const entry of ended.slice(0, Math.max(0, ended.length - keep))) {
      removals.push(await this.remove(entry.sessionId, entry.worktree, true));
    }
    return removals;
  }

  /**
   * Removes one worktree and, when it has no commit beyond base, its branch.
   * Without `force`, one with uncommitted changes, a tampered one or one
   * whose checkout moved is kept: svc checks it with git pinned to the
   * worktree, then has git remove it without looking again (`git worktree
   * remove` alone would run `git status` through the worktree's own `.git`).
   */
  async remove(sessionId: string, record: WorktreeRecord, force: boolean): Promise<Removal> {
    const removal = { sessionId, path: record.path, branch: record.branch };
    if (!force && await exists(record.path)) {
      const kept = await this.#whyKept(record);
      if (kept !== null) return { ...removal, removed: false, branchDeleted: false, reason: kept };
    }
    await this.#removeWorktree(record);
    const branchDeleted = await this.#deleteBranchIfDone(record);
    this.#store(sessionId, { ...record, removedAt: this.#now() });
    this.#removed(sessionId, record);
    return { ...removal, removed: true, branchDeleted };
  }

  /**
   * Whether session `sessionId`'s worktree is still the one svc made (issue
   * 33 item 6): `$SVC_HOME/worktrees/<id>`, a real directory (no symlink on
   * the way), that git still lists as a worktree of its repository.
   */
  async inspect(sessionId: string, record: WorktreeRecord): Promise<WorktreeState> {
    const made = join(this.#root, sessionId);
    const info = await Deno.lstat(made).catch(() => null);
    if (info === null) return "removed";
    const real = await Deno.realPath(made).catch(() => null);
    const realRoot = await Deno.realPath(this.#root).catch(() => null);
    if (
      record.path !== made || !info.isDirectory || realRoot === null ||
      real !== join(realRoot, sessionId)
    ) return "replaced";
    const listed = await this.#git(["worktree", "list", "--porcelain"], {
      cwd: record.repository,
    }).catch(() => null);
    if (listed?.code !== 0) return "replaced";
    const paths = listed.stdout.split("\n").filter((line) => line.startsWith("worktree "))
      .map((line) => line.slice("worktree ".length));
    return paths.includes(made) || paths.includes(real) ? "present" : "replaced";
  }

  /**
   * Start-up: worktrees a crash left between `git worktree add` and the
   * session record (their marker remains) are removed with their branch.
   */
  async recover(): Promise<number> {
    let recovered = 0;
    for await (const entry of readDirOrEmpty(this.#root)) {
      if (!entry.isFile || !entry.name.endsWith(".pending.json")) continue;
      const id = entry.name.slice(0, -".pending.json".length);
      try {
        if (!this.#sessions.get(id)) {
          const marker = JSON.parse(await Deno.readTextFile(this.#markerPath(id))) as PendingMarker;
          await this.#removeWorktree({ ...marker, path: join(this.#root, id) });
          await this.#deleteBranchIfDone(marker);
          recovered++;
        }
        await this.settle(id);
      } catch (error) {
        this.#log.error("Cannot recover a worktree left by a crash", { id, error });
      }
    }
    return recovered;
  }

  /** Why `remove` without force keeps the worktree, or null when nothing would be lost. */
  async #whyKept(record: WorktreeRecord): Promise<string | null> {
    let check: WorktreeCheck;
    try {
      check = await checkWorktree(record, { processes: this.#processes });
    } catch {
      return `its checkout "${record.repository}" was moved or removed (force removes it)`;
    }
    if (check.tampered !== null) {
      return `it was tampered with: ${check.tampered} (force removes it)`;
    }
    const status = await this.#git(
      ["status", "--porcelain", IGNORE_SUBMODULES],
      { cwd: record.path, pinned: check.pinned },
    );
    return status.code === 0 && status.stdout.trim() !== ""
      ? "it has uncommitted changes (force removes them)"
      : null;
  }

  /** Deletes the worktree whatever it holds: callers decided that nothing is lost. */
  async #removeWorktree(record: { path: string; repository: string }) {
    if (!isInside(this.#root, record.path)) return; // Only ever delete what svc made.
    const args = ["worktree", "remove", "--force", record.path];
    const removed = await this.#git(args, { cwd: record.repository }).catch(() => null);
    if (removed?.code === 0) return;
    // The repository or the directory is gone: delete what is left, then let git forget it.
    await Deno.remove(record.path, { recursive: true }).catch(() => {});
    await this.#git(["worktree", "prune"], { cwd: record.repository }).catch(() => null);
  }

  /**
   * Deletes the branch when nothing on it would be lost: it has no commit
   * beyond base, or its work was landed (D27) and it has not moved since
   * (issue 38 item 10: prune kept every landed branch).
   */
  async #deleteBranchIfDone(
    record: PendingMarker & Partial<Pick<WorktreeRecord, "landedAt" | "headCommit">>,
  ): Promise<boolean> {
    const options = { cwd: record.repository };
    const ref = `refs/heads/${record.branch}`;
    const [ahead, tip] = await Promise.all([
      this.#git(["rev-list", "--count", `${record.baseCommit}..${ref}`], options).catch(() => null),
      this.#git(["rev-parse", "--verify", "--quiet", ref], options).catch(() => null),
    ]);
    const landed = Boolean(record.landedAt) && tip?.code === 0 &&
      tip.stdout.trim() === record.headCommit;
    if (!landed && (ahead?.code !== 0 || ahead.stdout.trim() !== "0")) return false;
    const deleted = await this.#git(["branch", "-D", record.branch], options).catch(() => null);
    return deleted?.code === 0;
  }

  #git(args: readonly string[], options: GitOptions): Promise<GitResult> {
    return git(args, { ...options, processes: this.#processes });
  }

  #store(sessionId: string, record: WorktreeRecord): void {
    this.#sessions.update(sessionId, { worktree_json: JSON.stringify(record) });
  }

  #markerPath(id: string): string {
    return join(this.#root, `${id}.pending.json`);
  }

  #now(): string {
    return isoTime(this.#clock.now());
  }
}

/** 400 `not_a_git_repository` (D20): isolation needs a repository with a commit. */
function notAGitRepository(message: string): ServiceError {
  return new ServiceError(
    "not_a_git_repository",
    400,
    `${message}: isolation "worktree" needs one`,
    { field: "cwd" },
  );
}

/** What `Worktrees.inspect` found at a session's worktree path. */
export type WorktreeState = "present" | "removed" | "replaced";

async function exists(path: string): Promise<boolean> {
  return await Deno.stat(path).then(() => true, () => false);
}

async function* readDirOrEmpty(path: string): AsyncIterable<Deno.DirEntry> {
  try {
    yield* Deno.readDir(path);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
}
