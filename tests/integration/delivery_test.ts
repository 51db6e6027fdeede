/**
 * Run results end to end through the real socket (D21, D22): one Markdown
 * file per run, atomically, 0600; the inbox actions; a delivery failure
 * recorded on the run; notify with the result's path; usage totals.
 */
import assert from "node:assert/strict";
import { FakeClock } from "../fakes/clock.ts";
import {
  fixtureHarnesses,
  startTestDaemon,
  type TestDaemon,
  waitForEnd,
} from "../helpers/daemon.ts";
import { removeTree, tempHome } from "../helpers/home.ts";
import { routineDefinition } from "../helpers/routine.ts";
import { openSse } from "../helpers/sse.ts";

// deno-lint-ignore no-explicit-any
type Json = Record<string, any>;

function routine(id: string, prompt: string, cwd: string, extra: Json = {}): Json {
  return routineDefinition(id, {
    name: `Routine ${id}`,
    timeoutMinutes: 1,
    prompt,
    cwd,
    outputTarget: { kind: "inbox" },
    ...extra,
  });
}

async function act(t: TestDaemon, action: string, fields: Json = {}) {
  return (await t.client.post<Json>("/actions", { action, ...fields })).body;
}

async function runOnce(t: TestDaemon, definition: Json): Promise<Json> {
  await act(t, "svc.automations.create", { definition });
  const started = (await act(t, "svc.automations.run", { id: definition.id })).result;
  if (started.sessionId) await waitForEnd(t.client, started.sessionId);
  await t.daemon.runner.settled();
  const runs = (await act(t, "svc.automations.runs", { id: definition.id })).result.runs;
  return runs.find((run: Json) => run.id === started.runId);
}

/** Reads every result file in `dir` as soon as it appears, until stopped: none may be partial. */
function pollResults(dir: string, signal: AbortSignal): Promise<number> {
  return (async () => {
    let seen = 0;
    while (!signal.aborted) {
      const routineDirs = await Array.fromAsync(Deno.readDir(dir)).catch(() => []);
      for (const routineDir of routineDirs) {
        for await (const file of Deno.readDir(`${dir}/${routineDir.name}`)) {
          if (!file.name.endsWith(".md")) continue;
          const text = await Deno.readTextFile(`${dir}/${routineDir.name}/${file.name}`);
          assert.match(text, /## Full log\n\n[\s\S]*\n$/, `partial result ${file.name}`);
          seen++;
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    return seen;
  })();
}

Deno.test("every run writes one Markdown result to the inbox, atomically, 0600 (D21)", async () => {
  const project = await Deno.realPath(await tempHome());
  await using t = await startTestDaemon({
    configJson: { harnesses: fixtureHarnesses() },
    scheduler: false,
  });
  const stop = new AbortController();
  const polling = pollResults(`${t.home}/inbox`, stop.signal);
  try {
    const ok = await runOnce(t, routine("fine", "out all | good; exit 0", project));
    const bad = await runOnce(t, routine("broken", "err oops; exit 3", project));
    const missing = await runOnce(
      t,
      routine("nowhere", "exit 0", project, { cwd: `${project}/gone` }),
    );
    stop.abort();
    assert.ok(await polling > 0, "the poller saw the results");

    for (const [run, routineId] of [[ok, "fine"], [bad, "broken"], [missing, "nowhere"]] as const) {
      const path = `${t.home}/inbox/${routineId}/${run.id}.md`;
      assert.deepEqual(run.delivery, {
        status: "delivered",
        kind: "inbox",
        path,
        error: null,
        readAt: null,
      });
      const info = await Deno.stat(path);
      assert.equal(info.mode! & 0o777, 0o600);
      const files = [...Deno.readDirSync(`${t.home}/inbox/${routineId}`)].map((f) => f.name);
      assert.deepEqual(files, [`${run.id}.md`]); // Exactly one file, no temporary left.
    }
    const text = await Deno.readTextFile(ok.delivery.path);
    assert.match(text, /^# Routine fine: succeeded\n/);
    assert.match(text, new RegExp(`\\| Run \\| \`${ok.id}\` \\(manual\\) \\|`));
    assert.match(text, /## Result\n\nall \| good\n/);
    assert.match(text, new RegExp(`svc events ${ok.sessionId}`));
    assert.equal(ok.summary, "all | good\n");
    const failed = await Deno.readTextFile(bad.delivery.path);
    assert.match(failed, /\| Status \| failed \|/);
    assert.match(failed, /\| Error \| session_failed: Session ended failed with exit code 3 \|/);
    assert.match(await Deno.readTextFile(missing.delivery.path), /No session ran/);

    // The inbox: newest first, unread, then read.
    const inbox = (await act(t, "svc.automations.inbox", { unread: true })).result.results;
    assert.deepEqual(inbox.map((entry: Json) => entry.runId), [missing.id, bad.id, ok.id]);
    assert.equal(inbox[2].headline, "all | good");
    const shown = (await act(t, "svc.automations.result", { runId: ok.id })).result;
    assert.equal(shown.markdown, text);
    assert.equal(shown.run.delivery.readAt, null); // show does not mark it read
    // Marking read tells every open UI (the feed's inbox.read, issue 38 item 12), once.
    const feed = await openSse(t.socket, "/stream");
    const read = (await act(t, "svc.automations.result", { runId: ok.id, markRead: true })).result;
    assert.equal(typeof read.run.delivery.readAt, "string");
    await act(t, "svc.automations.result", { runId: ok.id, markRead: true });
    const notice = await feed.next();
    assert.equal(notice?.event, "inbox.read");
    assert.deepEqual(JSON.parse(notice!.data), {
      runId: ok.id,
      routineId: ok.routineId,
      readAt: read.run.delivery.readAt,
    });
    await act(t, "svc.automations.create", { definition: routine("marker", "hi", project) });
    assert.equal((await feed.next())?.event, "automations.changed", "no second inbox.read");
    await feed.close();
    const unread = (await act(t, "svc.automations.inbox", { unread: true })).result.results;
    assert.deepEqual(unread.map((entry: Json) => entry.runId), [missing.id, bad.id]);
    assert.equal((await act(t, "svc.automations.inbox", {})).result.results.length, 3);

    const ghost = await t.client.post<Json>("/actions", {
      action: "svc.automations.result",
      runId: "run_nope",
    });
    assert.equal(ghost.status, 404);
    assert.equal(ghost.body.error.code, "run_not_found");
  } finally {
    stop.abort();
    await polling.catch(() => {});
    await removeTree(project);
  }
});

Deno.test("an unwritable target records delivery failed; the run keeps its status (D21)", async () => {
  const project = await Deno.realPath(await tempHome());
  // A regular file where the directory should be: unwritable even for root.
  const blocked = `${project}/blocked`;
  await Deno.writeTextFile(blocked, "not a directory\n");
  await using t = await startTestDaemon({
    configJson: { harnesses: fixtureHarnesses() },
    scheduler: false,
  });
  try {
    const run = await runOnce(
      t,
      routine("nowrite", "out hi; exit 0", project, {
        outputTarget: { kind: "file", path: `${blocked}/results` },
      }),
    );
    assert.equal(run.status, "succeeded");
    assert.equal(run.delivery.status, "failed");
    assert.equal(run.delivery.path, null);
    assert.match(run.delivery.error, /Cannot write ".*nowrite-run_.*\.md"/);
    const result = await t.client.post<Json>("/actions", {
      action: "svc.automations.result",
      runId: run.id,
    });
    assert.equal(result.status, 404);
    assert.equal(result.body.error.code, "result_not_found");

    const fileTarget = await runOnce(
      t,
      routine("tofile", "out hi; exit 0", project, {
        outputTarget: { kind: "file", path: `${project}/results` },
      }),
    );
    assert.equal(fileTarget.delivery.path, `${project}/results/tofile-${fileTarget.id}.md`);
    assert.match(await Deno.readTextFile(fileTarget.delivery.path), /succeeded/);
    const plain = await runOnce(
      t,
      routine("plain", "exit 0", project, { outputTarget: undefined }),
    );
    assert.equal(plain.delivery, null);
  } finally {
    await removeTree(project);
  }
});

Deno.test("a timed-out run delivers its result and notify gets its path (D21)", async () => {
  const project = await Deno.realPath(await tempHome());
  const out = `${project}/notified.jsonl`;
  const script = `${project}/notify.ts`;
  await Deno.writeTextFile(
    script,
    `const keys = ["SVC_EVENT", "SVC_RUN_ID", "SVC_ROUTINE_ID", "SVC_STATUS", "SVC_RESULT_PATH"];
     const line = JSON.stringify(Object.fromEntries(keys.map((k) => [k, Deno.env.get(k)])));
     await Deno.writeTextFile(Deno.args[0], line + "\\n", { append: true });`,
  );
  const clock = new FakeClock(Date.parse("2026-11-23T10:00:00Z"));
  await using t = await startTestDaemon({
    clock,
    configJson: {
      harnesses: fixtureHarnesses(),
      notify: { command: [Deno.execPath(), "run", "-A", script, out], on: ["timed_out"] },
    },
    scheduler: false,
  });
  try {
    await act(t, "svc.automations.create", {
      definition: routine("slow", "out started; sleep 60000; exit 0", project),
    });
    const started = (await act(t, "svc.automations.run", { id: "slow" })).result;
    await clock.advance(61_000);
    await waitForEnd(t.client, started.sessionId);
    await t.daemon.runner.settled();
    const [run] = (await act(t, "svc.automations.runs", { id: "slow" })).result.runs;
    assert.equal(run.status, "timed_out");
    assert.equal(run.delivery.status, "delivered");
    assert.match(await Deno.readTextFile(run.delivery.path), /\| Status \| timed_out \|/);
    const deadline = Date.now() + 20_000;
    let text = "";
    while (!text.includes("\n")) {
      assert.ok(Date.now() < deadline, "notify never ran");
      await new Promise((resolve) => setTimeout(resolve, 50));
      text = await Deno.readTextFile(out).catch(() => "");
    }
    assert.deepEqual(JSON.parse(text), {
      SVC_EVENT: "timed_out",
      SVC_RUN_ID: run.id,
      SVC_ROUTINE_ID: "slow",
      SVC_STATUS: "timed_out",
      SVC_RESULT_PATH: run.delivery.path,
    });
  } finally {
    await removeTree(project);
  }
});
