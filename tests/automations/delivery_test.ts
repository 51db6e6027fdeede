import assert from "node:assert/strict";
import fc from "fast-check";
import {
  deliverResult,
  renderResult,
  resultPath,
  routineFolder,
  routineIdOfFolder,
  writeAtomically,
} from "../../src/automations/delivery.ts";
import type { RoutineRow } from "../../src/store/routines_store.ts";
import type { RunRow } from "../../src/store/runs_store.ts";
import { removeTree, tempHome } from "../helpers/home.ts";

Deno.test("resultPath() places results by target; an id never climbs out (D21)", () => {
  assert.equal(
    resultPath({ kind: "inbox" }, "/h/inbox", "daily", "run_1"),
    "/h/inbox/daily/run_1.md",
  );
  assert.equal(
    resultPath({ kind: "file", path: "/out" }, "/h/inbox", "daily", "run_1"),
    "/out/daily-run_1.md",
  );
  assert.equal(resultPath({ kind: "inbox" }, "/h/inbox", "..", "run_1"), "/h/inbox/%2E./run_1.md");
  assert.equal(resultPath({ kind: "inbox" }, "/h/inbox", ".x", "run_1"), "/h/inbox/%2Ex/run_1.md");
  assert.equal(
    resultPath({ kind: "file", path: "/out" }, "/h/inbox", ".", "run_1"),
    "/out/%2E-run_1.md",
  );
});

Deno.test("resultPath() gives routines . and _ (and .x and _x) their own inbox folders (issue 28 item 13)", () => {
  const ids = [".", "_", "..", "_.", "._", "__", ".x", "_x", "x", "x.", "x_"];
  const folders = ids.map((id) => resultPath({ kind: "inbox" }, "/h/inbox", id, "run_1"));
  assert.equal(new Set(folders).size, ids.length, folders.join(" "));
});

Deno.test("routineFolder() is one to one, reversible, and never a dot name (issue 28 item 13)", () => {
  const routineId = fc.stringMatching(/^[A-Za-z0-9._-]{1,96}$/);
  fc.assert(fc.property(routineId, (id) => {
    const folder = routineFolder(id);
    assert.equal(routineIdOfFolder(folder), id);
    assert.ok(!folder.startsWith("."), folder);
    assert.ok(!/[\\/]/.test(folder), folder);
  }));
  fc.assert(fc.property(routineId, routineId, (a, b) => {
    fc.pre(a !== b);
    assert.notEqual(routineFolder(a), routineFolder(b));
  }));
  assert.equal(
    routineFolder("nightly_build.v2"),
    "nightly_build.v2",
    "ordinary ids keep their name",
  );
});

Deno.test("renderResult() holds the run's facts, usage, worktree and how to read the log (D21)", () => {
  const routine = { id: "daily", definition: { name: "Daily | triage" } } as unknown as RoutineRow;
  const run = {
    id: "run_1",
    routineId: "daily",
    trigger: "schedule",
    scheduledFor: "2026-11-23T03:00:00.000Z",
    status: "failed",
    sessionId: "ses_1",
    startedAt: "2026-11-23T03:00:01.000Z",
    endedAt: "2026-11-23T03:02:00.000Z",
    exitCode: 1,
    error: { code: "session_failed", message: "Session ended\nfailed" },
    usage: { inputTokens: 120, outputTokens: 30, cachedInputTokens: 20, costUsd: 0.0123 },
    summary: "I fixed **two** bugs.\n",
    worktree: {
      path: "/h/worktrees/ses_1",
      branch: "svc/daily/run_1",
      repository: "/repo",
      baseCommit: "a".repeat(40),
      headCommit: "b".repeat(40),
      changedFiles: 2,
      insertions: 10,
      deletions: 3,
      uncommittedFiles: 1,
      error: null,
      removedAt: null,
    },
  } as unknown as RunRow;
  const text = renderResult(run, routine);
  assert.match(text, /^# Daily \\\| triage: failed\n/);
  assert.match(text, /\| Error \| session_failed: Session ended failed \|/);
  assert.match(text, /\| Scheduled for \| 2026-11-23T03:00:00.000Z \|/);
  assert.match(text, /\| Usage \| 120 input tokens \(20 cached\), 30 output tokens, \$0.0123 \|/);
  assert.match(text, /2 files changed, \+10 −3 \(1 uncommitted\), aaaaaaaaaaaa..bbbbbbbbbbbb/);
  assert.match(
    text,
    /## Result\n\nI fixed \*\*two\*\* bugs.\n\n## Review\n\n[^]*\n## Full log\n\n[^\n]*\n\n {4}svc events ses_1\n$/,
  );
  // D27: the exact commands to review, land or discard an isolated run's work, and its diff stat.
  assert.match(text, /\n {4}svc worktrees diff ses_1\n/);
  assert.match(text, /\n {4}svc worktrees land ses_1 --squash\n/);
  assert.match(text, /\n {4}svc worktrees discard ses_1 --force\n/);
  const stat = {
    sessionId: "ses_1",
    baseCommit: "a".repeat(40),
    headCommit: "b".repeat(40),
    changedFiles: 2,
    insertions: 10,
    deletions: 3,
    files: [
      { path: "src/new.ts", oldPath: "src/old.ts", insertions: 10, deletions: 3, binary: false },
      { path: "logo.png", oldPath: null, insertions: null, deletions: null, binary: true },
    ],
  };
  assert.match(
    renderResult(run, routine, stat),
    /## Review\n\n```\n\+10 -3 {9}src\/old\.ts => src\/new\.ts\nbinary {9}logo\.png\n2 files changed, \+10 -3\n```\n/,
  );
  // Issue 38 item 14: one of a thing is not "1 files".
  const one = renderResult(
    {
      ...run,
      usage: { inputTokens: 1, outputTokens: 1, cachedInputTokens: 1, costUsd: null },
      worktree: { ...run.worktree!, changedFiles: 1 },
    },
    routine,
    { ...stat, changedFiles: 1, files: [stat.files[0]] },
  );
  assert.match(one, /\| Usage \| 1 input token \(1 cached\), 1 output token \|/);
  assert.match(one, /: 1 file changed, \+10 −3 \(1 uncommitted\)/);
  assert.match(one, /\n1 file changed, \+10 -3\n```\n/);
  const empty = renderResult(run, routine, { ...stat, changedFiles: 0, files: [] });
  assert.match(
    empty,
    /The worktree has no changes\. Remove it with:\n\n {4}svc worktrees discard ses_1\n/,
  );
  const removed = { ...run, worktree: { ...run.worktree!, removedAt: "2026-11-24T00:00:00.000Z" } };
  assert.doesNotMatch(renderResult(removed, routine), /## Review/);
  const bare = renderResult(
    { ...run, sessionId: null, usage: null, worktree: null, summary: null },
    routine,
  );
  assert.match(bare, /_The run produced no final message._/);
  assert.match(bare, /No session ran/);
  assert.doesNotMatch(bare, /Usage|Worktree/);
});

Deno.test("writeAtomically() writes 0600 and leaves nothing behind when it cannot (D21)", async () => {
  const dir = await tempHome();
  try {
    await writeAtomically(`${dir}/sub/r.md`, "one\n");
    await writeAtomically(`${dir}/sub/r.md`, "two\n"); // Replaces: still one file.
    assert.equal(await Deno.readTextFile(`${dir}/sub/r.md`), "two\n");
    assert.equal((await Deno.stat(`${dir}/sub/r.md`)).mode! & 0o777, 0o600);
    assert.deepEqual([...Deno.readDirSync(`${dir}/sub`)].map((e) => e.name), ["r.md"]);
    await Deno.mkdir(`${dir}/sub/taken.md`); // A directory where the file should go.
    await assert.rejects(writeAtomically(`${dir}/sub/taken.md`, "x"));
    assert.deepEqual([...Deno.readDirSync(`${dir}/sub`)].map((e) => e.name).sort(), [
      "r.md",
      "taken.md",
    ]);
  } finally {
    await removeTree(dir);
  }
});

Deno.test({
  name: "deliverResult() refuses a stored file target that is not absolute on this host (issue 28)",
  ignore: Deno.build.os === "windows",
  fn: async () => {
    const routine = {
      id: "daily",
      definition: { name: "Daily", outputTarget: { kind: "file", path: "C:/x" } },
    } as unknown as RoutineRow;
    const run = { id: "run_1", routineId: "daily", status: "succeeded" } as unknown as RunRow;
    const delivery = await deliverResult(run, routine, "/nonexistent/inbox");
    assert.equal(delivery?.status, "failed");
    assert.equal(delivery?.path, null);
    assert.match(delivery?.error ?? "", /"C:\/x" is not an absolute path on this host/);
    assert.equal(await Deno.stat("C:").then(() => true, () => false), false, "written under cwd");
  },
});
