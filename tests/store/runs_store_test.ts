import assert from "node:assert/strict";
import type { DatabaseSync } from "node:sqlite";
import { openDatabase } from "../../src/store/db.ts";
import { runRecord, type RunRow, RunsStore } from "../../src/store/runs_store.ts";
import { removeTree, tempHome } from "../helpers/home.ts";

interface Rig {
  db: DatabaseSync;
  runs: RunsStore;
  [Symbol.asyncDispose](): Promise<void>;
}

async function rig(): Promise<Rig> {
  const dir = await tempHome();
  const db = openDatabase(`${dir}/svc.db`);
  return {
    db,
    runs: new RunsStore(db),
    async [Symbol.asyncDispose]() {
      db.close();
      await removeTree(dir);
    },
  };
}

const NINE = "2026-03-01T09:00:00.000Z";

function run(id: string, overrides: Partial<RunRow> = {}): RunRow {
  return {
    id,
    routineId: "daily",
    trigger: "schedule",
    scheduledFor: NINE,
    status: "running",
    sessionId: null,
    startedAt: null,
    endedAt: null,
    exitCode: null,
    error: null,
    permissionDenials: null,
    usage: null,
    summary: null,
    worktree: null,
    delivery: null,
    leaseOwner: "inst_a",
    leaseExpiresAt: "2026-03-01T09:03:00.000Z",
    createdAt: NINE,
    ...overrides,
  };
}

/** Runs of routine "daily", one per status, created a minute apart (oldest first). */
function history(runs: RunsStore, statuses: RunRow["status"][]): void {
  statuses.forEach((status, i) => {
    const at = new Date(Date.parse(NINE) + i * 60_000).toISOString();
    assert.ok(runs.insert(run(`run_${i}`, {
      status,
      scheduledFor: at,
      createdAt: at,
      endedAt: status === "running" ? null : at,
    })));
  });
}

Deno.test("RunsStore.insert() stores a run that get() returns whole", async (t) => {
  await using r = await rig();
  await t.step("a running, leased run", () => {
    const row = run("run_1", { sessionId: "ses_1", startedAt: NINE });
    assert.equal(r.runs.insert(row), true);
    assert.deepEqual(r.runs.get("run_1"), row);
  });
  await t.step("a failed run with its error", () => {
    const row = run("run_2", {
      scheduledFor: "2026-03-02T09:00:00.000Z",
      status: "failed",
      exitCode: 3,
      endedAt: "2026-03-02T09:01:00.000Z",
      error: { code: "exit_nonzero", message: 'Exited with "3"' },
      leaseOwner: null,
      leaseExpiresAt: null,
    });
    assert.equal(r.runs.insert(row), true);
    assert.deepEqual(r.runs.get("run_2"), row);
  });
  await t.step("an unknown id is null", () => assert.equal(r.runs.get("run_nope"), null));
});

Deno.test("RunsStore.insert() returns false for an occurrence already recorded", async () => {
  await using r = await rig();
  assert.equal(r.runs.insert(run("run_1")), true);
  assert.equal(r.runs.insert(run("run_2", { status: "skipped", leaseOwner: "inst_b" })), false);
  assert.equal(r.runs.get("run_2"), null);
  assert.equal(r.runs.get("run_1")?.leaseOwner, "inst_a");
  assert.equal(r.runs.listForRoutine("daily", 10).length, 1);
});

Deno.test("RunsStore.insert() keys occurrences by routine and instant", async (t) => {
  await using r = await rig();
  r.runs.insert(run("run_1"));
  await t.step("another routine at the same instant", () => {
    assert.equal(r.runs.insert(run("run_2", { routineId: "other" })), true);
  });
  await t.step("the same routine at another instant", () => {
    assert.equal(r.runs.insert(run("run_3", { scheduledFor: "2026-03-01T09:00:00.001Z" })), true);
  });
  await t.step("manual runs without scheduledFor never collide", () => {
    for (const id of ["run_m1", "run_m2", "run_m3"]) {
      assert.equal(r.runs.insert(run(id, { trigger: "manual", scheduledFor: null })), true);
    }
    assert.equal(r.runs.listForRoutine("daily", 10).length, 5);
  });
  await t.step("a finished occurrence still blocks a second claim", () => {
    r.runs.update("run_1", { status: "succeeded", endedAt: NINE });
    assert.equal(r.runs.insert(run("run_4")), false);
  });
});

Deno.test("RunsStore.insert() throws on a duplicate id rather than reporting a claim", async () => {
  await using r = await rig();
  r.runs.insert(run("run_1"));
  assert.throws(() => r.runs.insert(run("run_1", { scheduledFor: null, trigger: "manual" })));
});

Deno.test("RunsStore.listForRoutine() returns a routine's runs newest first, limited", async () => {
  await using r = await rig();
  history(r.runs, ["succeeded", "skipped", "failed", "running"]);
  r.runs.insert(run("run_other", { routineId: "other" }));
  assert.deepEqual(r.runs.listForRoutine("daily", 10).map((x) => x.id), [
    "run_3",
    "run_2",
    "run_1",
    "run_0",
  ]);
  assert.deepEqual(r.runs.listForRoutine("daily", 2).map((x) => x.id), ["run_3", "run_2"]);
  assert.deepEqual(r.runs.listForRoutine("nope", 10), []);
});

Deno.test("RunsStore.listForRoutine() orders runs created in the same instant by id", async () => {
  await using r = await rig();
  for (const id of ["run_b", "run_c", "run_a"]) {
    r.runs.insert(run(id, { trigger: "manual", scheduledFor: null }));
  }
  assert.deepEqual(r.runs.listForRoutine("daily", 10).map((x) => x.id), [
    "run_c",
    "run_b",
    "run_a",
  ]);
});

Deno.test("RunsStore.outcomes() excludes skipped runs, newest first, limited", async (t) => {
  await using r = await rig();
  history(r.runs, ["succeeded", "skipped", "failed", "timed_out", "skipped", "running"]);
  await t.step("all outcomes", () => {
    assert.deepEqual(r.runs.outcomes("daily", 10).map((x) => [x.id, x.status]), [
      ["run_5", "running"],
      ["run_3", "timed_out"],
      ["run_2", "failed"],
      ["run_0", "succeeded"],
    ]);
  });
  await t.step("the limit counts outcomes, not skipped runs", () => {
    assert.deepEqual(r.runs.outcomes("daily", 2).map((x) => x.id), ["run_5", "run_3"]);
  });
});

Deno.test("RunsStore.lastSucceeded() returns the newest succeeded run or null", async (t) => {
  await using r = await rig();
  await t.step("null without runs", () => assert.equal(r.runs.lastSucceeded("daily"), null));
  history(r.runs, ["succeeded", "succeeded", "failed", "skipped"]);
  await t.step(
    "the newest success",
    () => assert.equal(r.runs.lastSucceeded("daily")?.id, "run_1"),
  );
  await t.step("null when none succeeded", () => {
    r.runs.insert(run("run_x", { routineId: "other", status: "failed" }));
    assert.equal(r.runs.lastSucceeded("other"), null);
  });
});

Deno.test("RunsStore.running() lists running runs, optionally of one routine", async () => {
  await using r = await rig();
  history(r.runs, ["running", "succeeded", "running"]);
  r.runs.insert(run("run_other", { routineId: "other" }));
  r.runs.insert(
    run("run_other_done", { routineId: "other", scheduledFor: null, status: "failed" }),
  );
  assert.deepEqual(r.runs.running("daily").map((x) => x.id).sort(), ["run_0", "run_2"]);
  assert.deepEqual(r.runs.running("other").map((x) => x.id), ["run_other"]);
  assert.deepEqual(r.runs.running().map((x) => x.id).sort(), ["run_0", "run_2", "run_other"]);
  assert.deepEqual(r.runs.running("nope"), []);
});

Deno.test("RunsStore.update() changes only the given fields", async (t) => {
  await using r = await rig();
  const original = run("run_1");
  r.runs.insert(original);
  r.runs.insert(run("run_2", { scheduledFor: null, trigger: "manual" }));
  await t.step("selected fields", () => {
    r.runs.update("run_1", { sessionId: "ses_1", startedAt: "2026-03-01T09:00:01.000Z" });
    assert.deepEqual(r.runs.get("run_1"), {
      ...original,
      sessionId: "ses_1",
      startedAt: "2026-03-01T09:00:01.000Z",
    });
  });
  await t.step("null clears a field and error round-trips as JSON", () => {
    r.runs.update("run_1", {
      status: "failed",
      endedAt: "2026-03-01T09:05:00.000Z",
      exitCode: 1,
      error: { code: "daemon_restarted", message: "gone" },
      leaseOwner: null,
      leaseExpiresAt: null,
    });
    assert.deepEqual(r.runs.get("run_1"), {
      ...original,
      sessionId: "ses_1",
      startedAt: "2026-03-01T09:00:01.000Z",
      status: "failed",
      endedAt: "2026-03-01T09:05:00.000Z",
      exitCode: 1,
      error: { code: "daemon_restarted", message: "gone" },
      leaseOwner: null,
      leaseExpiresAt: null,
    });
    r.runs.update("run_1", { error: null });
    assert.equal(r.runs.get("run_1")?.error, null);
  });
  await t.step("no fields changes nothing", () => {
    const before = r.runs.get("run_1");
    r.runs.update("run_1", {});
    assert.deepEqual(r.runs.get("run_1"), before);
  });
  await t.step("the other run is untouched", () => {
    assert.deepEqual(r.runs.get("run_2"), run("run_2", { scheduledFor: null, trigger: "manual" }));
  });
});

Deno.test("RunsStore.renewLeases() extends only the owner's running runs", async () => {
  await using r = await rig();
  const old = "2026-03-01T09:03:00.000Z";
  const renewed = "2026-03-01T09:06:00.000Z";
  r.runs.insert(run("run_mine", { leaseExpiresAt: old }));
  r.runs.insert(run("run_mine_2", { routineId: "other", leaseExpiresAt: old }));
  r.runs.insert(
    run("run_theirs", { routineId: "third", leaseOwner: "inst_b", leaseExpiresAt: old }),
  );
  r.runs.insert(run("run_mine_done", {
    scheduledFor: null,
    trigger: "manual",
    status: "succeeded",
    leaseExpiresAt: old,
  }));
  r.runs.renewLeases("inst_a", renewed);
  assert.equal(r.runs.get("run_mine")?.leaseExpiresAt, renewed);
  assert.equal(r.runs.get("run_mine_2")?.leaseExpiresAt, renewed);
  assert.equal(r.runs.get("run_theirs")?.leaseExpiresAt, old);
  assert.equal(r.runs.get("run_mine_done")?.leaseExpiresAt, old);
  assert.equal(r.runs.get("run_mine")?.leaseOwner, "inst_a");
});

Deno.test("runRecord() drops the lease and createdAt", () => {
  const row = run("run_1", { sessionId: "ses_1" });
  const record = runRecord(row);
  assert.deepEqual(record, {
    id: "run_1",
    routineId: "daily",
    trigger: "schedule",
    scheduledFor: NINE,
    status: "running",
    sessionId: "ses_1",
    startedAt: null,
    endedAt: null,
    exitCode: null,
    error: null,
    permissionDenials: null,
    usage: null,
    summary: null,
    worktree: null,
    delivery: null,
  });
});
