/**
 * kill -9 of the daemon during automation runs, then a restart on the same
 * home (C3, D7, D8, D12): every event a reader saw is still there at the same
 * seq, the run is closed `failed` with `daemon_restarted`, its session is
 * `orphaned`, no occurrence runs twice, and the store passes
 * `PRAGMA integrity_check`. (kill -9 during a plain flood: tests/integration/crash_test.ts.)
 */
import assert from "node:assert/strict";
import {
  alive,
  assertWholeLog,
  currentHourMs,
  delay,
  eventually,
  faultRig,
  follow,
  integrityCheck,
  type Json,
  killQuietly,
  openStore,
  outputText,
  readAll,
  routineDefinition,
  type ServedEvent,
} from "./fault_rig.ts";

/** The runs of a routine, newest first. */
async function runsOf(rig: Awaited<ReturnType<typeof faultRig>>, id: string): Promise<Json[]> {
  const response = await rig.action("svc.automations.runs", { id, limit: 100 });
  assert.equal(response.status, 200, JSON.stringify(response.body));
  return response.body.result.runs;
}

/** Sessions launched for a routine. */
async function sessionsOf(rig: Awaited<ReturnType<typeof faultRig>>, routineId: string) {
  const list = await rig.client.get<Json[]>("/sessions?limit=1000");
  return list.body.filter((session) => session.routine_id === routineId);
}

/** The pid a `session.started` event recorded. */
function startedPid(events: ServedEvent[]): number {
  const started = events.find((event) => event.kind === "session.started");
  assert.ok(started, "session.started was served");
  return JSON.parse(started.payload_json).pid;
}

/** What must hold for a run whose daemon was killed -9, after the restart. */
async function assertRecovered(
  rig: Awaited<ReturnType<typeof faultRig>>,
  run: Json,
  served: ServedEvent[],
): Promise<void> {
  const [after] = (await runsOf(rig, run.routineId)).filter((r) => r.id === run.id);
  assert.equal(after.status, "failed", JSON.stringify(after));
  assert.equal(after.error.code, "daemon_restarted");
  assert.equal(typeof after.endedAt, "string");
  assert.equal(after.sessionId, run.sessionId);

  const session = await rig.client.get<Json>(`/sessions/${run.sessionId}`);
  assert.equal(session.body.status, "orphaned");
  assert.equal(session.body.exit_code, null);
  const stored = await readAll(rig.client, run.sessionId);
  assert.deepEqual(stored.slice(0, served.length), served, "every served event is still there");
  assert.equal(assertWholeLog(stored).status, "orphaned");
  assert.equal(stored[0].kind, "run.linked");
  assert.equal(JSON.parse(stored[0].payload_json).runId, run.id);
}

Deno.test("kill -9 during a scheduled run: the run ends daemon_restarted and its occurrence never runs again", async () => {
  await using rig = await faultRig();
  const dueMs = currentHourMs();
  const hour = new Date(dueMs).getUTCHours();
  const definition = routineDefinition("due-now", rig.project, {
    rrule: `FREQ=DAILY;BYHOUR=${hour}`,
  });
  const created = await rig.action("svc.automations.create", { definition });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  await rig.stop();

  // The daemon was down when HH:00 came due: the routine was ACTIVE (and planned) until just
  // before it. The scheduler's first pass at start claims it (misfire latest).
  const db = openStore(rig.home);
  const before = new Date(dueMs - 60_000).toISOString();
  db.prepare("UPDATE routines SET active_since = ?, last_planned_at = ? WHERE id = ?")
    .run(before, before, "due-now");
  db.close();

  await rig.start();
  const run = await eventually("the scheduled run to start", async () => {
    const runs = await runsOf(rig, "due-now");
    return runs.find((r) => r.status === "running" && r.sessionId !== null);
  });
  assert.equal(run.trigger, "schedule");
  assert.equal(run.scheduledFor, new Date(dueMs).toISOString());
  const served = await follow(
    rig.client,
    run.sessionId,
    (events) => outputText(events).includes("line 399\n"),
  );
  const pid = startedPid(served);
  await rig.kill9();
  assert.ok(alive(pid), "the harness outlives the daemon's kill -9 (reparented)");

  await rig.start();
  try {
    await assertRecovered(rig, run, served);
    await eventually("the leftover harness to be killed", () => alive(pid) ? undefined : true);

    // The restart's own pass and an explicit tick: the occurrence is never claimed again.
    const tick = await rig.action("svc.automations.tick");
    assert.equal(tick.status, 200, JSON.stringify(tick.body));
    assert.deepEqual(tick.body.result.claimed, []);
    await delay(300);
    const runs = await runsOf(rig, "due-now");
    assert.deepEqual(
      runs.filter((r) => r.status !== "skipped").map((r) => r.id),
      [run.id],
      "one run for the occurrence",
    );
    assert.equal((await sessionsOf(rig, "due-now")).length, 1, "one session for the occurrence");
  } finally {
    killQuietly(pid);
  }
  await rig.stop();
  assert.equal(integrityCheck(rig.home), "ok");
});

Deno.test("kill -9 during a manual run (svc.automations.run): daemon_restarted, orphaned, not re-run", async () => {
  await using rig = await faultRig();
  const definition = routineDefinition("manual", rig.project, { status: "PAUSED" });
  assert.equal((await rig.action("svc.automations.create", { definition })).status, 200);
  const started = await rig.action("svc.automations.run", { id: "manual" });
  assert.equal(started.status, 200, JSON.stringify(started.body));
  assert.equal(started.body.result.status, "running");
  const run: Json = {
    id: started.body.result.runId,
    routineId: "manual",
    sessionId: started.body.result.sessionId,
  };
  const served = await follow(
    rig.client,
    run.sessionId,
    (events) => outputText(events).includes("line 399\n"),
  );
  const pid = startedPid(served);
  await rig.kill9();

  await rig.start();
  try {
    await assertRecovered(rig, run, served);
    const tick = await rig.action("svc.automations.tick");
    assert.deepEqual(tick.body.result.claimed, [], "a PAUSED routine is not scheduled");
    await delay(300);
    assert.deepEqual((await runsOf(rig, "manual")).map((r) => r.id), [run.id]);
    assert.equal((await sessionsOf(rig, "manual")).length, 1);
    // The routine still works after the crash: a new manual run starts and ends normally.
    const again = await rig.action("svc.automations.run", {
      id: "manual",
      cwd: rig.project,
    });
    assert.equal(again.body.result.status, "running", JSON.stringify(again.body));
    assert.equal(
      (await rig.client.post(`/sessions/${again.body.result.sessionId}/kill`, {})).status,
      200,
    );
    await eventually("the second run to end", async () => {
      const runs = await runsOf(rig, "manual");
      const second = runs.find((r) => r.id === again.body.result.runId);
      return second?.status === "running" ? undefined : second;
    });
  } finally {
    killQuietly(pid);
  }
  await rig.stop();
  assert.equal(integrityCheck(rig.home), "ok");
});

Deno.test("a run claimed by a dead daemon (written into svc.db) is closed and its occurrence not claimed again", async () => {
  await using rig = await faultRig();
  const dueMs = currentHourMs();
  const definition = routineDefinition("claimed", rig.project, {
    rrule: `FREQ=DAILY;BYHOUR=${new Date(dueMs).getUTCHours()}`,
  });
  assert.equal((await rig.action("svc.automations.create", { definition })).status, 200);
  await rig.stop();

  // What a daemon killed -9 right after its claim transaction leaves: the occurrence's run row
  // `running`, leased by a dead instance, and the window planned up to the claim.
  const db = openStore(rig.home);
  const scheduledFor = new Date(dueMs).toISOString();
  const claimedAt = new Date(Math.max(dueMs, Date.now() - 1000)).toISOString();
  db.prepare(
    `INSERT INTO runs (id, routine_id, trigger, scheduled_for, status, lease_owner,
                       lease_expires_at, created_at)
     VALUES ('run_dead_claim', 'claimed', 'schedule', ?, 'running', 'dead-daemon', ?, ?)`,
  ).run(scheduledFor, new Date(dueMs + 180_000).toISOString(), claimedAt);
  // Planned only up to just before HH:00, so every pass would find HH:00 due again.
  const before = new Date(dueMs - 60_000).toISOString();
  db.prepare("UPDATE routines SET active_since = ?, last_planned_at = ? WHERE id = ?")
    .run(before, before, "claimed");
  db.close();

  await rig.start();
  const tick = await rig.action("svc.automations.tick");
  assert.equal(tick.status, 200, JSON.stringify(tick.body));
  assert.deepEqual(tick.body.result.claimed, [], "the claimed occurrence is not claimed again");
  await delay(300);
  const runs = await runsOf(rig, "claimed");
  const dead = runs.find((r) => r.id === "run_dead_claim");
  assert.equal(dead?.status, "failed");
  assert.equal(dead?.error.code, "daemon_restarted");
  assert.deepEqual(
    runs.filter((r) => r.scheduledFor === scheduledFor).map((r) => r.id),
    ["run_dead_claim"],
    "one run row per occurrence",
  );
  assert.equal((await sessionsOf(rig, "claimed")).length, 0, "nothing was launched");
  await rig.stop();
  assert.equal(integrityCheck(rig.home), "ok");
});
