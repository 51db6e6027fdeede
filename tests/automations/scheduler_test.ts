/**
 * The scheduler on a fake clock and a fake spawner (no sleeping), driven
 * through the real socket and the action router (C3, C4.1, D10, D12).
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { FakeClock } from "../fakes/clock.ts";
import { FakeSpawner } from "../fakes/spawner.ts";
import { startTestDaemon, type TestDaemon } from "../helpers/daemon.ts";
import { removeTree, tempHome } from "../helpers/home.ts";

// deno-lint-ignore no-explicit-any
type Json = Record<string, any>;

const T = (iso: string) => Date.parse(iso);

interface Rig {
  t: TestDaemon;
  clock: FakeClock;
  spawner: FakeSpawner;
  project: string;
  action(action: string, fields?: Json): Promise<{ status: number; body: Json }>;
  definition(overrides?: Json): Json;
  [Symbol.asyncDispose](): Promise<void>;
}

async function rig(
  startIso: string,
  options: { home?: string; hostZone?: string } = {},
): Promise<Rig> {
  const clock = new FakeClock(T(startIso));
  const spawner = new FakeSpawner();
  const project = await Deno.realPath(await tempHome());
  const t = await startTestDaemon({
    home: options.home,
    clock,
    spawner,
    scheduler: false,
    hostZone: () => options.hostZone ?? "UTC",
    configJson: { harnesses: { fake: { command: ["/bin/sh", "{prompt}"], prompt: "arg" } } },
  });
  return {
    t,
    clock,
    spawner,
    project,
    action: async (action, fields = {}) => {
      const response = await t.client.post<Json>("/actions", { action, ...fields });
      return { status: response.status, body: response.body };
    },
    definition: (overrides = {}) => ({
      schemaVersion: 1,
      id: "daily",
      name: "Daily triage",
      status: "ACTIVE",
      rrule: "FREQ=DAILY;BYHOUR=9",
      timezone: "utc",
      misfire: "latest",
      overlap: "forbid",
      timeoutMinutes: 30,
      runtime: "fake",
      prompt: "triage",
      cwd: project,
      ...overrides,
    }),
    async [Symbol.asyncDispose]() {
      for (const process of spawner.processes) process.exit(0);
      await t[Symbol.asyncDispose]();
      await removeTree(project);
    },
  };
}

async function tickAt(r: Rig, iso: string): Promise<Json> {
  r.clock.set(T(iso));
  const tick = await r.action("svc.automations.tick");
  assert.equal(tick.status, 200, JSON.stringify(tick.body));
  return tick.body.result;
}

async function runs(r: Rig, id = "daily"): Promise<Json[]> {
  return (await r.action("svc.automations.runs", { id, limit: 100 })).body.result.runs;
}

Deno.test("a due occurrence starts one session through the launch path and ends succeeded (D12)", async () => {
  await using r = await rig("2026-01-05T08:00:00.000Z");
  const created = await r.action("svc.automations.create", { definition: r.definition() });
  assert.equal(created.status, 200);
  assert.equal((await tickAt(r, "2026-01-05T08:59:59.000Z")).claimed.length, 0);
  const tick = await tickAt(r, "2026-01-05T09:00:30.000Z");
  assert.equal(tick.claimed.length, 1);
  assert.equal(tick.claimed[0].scheduledFor, "2026-01-05T09:00:00.000Z");
  const process = await r.spawner.next(1);
  assert.deepEqual(process.request.argv, ["/bin/sh", "triage"]);
  assert.equal(process.request.cwd, r.project);

  // A second pass at the same instant claims nothing.
  assert.equal((await tickAt(r, "2026-01-05T09:00:30.000Z")).claimed.length, 0);

  process.write("done\n");
  process.exit(0);
  await r.t.daemon.runner.settled();
  const [run] = await runs(r);
  assert.equal(run.status, "succeeded");
  assert.equal(run.trigger, "schedule");
  assert.equal(run.exitCode, 0);
  assert.equal(run.error, null);
  const session = await r.t.client.get<Json>(`/sessions/${run.sessionId}`);
  assert.equal(session.body.origin, "automation");
  assert.equal(session.body.routine_id, "daily");
  assert.equal(session.body.run_id, run.id);
  assert.equal(session.body.title, "Daily triage");
  const events = await r.t.client.get<Json>(`/sessions/${run.sessionId}/events`);
  assert.equal(events.body.events[0].kind, "run.linked");
  assert.deepEqual(JSON.parse(events.body.events[0].payload_json), {
    routineId: "daily",
    runId: run.id,
  });

  const health = (await r.action("svc.automations.health", { id: "daily" })).body.result;
  assert.equal(health.nextDueAt, "2026-01-06T09:00:00.000Z");
  assert.equal(health.lastSuccessAt !== null, true);
  assert.equal(health.consecutiveFailures, 0);
  assert.equal(health.stale, null);
});

Deno.test("3 missed occurrences → exactly 1 run and 2 missed (misfire latest)", async () => {
  await using r = await rig("2026-01-05T08:00:00.000Z");
  await r.action("svc.automations.create", { definition: r.definition() });
  const tick = await tickAt(r, "2026-01-07T09:30:00.000Z");
  assert.equal(tick.claimed.length, 1);
  assert.equal(tick.claimed[0].scheduledFor, "2026-01-07T09:00:00.000Z");
  assert.equal(tick.planned[0].missed, 2);
  const all = await runs(r);
  const skipped = all.filter((run) => run.status === "skipped");
  assert.deepEqual(skipped.map((run) => run.scheduledFor).sort(), [
    "2026-01-05T09:00:00.000Z",
    "2026-01-06T09:00:00.000Z",
  ]);
  assert.ok(skipped.every((run) => run.error.code === "missed"));
  assert.equal(r.spawner.processes.length, 1);
  const health = (await r.action("svc.automations.health", { id: "daily" })).body.result;
  assert.equal(health.missedCount, 2);
});

Deno.test("overlap forbid: a due occurrence while a run is active is recorded skipped", async () => {
  await using r = await rig("2026-01-05T08:00:00.000Z");
  await r.action("svc.automations.create", { definition: r.definition({ timeoutMinutes: 44640 }) });
  await tickAt(r, "2026-01-05T09:00:10.000Z");
  const tick = await tickAt(r, "2026-01-06T09:00:10.000Z");
  assert.equal(tick.claimed.length, 0);
  const overlap = (await runs(r)).find((run) => run.scheduledFor === "2026-01-06T09:00:00.000Z");
  assert.equal(overlap?.status, "skipped");
  assert.equal(overlap?.error.code, "overlap");
  assert.equal(r.spawner.processes.length, 1);
  const health = (await r.action("svc.automations.health", { id: "daily" })).body.result;
  assert.equal(health.lease.owner, r.t.daemon.instanceId);
});

Deno.test("timeoutMinutes kills the session and the run ends timed_out", async () => {
  await using r = await rig("2026-01-05T08:00:00.000Z");
  await r.action("svc.automations.create", { definition: r.definition({ timeoutMinutes: 1 }) });
  await tickAt(r, "2026-01-05T09:00:00.000Z");
  const process = await r.spawner.next(1);
  await r.clock.advance(59_000);
  assert.equal(process.exited, false);
  await r.clock.advance(2_000);
  await r.t.daemon.runner.settled();
  assert.deepEqual(process.signals[0], "SIGTERM");
  const [run] = await runs(r);
  assert.equal(run.status, "timed_out");
  assert.equal(run.error.code, "timed_out");
  const health = (await r.action("svc.automations.health", { id: "daily" })).body.result;
  assert.equal(health.consecutiveFailures, 1);
});

Deno.test("a failing exit code ends failed and counts as a consecutive failure", async () => {
  await using r = await rig("2026-01-05T08:00:00.000Z");
  await r.action("svc.automations.create", { definition: r.definition() });
  for (const [n, day, code] of [[1, "05", 1], [2, "06", 2]] as const) {
    await tickAt(r, `2026-01-${day}T09:00:00.000Z`);
    (await r.spawner.next(n)).exit(code);
    await r.t.daemon.runner.settled();
  }
  const all = await runs(r);
  assert.deepEqual(all.map((run) => [run.status, run.exitCode]), [["failed", 2], ["failed", 1]]);
  assert.equal(
    (await r.action("svc.automations.health", { id: "daily" })).body.result.consecutiveFailures,
    2,
  );
});

Deno.test("PAUSED routines never run; PAUSED → ACTIVE plans from now only", async () => {
  await using r = await rig("2026-01-05T08:00:00.000Z");
  await r.action("svc.automations.create", { definition: r.definition({ status: "PAUSED" }) });
  assert.equal((await tickAt(r, "2026-01-08T10:00:00.000Z")).claimed.length, 0);
  const health = (await r.action("svc.automations.health", { id: "daily" })).body.result;
  assert.equal(health.nextDueAt, null);
  await r.action("svc.automations.update", { definition: r.definition() });
  assert.equal(
    (await tickAt(r, "2026-01-08T10:30:00.000Z")).claimed.length,
    0,
    "old occurrences never fire",
  );
  assert.equal((await tickAt(r, "2026-01-09T09:00:05.000Z")).claimed.length, 1);
  assert.equal((await runs(r)).filter((run) => run.status === "skipped").length, 0);
});

Deno.test("local time follows the host zone across DST (New York, RFC 5545 gap rule)", async () => {
  await using r = await rig("2025-03-09T05:00:00.000Z", { hostZone: "America/New_York" });
  await r.action("svc.automations.create", {
    definition: r.definition({ rrule: "RRULE:FREQ=DAILY;BYHOUR=2", timezone: "local" }),
  });
  // 02:00 does not exist on 2025-03-09 in New York: it runs at 03:00 EDT = 07:00Z.
  assert.equal((await tickAt(r, "2025-03-09T06:59:59.000Z")).claimed.length, 0);
  const tick = await tickAt(r, "2025-03-09T07:00:00.000Z");
  assert.equal(tick.claimed[0]?.scheduledFor, "2025-03-09T07:00:00.000Z");
});

Deno.test("recovery after a crash closes the orphaned run and never re-runs its occurrence", async () => {
  const home = await tempHome();
  {
    await using r = await rig("2026-01-05T08:00:00.000Z", { home });
    await r.action("svc.automations.create", {
      definition: r.definition({ outputTarget: { kind: "inbox" } }),
    });
  }
  // What a daemon killed -9 right after claiming leaves behind.
  const db = new DatabaseSync(`${home}/svc.db`);
  db.prepare(
    `INSERT INTO runs (id, routine_id, trigger, scheduled_for, status, lease_owner, lease_expires_at, created_at)
     VALUES ('run_crashed', 'daily', 'schedule', '2026-01-05T09:00:00.000Z', 'running', 'dead-daemon',
             '2026-01-05T09:03:00.000Z', '2026-01-05T09:00:01.000Z')`,
  ).run();
  db.prepare("UPDATE routines SET last_planned_at = '2026-01-05T08:30:00.000Z'").run();
  db.close();
  await using r = await rig("2026-01-05T09:00:30.000Z", { home });
  const recovered = (await runs(r)).find((run) => run.id === "run_crashed");
  assert.equal(recovered?.status, "failed");
  assert.equal(recovered?.error.code, "daemon_restarted");
  // Its result is still delivered (D21).
  await r.t.daemon.runner.settled();
  const [delivered] = await runs(r);
  assert.equal(delivered.delivery.status, "delivered");
  assert.match(await Deno.readTextFile(delivered.delivery.path), /daemon_restarted/);
  const tick = await tickAt(r, "2026-01-05T09:00:40.000Z");
  assert.equal(tick.claimed.length, 0, "the occurrence is never started twice");
  assert.equal(r.spawner.processes.length, 0);
  assert.equal((await tickAt(r, "2026-01-06T09:00:00.000Z")).claimed.length, 1);
  await removeTree(home);
});

Deno.test("run: manual runs, missing cwd, unknown routine, launch failure (C4.1, D10)", async () => {
  await using r = await rig("2026-01-05T08:00:00.000Z");
  await r.action("svc.automations.create", {
    definition: r.definition({ cwd: undefined, status: "PAUSED" }),
  });
  const noCwd = await r.action("svc.automations.run", { id: "daily" });
  assert.equal(noCwd.status, 200);
  assert.equal(noCwd.body.accepted, true);
  assert.equal(noCwd.body.result.status, "failed");
  assert.equal(noCwd.body.event.payload.error.code, "missing_cwd");
  assert.equal((await runs(r))[0].error.code, "missing_cwd");

  const unknown = await r.action("svc.automations.run", { id: "nope" });
  assert.equal(unknown.status, 200);
  assert.equal(unknown.body.result.status, "failed");
  assert.equal(unknown.body.result.runId, null);
  assert.equal(unknown.body.event.payload.error.code, "routine_not_found");

  r.spawner.failWith = new Deno.errors.PermissionDenied("Permission denied (os error 13)");
  const failing = await r.action("svc.automations.run", { id: "daily", cwd: r.project });
  assert.equal(failing.body.result.status, "failed");
  assert.equal(failing.body.event.payload.error.code, "launch_failed");
  assert.match(failing.body.result.sessionId, /^ses_/);

  const ok = await r.action("svc.automations.run", { id: "daily", cwd: r.project });
  assert.equal(ok.body.result.status, "running");
  assert.equal(
    (await r.action("svc.automations.run", { id: "daily", cwd: r.project })).body.result.status,
    "skipped",
  );
  (await r.spawner.next(1)).exit(0);
  await r.t.daemon.runner.settled();
  const latest = (await runs(r)).find((run) => run.id === ok.body.result.runId);
  assert.equal(latest?.status, "succeeded");
  assert.equal(latest?.trigger, "manual");
});

Deno.test("a wall-clock jump (resume from sleep) re-plans at once, missing the older occurrences", async () => {
  await using r = await rig("2026-01-05T08:00:00.000Z");
  await r.action("svc.automations.create", { definition: r.definition() });
  r.t.daemon.scheduler.start();
  for (let i = 0; i < 100 && r.clock.pending === 0; i++) await new Promise((s) => setTimeout(s, 2));
  // The laptop sleeps for three days: wall time leaps while the timer waits for its slice.
  r.clock.set(T("2026-01-08T09:10:00.000Z"));
  await r.clock.advance(5_000);
  let all: Json[] = [];
  for (let i = 0; i < 200 && all.length < 4; i++) {
    all = await runs(r);
    await new Promise((s) => setTimeout(s, 5));
  }
  const claimed = all.filter((run) => run.status !== "skipped");
  assert.deepEqual(claimed.map((run) => run.scheduledFor), ["2026-01-08T09:00:00.000Z"]);
  assert.equal(all.filter((run) => run.error?.code === "missed").length, 3);
  await r.t.daemon.scheduler.stop();
  assert.match(await Deno.readTextFile(`${r.t.home}/logs/daemon.log`), /Wall clock jumped/);
});

Deno.test("health keeps the last success after a long outage full of missed occurrences", async () => {
  await using r = await rig("2026-01-05T08:00:00.000Z");
  await r.action("svc.automations.create", { definition: r.definition() });
  await tickAt(r, "2026-01-05T09:00:00.000Z");
  (await r.spawner.next(1)).exit(0);
  await r.t.daemon.runner.settled();
  // 200 days later: 199 missed occurrences (100 recorded as rows, all counted).
  await tickAt(r, "2026-07-24T09:30:00.000Z");
  const health = (await r.action("svc.automations.health", { id: "daily" })).body.result;
  assert.equal(health.missedCount, 199);
  assert.notEqual(health.lastSuccessAt, null);
  assert.equal(health.consecutiveFailures, 0);
  assert.notEqual(health.lastRunAt, null);
});
