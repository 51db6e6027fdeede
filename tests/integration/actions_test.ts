/** POST /actions end to end: shapes, statuses, TCP authority, real runs (C4.1, C5, D10, D13). */
import assert from "node:assert/strict";
import { FakeClock } from "../fakes/clock.ts";
import {
  fixtureHarnesses,
  freePort,
  startTestDaemon,
  type TestDaemon,
  waitForEnd,
} from "../helpers/daemon.ts";
import { removeTree, tempHome } from "../helpers/home.ts";
import { httpRequest, rawHttp } from "../helpers/http.ts";

// deno-lint-ignore no-explicit-any
type Json = Record<string, any>;

function definition(project: string, overrides: Json = {}): Json {
  return {
    schemaVersion: 1,
    id: "nightly",
    name: "Nightly",
    status: "PAUSED",
    rrule: "FREQ=WEEKLY;BYDAY=MO,WE;BYHOUR=3",
    timezone: "utc",
    misfire: "latest",
    overlap: "forbid",
    timeoutMinutes: 10,
    runtime: "fixture",
    prompt: "out ran; exit 0",
    cwd: project,
    ...overrides,
  };
}

async function act(t: TestDaemon, action: string, fields: Json = {}) {
  const response = await t.client.post<Json>("/actions", { action, ...fields });
  return { status: response.status, body: response.body };
}

Deno.test("every automation action's success shape (C4.1, D10)", async () => {
  const project = await Deno.realPath(await tempHome());
  await using t = await startTestDaemon({
    configJson: { harnesses: fixtureHarnesses() },
    scheduler: false,
  });
  const created = await act(t, "svc.automations.create", {
    definition: definition(project),
    origin: "cli",
    intentId: "intent-1",
  });
  assert.equal(created.status, 200);
  assert.equal(created.body.ok, true);
  assert.equal(created.body.accepted, true);
  assert.equal(created.body.action, "svc.automations.create");
  assert.equal(created.body.status, "completed");
  assert.deepEqual(Object.keys(created.body.event).sort(), [
    "action",
    "intentId",
    "kind",
    "origin",
    "payload",
  ]);
  assert.equal(created.body.event.kind, "automations.changed");
  assert.equal(created.body.event.origin, "cli");
  assert.equal(created.body.event.intentId, "intent-1");
  assert.equal(created.body.result.routine.id, "nightly");
  assert.equal(typeof created.body.result.createdAt, "string");
  assert.deepEqual(created.body.event.payload, created.body.result);

  const list = await act(t, "svc.automations.list");
  assert.deepEqual(list.body.result.routines.map((r: Json) => r.id), ["nightly"]);
  assert.equal(
    (await act(t, "svc.automations.get", { id: "nightly" })).body.result.routine.name,
    "Nightly",
  );
  assert.deepEqual((await act(t, "svc.automations.get", { id: "ghost" })).body.result, {
    routine: null,
  });

  const updated = await act(t, "svc.automations.update", {
    definition: definition(project, { name: "Renamed" }),
  });
  assert.equal(updated.body.result.routine.name, "Renamed");
  assert.equal(typeof updated.body.result.updatedAt, "string");

  const tick = await act(t, "svc.automations.tick");
  assert.deepEqual(Object.keys(tick.body.result).sort(), [
    "claimed",
    "failures",
    "planned",
    "recovered",
  ]);

  const run = await act(t, "svc.automations.run", { id: "nightly" });
  assert.equal(run.status, 200);
  assert.deepEqual(Object.keys(run.body.result).sort(), ["error", "runId", "sessionId", "status"]);
  assert.equal(run.body.result.status, "running");
  const ended = await waitForEnd(t.client, run.body.result.sessionId);
  assert.equal(ended.status, "completed");
  await t.daemon.runner.settled();
  const runs = await act(t, "svc.automations.runs", { id: "nightly" });
  assert.equal(runs.body.result.runs[0].status, "succeeded");
  assert.equal(runs.body.result.runs[0].sessionId, run.body.result.sessionId);
  assert.deepEqual(Object.keys(runs.body.result.runs[0]).sort(), [
    "delivery",
    "endedAt",
    "error",
    "exitCode",
    "id",
    "permissionDenials",
    "routineId",
    "scheduledFor",
    "sessionId",
    "startedAt",
    "status",
    "summary",
    "trigger",
    "usage",
    "worktree",
  ]);

  const health = await act(t, "svc.automations.health", { id: "nightly" });
  assert.deepEqual(Object.keys(health.body.result).sort(), [
    "consecutiveFailures",
    "id",
    "lastPlannedAt",
    "lastRunAt",
    "lastSuccessAt",
    "lease",
    "missedCount",
    "nextDueAt",
    "stale",
    "status",
    "warnings",
  ]);
  assert.equal(health.body.result.nextDueAt, null);

  // D25: every routine's state in one answer, the same health plus name, runtime and last run.
  const overview = await act(t, "svc.automations.overview");
  assert.equal(overview.status, 200);
  assert.equal(overview.body.result.truncated, false);
  const [nightly] = overview.body.result.routines;
  assert.deepEqual(
    { ...nightly, name: undefined, runtime: undefined, lastRun: undefined, warnings: undefined },
    {
      ...health.body.result,
      name: undefined,
      runtime: undefined,
      lastRun: undefined,
      warnings: undefined,
    },
  );
  assert.equal(nightly.lastRun.id, runs.body.result.runs[0].id);
  assert.equal(nightly.lastRun.status, "succeeded");
  assert.equal(typeof nightly.name, "string");

  const refresh = await act(t, "svc.capabilities.refresh");
  assert.equal(refresh.body.event.kind, "capabilities.changed");
  assert.ok(Array.isArray(refresh.body.event.payload.capabilities));

  const deleted = await act(t, "svc.automations.delete", { id: "nightly" });
  assert.deepEqual(deleted.body.result, { id: "nightly", deleted: true });
  await removeTree(project);
});

Deno.test("action failures: shapes and statuses (C4.1, D10)", async () => {
  const project = await Deno.realPath(await tempHome());
  await using t = await startTestDaemon({
    configJson: { harnesses: fixtureHarnesses() },
    scheduler: false,
  });
  const raw = async (body: string, contentType = "application/json") =>
    await rawHttp(
      { transport: "unix", path: t.socket },
      httpRequest("POST", "/api/v1/actions", { headers: { "content-type": contentType }, body }),
    );
  const expectRejected = (
    response: { status: number; body: unknown },
    status: number,
    code: string,
  ) => {
    const body = response.body as Json;
    assert.equal(response.status, status, JSON.stringify(body));
    assert.equal(body.ok, false);
    assert.equal(body.accepted, false);
    assert.equal(body.status, "rejected");
    assert.equal(typeof body.reason, "string");
    assert.equal(body.error.code, code);
    return body;
  };
  expectRejected(await raw("{not json"), 400, "invalid_request");
  expectRejected(await raw("{}"), 400, "invalid_request");
  expectRejected(await raw("[1]"), 400, "invalid_request");
  expectRejected(await raw('{"action":"svc.nope"}'), 400, "invalid_request");
  expectRejected(await raw('{"action":"svc.automations.list","origin":5}'), 400, "invalid_request");
  expectRejected(await raw('{"action":"svc.automations.list","bogus":1}'), 400, "invalid_request");
  expectRejected(
    await raw('{"action":"svc.automations.list","contextAdmission":{}}'),
    400,
    "invalid_request",
  );
  expectRejected(
    await raw('{"action":"svc.automations.list"}', "text/plain"),
    415,
    "unsupported_media_type",
  );
  expectRejected(await raw("x".repeat(2 * 1024 * 1024)), 413, "payload_too_large");

  const bad = expectRejected(
    await act(t, "svc.automations.create", {
      definition: definition(project, { rrule: "FREQ=HOURLY;BYHOUR=1" }),
    }),
    400,
    "invalid_request",
  );
  assert.equal(bad.error.details.field, "definition.rrule");
  assert.match(bad.error.message, /FREQ=HOURLY/);
  const bounds = expectRejected(
    await act(t, "svc.automations.create", {
      definition: definition(project, { timeoutMinutes: 44641 }),
    }),
    400,
    "invalid_request",
  );
  assert.equal(bounds.error.details.field, "definition.timeoutMinutes");
  const missing = expectRejected(
    await act(t, "svc.automations.create", {}),
    400,
    "invalid_request",
  );
  assert.equal(missing.error.message, 'Field "definition" is required');

  assert.equal(
    (await act(t, "svc.automations.create", { definition: definition(project) })).status,
    200,
  );
  expectRejected(
    await act(t, "svc.automations.create", { definition: definition(project) }),
    409,
    "routine_exists",
  );
  expectRejected(
    await act(t, "svc.automations.update", { definition: definition(project, { id: "ghost" }) }),
    404,
    "routine_not_found",
  );
  expectRejected(await act(t, "svc.automations.delete", { id: "ghost" }), 404, "routine_not_found");
  expectRejected(await act(t, "svc.automations.runs", { id: "ghost" }), 404, "routine_not_found");
  expectRejected(await act(t, "svc.automations.health", { id: "ghost" }), 404, "routine_not_found");
  expectRejected(
    await act(t, "svc.automations.runs", { id: "nightly", limit: 1.5 }),
    400,
    "invalid_request",
  );
  expectRejected(await act(t, "svc.automations.get", {}), 400, "invalid_request");
  expectRejected(
    await act(t, "svc.automations.run", { id: "nightly", cwd: "relative" }),
    400,
    "invalid_request",
  );
  // run problems are results, not errors (D10).
  const ghost = await act(t, "svc.automations.run", { id: "ghost" });
  assert.equal(ghost.status, 200);
  assert.equal(ghost.body.accepted, true);
  assert.equal(ghost.body.result.status, "failed");
  // A stored routine round-trips: get → update with its createdAt/updatedAt.
  const stored = (await act(t, "svc.automations.get", { id: "nightly" })).body.result.routine;
  assert.equal(
    (await act(t, "svc.automations.update", { definition: { ...stored, name: "Again" } })).status,
    200,
  );
  // Routine prompts have the launch bound too (D7).
  expectRejected(
    await act(t, "svc.automations.create", {
      definition: definition(project, { id: "huge", prompt: "x".repeat(256 * 1024 + 1) }),
    }),
    400,
    "invalid_request",
  );
  await removeTree(project);
});

Deno.test("over TCP, automation actions outside the allowlist get 403 AUTHORITY_REQUIRED first (C4.1 rule 3)", async () => {
  const port = freePort();
  await using t = await startTestDaemon({ tcp: { hostname: "127.0.0.1", port }, scheduler: false });
  const tcp = (body: string, contentType = "application/json") =>
    rawHttp(
      { hostname: "127.0.0.1", port },
      httpRequest("POST", "/api/v1/actions", {
        host: `127.0.0.1:${port}`,
        headers: { "content-type": contentType },
        body,
      }),
    );
  for (
    const action of [
      "svc.automations.create",
      "svc.automations.tick",
      "svc.automations.list",
      "svc.automations.x",
    ]
  ) {
    // Invalid bodies too: authority is checked before validation.
    const response = await tcp(JSON.stringify({ action, definition: 5 }));
    assert.equal(response.status, 403, action);
    assert.equal((response.body as Json).error.code, "AUTHORITY_REQUIRED", action);
    assert.equal((response.body as Json).accepted, false, action);
  }
  const health = await tcp(JSON.stringify({ action: "svc.automations.health", id: "ghost" }));
  assert.equal(health.status, 404, "health is allowed over TCP; the routine is unknown");
  const runs = await tcp(JSON.stringify({ action: "svc.automations.runs", id: "ghost" }));
  assert.equal(runs.status, 404);
  const unknown = await tcp(JSON.stringify({ action: "svc.other" }));
  assert.equal(unknown.status, 400);
  const plain = await tcp("{}", "text/plain");
  assert.equal(plain.status, 415);
  const big = await tcp("x".repeat(2 * 1024 * 1024));
  assert.equal(big.status, 413);
  assert.equal((await t.client.post("/actions", { action: "svc.automations.list" })).status, 200);
});

Deno.test("import: Codex cron imports PAUSED, heartbeat skipped, second import skips (D13)", async () => {
  const codexHome = await tempHome();
  await Deno.mkdir(`${codexHome}/automations`, { recursive: true });
  for (const name of ["daily-triage", "keep-going"]) {
    await Deno.mkdir(`${codexHome}/automations/${name}`);
    await Deno.copyFile(
      new URL(`../fixtures/codex-automations/${name}/automation.toml`, import.meta.url),
      `${codexHome}/automations/${name}/automation.toml`,
    );
  }
  await using t = await startTestDaemon({ codexHome, scheduler: false });
  await Deno.mkdir(`${t.home}/import`);
  await Deno.writeTextFile(
    `${t.home}/import/bad.json`,
    JSON.stringify({ id: "bad", rrule: "FREQ=DAILY" }),
  );
  const first = await act(t, "svc.automations.import");
  assert.equal(first.status, 200);
  assert.deepEqual(first.body.result.imported, ["daily-triage"]);
  assert.deepEqual(first.body.result.skipped, [{ id: "keep-going", reason: "heartbeat" }]);
  assert.equal(first.body.result.failed.length, 1);
  assert.equal(first.body.result.failed[0].file, `${t.home}/import/bad.json`);
  const routine = (await act(t, "svc.automations.get", { id: "daily-triage" })).body.result.routine;
  assert.equal(routine.status, "PAUSED");
  assert.equal(routine.runtime, "codex");
  assert.equal(routine.cwd, "/home/me/code/app");
  assert.equal(routine.rrule, "RRULE:FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=9;BYMINUTE=0");
  const second = await act(t, "svc.automations.import");
  assert.deepEqual(second.body.result.imported, []);
  assert.deepEqual(second.body.result.skipped[0], { id: "daily-triage", reason: "exists" });
  await removeTree(codexHome);
});

Deno.test("the scheduler loop on a fake clock starts a real session when an occurrence comes due (C3)", async () => {
  const project = await Deno.realPath(await tempHome());
  const clock = new FakeClock(Date.parse("2026-01-05T02:59:00.000Z")); // a Monday
  await using t = await startTestDaemon({
    configJson: { harnesses: fixtureHarnesses() },
    clock,
    hostZone: () => "UTC",
  });
  await act(t, "svc.automations.create", { definition: definition(project, { status: "ACTIVE" }) });
  // The loop sleeps until the due instant (at most the cadence); advancing the clock wakes it.
  for (let i = 0; i < 50 && clock.pending === 0; i++) await new Promise((r) => setTimeout(r, 5));
  await clock.advance(60_000);
  let runs: Json[] = [];
  for (let i = 0; i < 400; i++) {
    runs = (await act(t, "svc.automations.runs", { id: "nightly" })).body.result.runs;
    if (runs[0]?.sessionId) break;
    await new Promise((r) => setTimeout(r, 10));
  }
  assert.equal(runs.length, 1);
  assert.equal(runs[0].scheduledFor, "2026-01-05T03:00:00.000Z");
  const session = await waitForEnd(t.client, runs[0].sessionId);
  assert.equal(session.status, "completed");
  await t.daemon.runner.settled();
  const [run] = (await act(t, "svc.automations.runs", { id: "nightly" })).body.result.runs;
  assert.equal(run.status, "succeeded");
  await removeTree(project);
});
