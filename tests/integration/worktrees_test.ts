/**
 * Isolated runs end to end through the real socket (D20): a real git
 * repository made here, the configured fixture harness editing files, the
 * real `git`; worktrees, their counts, prune, retention, refusals.
 */
import assert from "node:assert/strict";
import {
  allEvents,
  fixtureHarnesses,
  startTestDaemon,
  type TestDaemon,
  waitForEnd,
} from "../helpers/daemon.ts";
import { removeTree, tempHome } from "../helpers/home.ts";
import { git, gitRepository } from "../helpers/git.ts";
import { startServe } from "../helpers/process.ts";
import { SvcClient } from "../../src/client/client.ts";
import { routineDefinition } from "../helpers/routine.ts";

type Json = Record<string, unknown>;
// deno-lint-ignore no-explicit-any
type AnyJson = Record<string, any>;

function routine(id: string, cwd: string, prompt: string, extra: Json = {}): Json {
  return routineDefinition(id, { prompt, cwd, isolation: "worktree", ...extra });
}

async function act(t: TestDaemon, action: string, fields: Json = {}): Promise<AnyJson> {
  const response = await t.client.post<AnyJson>("/actions", { action, ...fields });
  assert.equal(response.status, 200, JSON.stringify(response.body));
  return response.body.result;
}

/** Starts a manual run of a new routine; returns its run and session ids. */
async function startRun(
  t: TestDaemon,
  definition: Json,
): Promise<{ runId: string; sessionId: string }> {
  await act(t, "svc.automations.create", { definition });
  const started = await act(t, "svc.automations.run", { id: definition.id });
  assert.equal(started.error ?? null, null, JSON.stringify(started));
  return { runId: started.runId, sessionId: started.sessionId };
}

async function runRecord(t: TestDaemon, routineId: string, runId: string): Promise<AnyJson> {
  const runs = await act(t, "svc.automations.runs", { id: routineId });
  return runs.runs.find((run: AnyJson) => run.id === runId);
}

/** The test's own count: every change from base, new files included, via `git add -N`. */
async function numstat(worktree: string, base: string) {
  await git(worktree, "add", "--intent-to-add", "--all");
  const lines = (await git(worktree, "diff", "--numstat", "--no-renames", base)).trim().split("\n");
  let insertions = 0, deletions = 0;
  for (const line of lines) {
    const [added, deleted] = line.split("\t");
    insertions += Number(added);
    deletions += Number(deleted);
  }
  return { changedFiles: lines.length, insertions, deletions };
}

Deno.test("a worktree run leaves the owner's checkout untouched and counts its changes (D20)", async () => {
  const repo = await gitRepository();
  await using t = await startTestDaemon({
    configJson: { harnesses: fixtureHarnesses() },
    scheduler: false,
  });
  try {
    const headBefore = (await git(repo, "rev-parse", "HEAD")).trim();
    const readmeBefore = await Deno.readTextFile(`${repo}/README.md`);
    const { runId, sessionId } = await startRun(
      t,
      routine(
        "edit",
        `${repo}/src`,
        "pwd; write main.ts changed; write ../NEW.md hello; out done; exit 0",
      ),
    );
    const session = await waitForEnd(t.client, sessionId) as AnyJson;
    await t.daemon.runner.settled();

    // The owner's checkout: byte-identical, HEAD unchanged, nothing to commit.
    assert.equal(await git(repo, "status", "--porcelain"), "");
    assert.equal((await git(repo, "rev-parse", "HEAD")).trim(), headBefore);
    assert.equal(await Deno.readTextFile(`${repo}/README.md`), readmeBefore);
    assert.equal(await Deno.readTextFile(`${repo}/src/main.ts`), "export {};\n");

    // The worktree: named after the session, on the run's branch, holding the agent's change.
    const worktree = `${t.home}/worktrees/${sessionId}`;
    assert.equal(session.project_root, worktree);
    assert.equal(session.cwd, `${worktree}/src`);
    assert.equal(await Deno.readTextFile(`${worktree}/src/main.ts`), "changed\n");
    const run = await runRecord(t, "edit", runId);
    assert.equal(run.status, "succeeded");
    assert.equal(run.worktree.path, worktree);
    assert.equal(run.worktree.branch, `svc/edit/${runId}`);
    assert.equal(run.worktree.baseCommit, headBefore);
    assert.equal(run.worktree.headCommit, headBefore);
    assert.equal(run.worktree.uncommittedFiles, 2);
    assert.deepEqual(session.worktree, run.worktree);
    assert.match(run.summary, /done/);
    const counted = await numstat(worktree, headBefore);
    assert.deepEqual(
      {
        changedFiles: run.worktree.changedFiles,
        insertions: run.worktree.insertions,
        deletions: run.worktree.deletions,
      },
      counted,
    );
    assert.deepEqual(counted, { changedFiles: 2, insertions: 2, deletions: 1 });
    const printed = (await allEvents(t.client, sessionId)).find((e) => e.kind === "output")!
      .payload.data;
    assert.equal((printed as string).split("\n")[0], `${worktree}/src`); // Lines may share an event.

    const listed = await act(t, "svc.automations.worktrees", {});
    assert.deepEqual(listed.worktrees.map((w: AnyJson) => w.sessionId), [sessionId]);
  } finally {
    await removeTree(repo);
  }
});

Deno.test("overlapping runs get their own worktrees; prune keeps dirty ones unless forced and branches with commits (D20)", async () => {
  const repo = await gitRepository();
  await using t = await startTestDaemon({
    configJson: { harnesses: fixtureHarnesses() },
    scheduler: false,
  });
  try {
    const first = await startRun(t, routine("one", repo, "write a.txt one; sleep 400; exit 0"));
    const second = await startRun(t, routine("two", repo, "write a.txt two; sleep 400; exit 0"));
    const clean = await startRun(t, routine("clean", repo, "out nothing; exit 0"));
    const running = await act(t, "svc.automations.worktrees", {});
    assert.equal(running.worktrees.length, 3);
    // While they run, prune leaves them alone.
    assert.deepEqual((await act(t, "svc.automations.prune", { force: true })).removals, []);
    for (const run of [first, second, clean]) await waitForEnd(t.client, run.sessionId);
    await t.daemon.runner.settled();
    const paths = [first, second].map((run) => `${t.home}/worktrees/${run.sessionId}`);
    assert.notEqual(paths[0], paths[1]);
    assert.equal(await Deno.readTextFile(`${paths[0]}/a.txt`), "one\n");
    assert.equal(await Deno.readTextFile(`${paths[1]}/a.txt`), "two\n");

    // The owner commits in the second worktree: its branch is kept by prune.
    await git(paths[1], "add", "a.txt");
    await git(paths[1], "commit", "-q", "-m", "keep me");

    const gentle = await act(t, "svc.automations.prune", {});
    const byId = new Map(gentle.removals.map((r: AnyJson) => [r.sessionId, r]));
    assert.equal((byId.get(first.sessionId) as AnyJson).removed, false);
    assert.match((byId.get(first.sessionId) as AnyJson).reason, /uncommitted/);
    assert.deepEqual(byId.get(clean.sessionId), {
      sessionId: clean.sessionId,
      path: `${t.home}/worktrees/${clean.sessionId}`,
      branch: `svc/clean/${clean.runId}`,
      removed: true,
      branchDeleted: true,
    });
    assert.equal((byId.get(second.sessionId) as AnyJson).removed, true); // Committed: clean.
    assert.equal((byId.get(second.sessionId) as AnyJson).branchDeleted, false);

    const forced = await act(t, "svc.automations.prune", { force: true });
    assert.deepEqual(forced.removals.map((r: AnyJson) => [r.sessionId, r.removed]), [
      [first.sessionId, true],
    ]);
    for (const path of paths) await assert.rejects(Deno.stat(path), Deno.errors.NotFound);
    assert.equal((await act(t, "svc.automations.worktrees", {})).worktrees.length, 0);
    const branches = (await git(repo, "branch", "--list", "svc/*", "--format=%(refname:short)"))
      .trim();
    assert.equal(branches, `svc/two/${second.runId}`);
    assert.equal(
      (await git(repo, "worktree", "list", "--porcelain")).match(/^worktree /gm)?.length,
      1,
    );
    // The records keep the summary and say when it was removed.
    const record = await runRecord(t, "one", first.runId);
    const session = (await t.client.get<AnyJson>(`/sessions/${first.sessionId}`)).body;
    assert.equal(record.worktree.changedFiles, 1);
    assert.equal(typeof session.worktree.removedAt, "string");
    assert.equal(await git(repo, "status", "--porcelain"), "");
  } finally {
    await removeTree(repo);
  }
});

Deno.test("retention keeps a routine's newest worktrees.keep worktrees (D20)", async () => {
  const repo = await gitRepository();
  await using t = await startTestDaemon({
    configJson: { harnesses: fixtureHarnesses(), worktrees: { keep: 1 } },
    scheduler: false,
  });
  try {
    await act(t, "svc.automations.create", {
      definition: routine("kept", repo, "write a.txt x; exit 0"),
    });
    const sessions: string[] = [];
    for (let i = 0; i < 3; i++) {
      const started = await act(t, "svc.automations.run", { id: "kept" });
      await waitForEnd(t.client, started.sessionId);
      await t.daemon.runner.settled();
      sessions.push(started.sessionId);
    }
    const deadline = Date.now() + 10_000;
    let listed: AnyJson[] = [];
    do {
      listed = (await act(t, "svc.automations.worktrees", { routineId: "kept" })).worktrees;
      if (listed.length === 1) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    } while (Date.now() < deadline);
    assert.deepEqual(listed.map((w) => w.sessionId), [sessions[2]]);
    assert.equal((await git(repo, "branch", "--list", "svc/*")).trim().split("\n").length, 1);
  } finally {
    await removeTree(repo);
  }
});

Deno.test("isolation outside a git repository is refused: a run fails, a launch is 400 (D20)", async () => {
  const plain = await Deno.realPath(await tempHome());
  await using t = await startTestDaemon({
    configJson: { harnesses: fixtureHarnesses() },
    scheduler: false,
  });
  try {
    // At create (issue 27 item 6): refused with the field named.
    const refused = await t.client.post<AnyJson>("/actions", {
      action: "svc.automations.create",
      definition: routine("nogit", plain, "exit 0"),
    });
    assert.equal(refused.status, 400);
    assert.equal(refused.body.error.details.field, "definition.isolation");
    // A repository that is gone by the time the routine runs: the run fails.
    await Deno.mkdir(`${plain}/.git`);
    await act(t, "svc.automations.create", { definition: routine("nogit", plain, "exit 0") });
    await Deno.remove(`${plain}/.git`);
    const started = await t.client.post<AnyJson>("/actions", {
      action: "svc.automations.run",
      id: "nogit",
    });
    assert.equal(started.body.result.status, "failed");
    assert.equal(started.body.result.error.code, "not_a_git_repository");
    const run = (await act(t, "svc.automations.runs", { id: "nogit" })).runs[0];
    assert.equal(run.error.code, "not_a_git_repository");

    const launch = await t.client.post<AnyJson>("/sessions", {
      projectRoot: plain,
      harness: "fixture",
      prompt: "exit 0",
      isolation: "worktree",
    });
    assert.equal(launch.status, 400);
    assert.equal(launch.body.error.code, "not_a_git_repository");
    assert.deepEqual(launch.body.error.details, { field: "cwd" });
    const sessions = await t.client.get<AnyJson[]>("/sessions");
    assert.equal(sessions.body.length, 0); // Nothing launched.
  } finally {
    await removeTree(plain);
  }
});

Deno.test("POST /sessions with isolation worktree runs on branch svc/session/<id> (D20)", async () => {
  const repo = await gitRepository();
  await using t = await startTestDaemon({ configJson: { harnesses: fixtureHarnesses() } });
  try {
    const launch = await t.client.post<AnyJson>("/sessions", {
      projectRoot: repo,
      cwd: "src",
      harness: "fixture",
      prompt: "write main.ts edited; exit 0",
      isolation: "worktree",
    });
    assert.equal(launch.status, 201, JSON.stringify(launch.body));
    const id = launch.body.id;
    assert.equal(launch.body.worktree.branch, `svc/session/${id}`);
    assert.equal(launch.body.worktree.changedFiles, null); // Counted when it ends.
    assert.equal(launch.body.cwd, `${t.home}/worktrees/${id}/src`);
    const ended = await waitForEnd(t.client, id) as AnyJson;
    assert.equal(ended.worktree.changedFiles, 1);
    assert.equal(ended.worktree.insertions, 1);
    assert.equal(ended.worktree.deletions, 1);
    assert.equal(await git(repo, "status", "--porcelain"), "");
  } finally {
    await removeTree(repo);
  }
});

Deno.test("a daemon killed mid-run leaves a worktree that restart counts and prune removes (D20)", async () => {
  const repo = await gitRepository();
  const home = await tempHome();
  await Deno.writeTextFile(
    `${home}/config.json`,
    JSON.stringify({ harnesses: fixtureHarnesses() }),
  );
  const first = await startServe(home);
  let sessionId = "";
  try {
    const client = new SvcClient({ socketPath: `${home}/svc.sock` });
    const launched = await client.post<AnyJson>("/sessions", {
      projectRoot: repo,
      harness: "fixture",
      prompt: "write a.txt crashed; out written; sleep 60000",
      isolation: "worktree",
    });
    assert.equal(launched.status, 201, JSON.stringify(launched.body));
    sessionId = launched.body.id;
    const page = await client.get<AnyJson>(
      `/sessions/${sessionId}/events?afterSeq=0&kinds=output&waitMs=10000`,
    );
    assert.equal(page.body.events.length, 1);
    client.close();
  } finally {
    await first.stop("SIGKILL");
  }
  const second = await startServe(home);
  const client = new SvcClient({ socketPath: `${home}/svc.sock` });
  try {
    let record: AnyJson = {};
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline) {
      record = (await client.get<AnyJson>(`/sessions/${sessionId}`)).body;
      if (record.status !== "running") break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.equal(record.status, "orphaned");
    assert.equal(record.worktree.changedFiles, 1);
    assert.equal(record.worktree.uncommittedFiles, 1);
    const pruned = await client.post<AnyJson>("/actions", {
      action: "svc.automations.prune",
      force: true,
    });
    assert.deepEqual(pruned.body.result.removals.map((r: AnyJson) => r.removed), [true]);
    await assert.rejects(Deno.stat(`${home}/worktrees/${sessionId}`), Deno.errors.NotFound);
    assert.equal((await git(repo, "branch", "--list", "svc/*")).trim(), "");
    assert.equal(await git(repo, "status", "--porcelain"), "");
  } finally {
    client.close();
    await second.stop();
    await removeTree(home);
    await removeTree(repo);
  }
});

Deno.test("worktree setup copies .env and runs an install before the agent, which sees both (D27)", async () => {
  const repo = await gitRepository();
  await Deno.writeTextFile(`${repo}/.gitignore`, ".env\n");
  await git(repo, "add", ".gitignore");
  await git(repo, "commit", "-q", "-m", "ignore .env");
  await Deno.writeTextFile(`${repo}/.env`, "TOKEN=from-the-checkout\n");
  const install = [
    Deno.execPath(),
    "eval",
    "await Deno.writeTextFile('installed.txt', 'installed\\n'); console.log('install done')",
  ];
  await using t = await startTestDaemon({
    configJson: {
      harnesses: fixtureHarnesses(),
      worktreeSetup: { [repo]: { copy: [".env", "not-there.txt"], run: [install] } },
    },
    scheduler: false,
  });
  try {
    const { runId, sessionId } = await startRun(
      t,
      routine("setup", repo, "cat .env; cat installed.txt; exit 0"),
    );
    const session = await waitForEnd(t.client, sessionId) as AnyJson;
    assert.equal(session.status, "completed");
    const events = await allEvents(t.client, sessionId);
    const setup = events.filter((event) => event.kind === "worktree.setup")
      .map((event) => event.payload as AnyJson);
    assert.deepEqual(setup.map((step) => [step.step, step.path ?? step.exitCode]), [
      ["copy", ".env"],
      ["copy", "not-there.txt"],
      ["run", 0],
    ]);
    assert.equal(setup[0].copied, true);
    assert.equal(setup[1].copied, false);
    assert.equal(setup[2].stdout, "install done\n");
    const printed = events.filter((event) => event.kind === "output")
      .map((event) => event.payload.data).join("");
    assert.match(printed, /^TOKEN=.*\ninstalled\n$/); // The agent saw the copied .env.
    assert.match(printed, /installed\n$/);
    assert.equal(
      await Deno.readTextFile(`${session.worktree.path}/.env`),
      "TOKEN=from-the-checkout\n",
    );
    let run = await runRecord(t, "setup", runId);
    for (const deadline = Date.now() + 10_000; run.status === "running";) {
      assert.ok(Date.now() < deadline);
      run = await runRecord(t, "setup", runId);
    }
    assert.equal(run.status, "succeeded");
  } finally {
    await removeTree(repo);
  }
});

Deno.test("a failing setup command fails the run with worktree_setup_failed and keeps the worktree (D27)", async () => {
  const repo = await gitRepository();
  await using t = await startTestDaemon({
    configJson: { harnesses: fixtureHarnesses() },
    scheduler: false,
  });
  try {
    const fail = [Deno.execPath(), "eval", "console.error('no network'); Deno.exit(3)"];
    await act(t, "svc.automations.create", {
      definition: routine("broken", repo, "write agent.txt ran; exit 0", {
        worktreeSetup: { run: [fail], timeoutSeconds: 60 },
      }),
    });
    const started = await t.client.post<AnyJson>("/actions", {
      action: "svc.automations.run",
      id: "broken",
    });
    const result = started.body.result ?? started.body.error?.details ?? {};
    let run: AnyJson | undefined;
    for (const deadline = Date.now() + 20_000;;) {
      const runs = await act(t, "svc.automations.runs", { id: "broken" });
      run = runs.runs[0];
      if (run && run.status !== "running") break;
      assert.ok(Date.now() < deadline, JSON.stringify(started.body));
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.equal(run!.status, "failed", JSON.stringify(run));
    assert.equal(run!.error.code, "worktree_setup_failed");
    const sessionId = run!.sessionId ?? result.sessionId;
    const session = (await t.client.get<AnyJson>(`/sessions/${sessionId}`)).body;
    assert.equal(session.status, "failed");
    assert.ok((await Deno.stat(session.worktree.path)).isDirectory, "the worktree is kept");
    await assert.rejects(() => Deno.stat(`${session.worktree.path}/agent.txt`)); // No agent ran.
    const events = await allEvents(t.client, sessionId);
    const setup = events.find((event) => event.kind === "worktree.setup")!;
    const payload = setup.payload as AnyJson;
    assert.equal(payload.exitCode, 3);
    assert.equal(payload.stderr, "no network\n");
    // A copy path leaving the checkout is refused when the routine is defined.
    const refused = await t.client.post<AnyJson>("/actions", {
      action: "svc.automations.create",
      definition: routine("escape", repo, "exit 0", { worktreeSetup: { copy: ["../x"] } }),
    });
    assert.equal(refused.status, 400);
    assert.equal(refused.body.error.details.field, "definition.worktreeSetup.copy.0");
  } finally {
    await removeTree(repo);
  }
});
