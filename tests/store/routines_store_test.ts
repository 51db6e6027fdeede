import assert from "node:assert/strict";
import type { DatabaseSync } from "node:sqlite";
import type { RoutineDefinition } from "../../src/automations/definition.ts";
import { openDatabase } from "../../src/store/db.ts";
import { type RoutineRow, RoutinesStore, storedRoutine } from "../../src/store/routines_store.ts";
import { type RunRow, RunsStore } from "../../src/store/runs_store.ts";
import { removeTree, tempHome } from "../helpers/home.ts";

interface Rig {
  db: DatabaseSync;
  routines: RoutinesStore;
  runs: RunsStore;
  [Symbol.asyncDispose](): Promise<void>;
}

async function rig(): Promise<Rig> {
  const dir = await tempHome();
  const db = openDatabase(`${dir}/svc.db`);
  return {
    db,
    routines: new RoutinesStore(db),
    runs: new RunsStore(db),
    async [Symbol.asyncDispose]() {
      db.close();
      await removeTree(dir);
    },
  };
}

function definition(id: string, overrides: Partial<RoutineDefinition> = {}): RoutineDefinition {
  return {
    schemaVersion: 1,
    id,
    name: `Routine ${id}`,
    status: "ACTIVE",
    rrule: "FREQ=DAILY;BYHOUR=9",
    timezone: "utc",
    misfire: "latest",
    overlap: "forbid",
    timeoutMinutes: 30,
    runtime: "claude",
    prompt: "triage",
    cwd: "/abs/repo",
    tags: ["a", "b"],
    outputTarget: { kind: "file", path: "/abs/results" },
    ...overrides,
  };
}

function row(id: string, overrides: Partial<RoutineRow> = {}): RoutineRow {
  return {
    id,
    definition: definition(id),
    createdAt: "2026-03-01T09:00:00.000Z",
    updatedAt: "2026-03-01T09:00:00.000Z",
    activeSince: "2026-03-01T09:00:00.000Z",
    lastPlannedAt: null,
    missedCount: 0,
    ...overrides,
  };
}

function run(id: string, routineId: string, scheduledFor: string | null): RunRow {
  return {
    id,
    routineId,
    trigger: scheduledFor === null ? "manual" : "schedule",
    scheduledFor,
    status: "succeeded",
    sessionId: null,
    startedAt: null,
    endedAt: null,
    exitCode: 0,
    error: null,
    leaseOwner: null,
    leaseExpiresAt: null,
    createdAt: "2026-03-01T09:00:00.000Z",
  };
}

Deno.test("RoutinesStore.insert() stores a routine that get() returns whole", async () => {
  await using r = await rig();
  const routine = row("daily", { lastPlannedAt: "2026-03-01T10:00:00.000Z", missedCount: 2 });
  assert.equal(r.routines.insert(routine), true);
  assert.deepEqual(r.routines.get("daily"), routine);
});

Deno.test("RoutinesStore.get() returns null for an unknown id", async () => {
  await using r = await rig();
  assert.equal(r.routines.get("nope"), null);
});

Deno.test("RoutinesStore.insert() returns false for an existing id and keeps the first", async () => {
  await using r = await rig();
  assert.equal(r.routines.insert(row("daily")), true);
  const second = row("daily", { definition: definition("daily", { name: "Other" }) });
  assert.equal(r.routines.insert(second), false);
  assert.equal(r.routines.get("daily")?.definition.name, "Routine daily");
  assert.equal(r.routines.list().length, 1);
});

Deno.test("RoutinesStore.list() returns every routine ordered by id", async () => {
  await using r = await rig();
  assert.deepEqual(r.routines.list(), []);
  for (const id of ["weekly", "a-first", "daily"]) r.routines.insert(row(id));
  assert.deepEqual(r.routines.list().map((routine) => routine.id), ["a-first", "daily", "weekly"]);
});

Deno.test("RoutinesStore.replace() updates definition and planning state, not createdAt", async () => {
  await using r = await rig();
  r.routines.insert(row("daily"));
  r.routines.insert(row("other"));
  const replaced = row("daily", {
    definition: definition("daily", { status: "PAUSED", name: "Renamed", tags: undefined }),
    createdAt: "2030-01-01T00:00:00.000Z",
    updatedAt: "2026-03-02T09:00:00.000Z",
    activeSince: null,
    lastPlannedAt: "2026-03-02T08:00:00.000Z",
    missedCount: 5,
  });
  r.routines.replace(replaced);
  assert.deepEqual(r.routines.get("daily"), {
    ...replaced,
    definition: JSON.parse(JSON.stringify(replaced.definition)),
    createdAt: "2026-03-01T09:00:00.000Z",
  });
  assert.deepEqual(r.routines.get("other"), row("other"));
});

Deno.test("RoutinesStore.replace() of an unknown id inserts nothing", async () => {
  await using r = await rig();
  r.routines.replace(row("ghost"));
  assert.equal(r.routines.get("ghost"), null);
});

Deno.test("RoutinesStore.markPlanned() sets the window end and adds missed occurrences", async () => {
  await using r = await rig();
  r.routines.insert(row("daily", { missedCount: 1 }));
  r.routines.markPlanned("daily", "2026-03-01T10:00:00.000Z", 0);
  assert.equal(r.routines.get("daily")?.lastPlannedAt, "2026-03-01T10:00:00.000Z");
  assert.equal(r.routines.get("daily")?.missedCount, 1);
  r.routines.markPlanned("daily", "2026-03-03T10:00:00.000Z", 2);
  const planned = r.routines.get("daily")!;
  assert.equal(planned.lastPlannedAt, "2026-03-03T10:00:00.000Z");
  assert.equal(planned.missedCount, 3);
  assert.equal(planned.updatedAt, "2026-03-01T09:00:00.000Z");
});

Deno.test("RoutinesStore.delete() removes the routine and only its runs", async () => {
  await using r = await rig();
  r.routines.insert(row("daily"));
  r.routines.insert(row("other"));
  r.runs.insert(run("run_1", "daily", "2026-03-01T09:00:00.000Z"));
  r.runs.insert(run("run_2", "daily", null));
  r.runs.insert(run("run_3", "other", "2026-03-01T09:00:00.000Z"));
  assert.equal(r.routines.delete("daily"), true);
  assert.equal(r.routines.get("daily"), null);
  assert.equal(r.runs.get("run_1"), null);
  assert.equal(r.runs.get("run_2"), null);
  assert.deepEqual(r.runs.listForRoutine("daily", 10), []);
  assert.ok(r.routines.get("other"));
  assert.equal(r.runs.get("run_3")?.routineId, "other");
});

Deno.test("RoutinesStore.delete() returns false for an unknown id", async () => {
  await using r = await rig();
  assert.equal(r.routines.delete("nope"), false);
});

Deno.test("RoutinesStore.delete() frees the id and its occurrences for a new routine", async () => {
  await using r = await rig();
  r.routines.insert(row("daily"));
  r.runs.insert(run("run_1", "daily", "2026-03-01T09:00:00.000Z"));
  r.routines.delete("daily");
  assert.equal(r.routines.insert(row("daily")), true);
  assert.equal(r.runs.insert(run("run_2", "daily", "2026-03-01T09:00:00.000Z")), true);
});

Deno.test("storedRoutine() is the definition plus createdAt and updatedAt", () => {
  const routine = row("daily", { updatedAt: "2026-03-02T00:00:00.000Z", missedCount: 4 });
  assert.deepEqual(storedRoutine(routine), {
    ...definition("daily"),
    createdAt: "2026-03-01T09:00:00.000Z",
    updatedAt: "2026-03-02T00:00:00.000Z",
  });
});
