/**
 * The worktree manager and the review of its worktrees over an in-memory
 * store, a real repository and the real `git`, without a daemon; and the
 * tampering agent (tests/fixtures/tampering_agent.ts) to run in a worktree.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { systemClock } from "../../src/clock.ts";
import { silentLogger } from "../../src/log.ts";
import { migrate } from "../../src/store/db.ts";
import { RunsStore } from "../../src/store/runs_store.ts";
import { SessionsStore } from "../../src/store/sessions_store.ts";
import { WorktreeReview } from "../../src/worktrees/review.ts";
import type { WorktreeRecord } from "../../src/worktrees/worktree_record.ts";
import { Worktrees } from "../../src/worktrees/worktrees.ts";
import { gitRepository } from "./git.ts";
import { removeTree, tempHome } from "./home.ts";
import { runningSessionRow } from "./rows.ts";

const tamperingAgent = new URL("../fixtures/tampering_agent.ts", import.meta.url).pathname;

/** The ways the tampering agent tries to make svc's git run its programs. */
export const TAMPERING_VECTORS = ["gitfile", "gitdir", "submodule"] as const;
export type TamperingVector = typeof TAMPERING_VECTORS[number];

/** The tampering agent as a configured raw harness (its prompt is `VECTOR MARKER_DIR`). */
export function tamperingHarness(): { command: string[]; prompt: string } {
  return { command: [Deno.execPath(), "run", "-A", tamperingAgent, "{prompt}"], prompt: "arg" };
}

/** Runs the tampering agent in `worktree`; its programs would touch files in `markers`. */
export async function tamper(
  worktree: string,
  vector: TamperingVector,
  markers: string,
): Promise<void> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", tamperingAgent, vector, markers],
    cwd: worktree,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(output.success, new TextDecoder().decode(output.stderr));
}

/** The names of the agent's programs that ran (each touched its marker). */
export function markersIn(dir: string): string[] {
  return [...Deno.readDirSync(dir)].map((entry) => entry.name).sort();
}

export interface WorktreeRig {
  home: string;
  repo: string;
  /** Where the agent's programs leave their markers. */
  markers: string;
  sessions: SessionsStore;
  worktrees: Worktrees;
  review: WorktreeReview;
  /** A worktree of `repo` for a new ended session `id`, recorded on its row. */
  endedSession(id: string): Promise<WorktreeRecord>;
  [Symbol.asyncDispose](): Promise<void>;
}

export async function worktreeRig(): Promise<WorktreeRig> {
  const home = await Deno.realPath(await tempHome());
  const markers = `${home}/markers`;
  await Deno.mkdir(markers);
  const db = new DatabaseSync(":memory:");
  migrate(db);
  const sessions = new SessionsStore(db);
  const worktrees = new Worktrees({
    root: `${home}/worktrees`,
    sessions,
    clock: systemClock,
    log: silentLogger,
  });
  const review = new WorktreeReview({
    sessions,
    runs: new RunsStore(db),
    worktrees,
    clock: systemClock,
    root: `${home}/worktrees`,
  });
  const repo = await gitRepository();
  return {
    home,
    repo,
    markers,
    sessions,
    worktrees,
    review,
    async endedSession(id) {
      const { record } = await worktrees.create(repo, id, `svc/session/${id}`);
      sessions.insert({
        ...runningSessionRow(id),
        status: "completed",
        worktree_json: JSON.stringify(record),
      });
      return record;
    },
    async [Symbol.asyncDispose]() {
      db.close();
      await removeTree(home);
      await removeTree(repo);
    },
  };
}
