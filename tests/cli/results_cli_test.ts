/** `svc inbox`, `svc worktrees`, `svc usage` and `--worktree` against a real `svc serve` (D20–D22). */
import assert from "node:assert/strict";
import { changesText } from "../../src/cli/worktrees.ts";
import { usageTable } from "../../src/cli/usage.ts";
import { waitForEnd } from "../helpers/daemon.ts";
import { git, gitRepository } from "../helpers/git.ts";
import { removeTree } from "../helpers/home.ts";
import { startCliDaemon } from "./cli_daemon.ts";
import { routineDefinition } from "../helpers/routine.ts";

// deno-lint-ignore no-explicit-any
type Json = Record<string, any>;

Deno.test("svc inbox lists, shows and reads results; svc worktrees lists and prunes; svc usage totals", async () => {
  await using d = await startCliDaemon();
  const repo = await gitRepository();
  try {
    await d.client.post("/actions", {
      action: "svc.automations.create",
      definition: routineDefinition("edit", {
        name: "Edit things",
        prompt: "write a.txt edited; out Edited a.txt; exit 0",
        cwd: repo,
        isolation: "worktree",
        outputTarget: { kind: "inbox" },
      }),
    });
    const run = (await d.client.post<Json>("/actions", {
      action: "svc.automations.run",
      id: "edit",
    })).body.result;
    await waitForEnd(d.client, run.sessionId);
    let listed = { code: 1, stdout: "", stderr: "" };
    const deadline = Date.now() + 20_000;
    while (!listed.stdout.includes(run.runId)) {
      assert.ok(Date.now() < deadline, "the result never appeared");
      listed = await d.svc(["inbox", "--unread"]);
    }
    assert.equal(listed.code, 0, listed.stderr);
    const [header, row] = listed.stdout.trim().split("\n");
    assert.match(header, /RUN\s+ROUTINE\s+STATUS\s+ENDED\s+RESULT/);
    assert.match(
      row,
      new RegExp(
        `^\\*\\s+${run.runId}\\s+edit\\s+succeeded\\s+\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d \\S+\\s+Edited a.txt$`,
      ),
    );

    const shown = await d.svc(["inbox", "show", run.runId]);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /^# Edit things: succeeded\n/);
    // Issue 38 item 14: the result's table as aligned columns, its times as every command prints them.
    assert.doesNotMatch(shown.stdout, /^\|/m);
    assert.match(shown.stdout, /^Started\s+\d{4}-\d\d-\d\d \d\d:\d\d \S+$/m);
    const utc = await d.svc(["inbox", "show", run.runId, "--utc"]);
    assert.match(utc.stdout, /^Ended\s+\d{4}-\d\d-\d\d \d\d:\d\d UTC$/m);
    assert.match(shown.stdout, /1 file changed, \+1 −1 \(1 uncommitted\)/);
    assert.equal((await d.svc(["inbox", "--unread"])).stdout.includes(run.runId), true);
    assert.equal((await d.svc(["inbox", "read", run.runId])).code, 0);
    assert.equal((await d.svc(["inbox", "--unread"])).stdout.trim(), "No results");
    const missing = await d.svc(["inbox", "show", "run_nope"]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /^run_not_found: /);

    const worktrees = await d.svc(["worktrees", "list"]);
    assert.match(
      worktrees.stdout,
      new RegExp(
        `${run.sessionId}\\s+completed\\s+1 file \\+1 -1 \\(1 uncommitted\\)\\s+-\\s+svc/edit/${run.runId}`,
      ),
    );
    const gentle = await d.svc(["worktrees", "prune"]);
    assert.match(
      gentle.stdout.trim(),
      /^Kept .*: it has uncommitted changes \(force removes them\)$/,
    );
    const forced = await d.svc(["worktrees", "prune", "--force"]);
    assert.match(forced.stdout.trim(), new RegExp(`^Removed .* and branch svc/edit/${run.runId}$`));
    assert.equal((await d.svc(["worktrees", "list"])).stdout.trim(), "No worktrees");

    const started = await d.svc([
      "sessions",
      "start",
      "--project-root",
      repo,
      "--harness",
      "fixture",
      "--worktree",
      "exit 0",
    ]);
    assert.equal(started.code, 0, started.stderr);
    const sessionId = started.stdout.trim();
    const ended = await waitForEnd(d.client, sessionId) as Json;
    assert.equal(ended.worktree.branch, `svc/session/${sessionId}`);
    assert.equal(await git(repo, "status", "--porcelain"), "");

    const usage = await d.svc(["usage"]);
    assert.equal(usage.code, 0, usage.stderr);
    assert.match(usage.stdout, /^HARNESS\s+SESSIONS\s+INPUT\s+CACHED\s+OUTPUT\s+COST\n/);
    assert.match(
      usage.stdout.trimEnd(),
      /\nfixture\s+2\s+-\s+-\s+-\s+-\ntotal\s+2\s+-\s+-\s+-\s+-$/,
    );
    const bad = await d.svc(["usage", "--by", "week"]);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /^invalid_request: .*\(field "by"\)/);
  } finally {
    await removeTree(repo);
  }
});

Deno.test("changesText() and usageTable() render counts, and '-' for what was not reported", () => {
  const worktree = {
    path: "/w",
    branch: "b",
    repository: "/r",
    baseCommit: "a",
    headCommit: null,
    changedFiles: null,
    insertions: null,
    deletions: null,
    uncommittedFiles: null,
    error: null,
    removedAt: null,
  };
  assert.equal(changesText(worktree), "-");
  assert.equal(changesText({ ...worktree, error: "git failed" }), "not counted");
  assert.equal(
    changesText({ ...worktree, changedFiles: 2, insertions: 5, deletions: 1, uncommittedFiles: 0 }),
    "2 files +5 -1",
  );
  assert.equal(
    changesText({ ...worktree, changedFiles: 1, insertions: 1, deletions: 0, uncommittedFiles: 1 }),
    "1 file +1 -0 (1 uncommitted)",
  );
  const total = {
    key: null,
    sessions: 2,
    inputTokens: 30,
    outputTokens: 4,
    cachedInputTokens: null,
    costUsd: 0.5,
  };
  assert.deepEqual(
    usageTable({ by: "routine", since: null, groups: [total], total }).split("\n").map((l) =>
      l.split(/\s{2,}/)
    ),
    [
      ["ROUTINE", "SESSIONS", "INPUT", "CACHED", "OUTPUT", "COST"],
      ["(no routine)", "2", "30", "-", "4", "$0.5"],
      ["total", "2", "30", "-", "4", "$0.5"],
    ],
  );
});
