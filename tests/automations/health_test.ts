import assert from "node:assert/strict";
import type { RoutineDefinition } from "../../src/automations/definition.ts";
import { routineHealth } from "../../src/automations/health.ts";
import { CADENCE_MS } from "../../src/automations/scheduler.ts";
import type { RoutineRow } from "../../src/store/routines_store.ts";
import type { RunRow, RunStatus } from "../../src/store/runs_store.ts";

const T = (iso: string) => Date.parse(iso);
const NOW = "2026-03-01T10:00:30.000Z";

function routine(
  overrides: Partial<RoutineRow> = {},
  definition: Partial<RoutineDefinition> = {},
): RoutineRow {
  return {
    id: "daily",
    definition: {
      schemaVersion: 1,
      id: "daily",
      name: "Daily triage",
      status: "ACTIVE",
      rrule: "FREQ=DAILY;BYHOUR=9",
      timezone: "utc",
      misfire: "latest",
      overlap: "forbid",
      timeoutMinutes: 30,
      runtime: "claude",
      prompt: "triage",
      ...definition,
    },
    createdAt: "2026-02-01T00:00:00.000Z",
    updatedAt: "2026-02-01T00:00:00.000Z",
    activeSince: "2026-02-01T00:00:00.000Z",
    lastPlannedAt: "2026-03-01T10:00:00.000Z",
    missedCount: 0,
    ...overrides,
  };
}

let runCount = 0;
function run(status: RunStatus, overrides: Partial<RunRow> = {}): RunRow {
  runCount++;
  return {
    id: `run_${runCount}`,
    routineId: "daily",
    trigger: "schedule",
    scheduledFor: "2026-03-01T09:00:00.000Z",
    status,
    sessionId: null,
    startedAt: null,
    endedAt: status === "running" ? null : "2026-03-01T09:05:00.000Z",
    exitCode: null,
    error: null,
    leaseOwner: null,
    leaseExpiresAt: null,
    createdAt: "2026-03-01T09:00:00.000Z",
    ...overrides,
  };
}

function health(
  row: RoutineRow,
  recentRuns: RunRow[] = [],
  { lastSuccess = null, now = NOW, hostZone = "UTC" }: {
    lastSuccess?: RunRow | null;
    now?: string;
    hostZone?: string;
  } = {},
) {
  return routineHealth(row, { recentRuns, lastSuccess }, { nowMs: T(now), hostZone });
}

Deno.test("routineHealth() of a fresh ACTIVE routine", () => {
  assert.deepEqual(health(routine({ missedCount: 3 })), {
    id: "daily",
    status: "ACTIVE",
    nextDueAt: "2026-03-02T09:00:00.000Z",
    lastPlannedAt: "2026-03-01T10:00:00.000Z",
    lastRunAt: null,
    lastSuccessAt: null,
    consecutiveFailures: 0,
    missedCount: 3,
    lease: null,
    stale: null,
  });
});

Deno.test("routineHealth() computes nextDueAt from the planning anchor", async (t) => {
  const cases: Array<[string, RoutineRow, string, string | null]> = [
    ["after lastPlannedAt", routine(), "UTC", "2026-03-02T09:00:00.000Z"],
    [
      "from activeSince when never planned",
      routine({ lastPlannedAt: null, activeSince: "2026-03-01T08:00:00.000Z" }),
      "UTC",
      "2026-03-01T09:00:00.000Z",
    ],
    [
      "in the host zone for timezone local",
      routine({}, { timezone: "local" }),
      "America/New_York",
      "2026-03-01T14:00:00.000Z",
    ],
    [
      "ignoring the host zone for timezone utc",
      routine(),
      "America/New_York",
      "2026-03-02T09:00:00.000Z",
    ],
    ["null when PAUSED", routine({}, { status: "PAUSED" }), "UTC", null],
    [
      "null when PAUSED and never active",
      routine({ activeSince: null, lastPlannedAt: null }, { status: "PAUSED" }),
      "UTC",
      null,
    ],
    ["null without an anchor", routine({ activeSince: null, lastPlannedAt: null }), "UTC", null],
  ];
  for (const [name, row, hostZone, expected] of cases) {
    await t.step(name, () => {
      const result = health(row, [], { hostZone, now: "2026-03-01T10:00:30.000Z" });
      assert.equal(result.nextDueAt, expected);
    });
  }
});

Deno.test("routineHealth() counts consecutive failures back to the last success", async (t) => {
  const cases: Array<[string, RunStatus[], number]> = [
    ["no runs", [], 0],
    ["last run succeeded", ["succeeded", "failed", "failed"], 0],
    ["failed and timed_out count", ["failed", "timed_out", "succeeded", "failed"], 2],
    ["running runs are skipped", ["running", "failed", "running", "failed", "succeeded"], 2],
    ["only running", ["running"], 0],
    ["all failed", ["failed", "failed", "timed_out"], 3],
  ];
  for (const [name, statuses, expected] of cases) {
    await t.step(name, () => {
      const runs = statuses.map((status) => run(status));
      assert.equal(health(routine(), runs).consecutiveFailures, expected);
    });
  }
});

Deno.test("routineHealth() reports the lease of the running run", async (t) => {
  const expiresAt = "2026-03-01T10:03:00.000Z";
  await t.step("a leased running run", () => {
    const runs = [
      run("running", { leaseOwner: "inst_a", leaseExpiresAt: expiresAt }),
      run("failed"),
    ];
    assert.deepEqual(health(routine(), runs).lease, { owner: "inst_a", expiresAt });
  });
  await t.step("a later run is found after finished ones", () => {
    const runs = [
      run("failed"),
      run("running", { leaseOwner: "inst_b", leaseExpiresAt: expiresAt }),
    ];
    assert.deepEqual(health(routine(), runs).lease, { owner: "inst_b", expiresAt });
  });
  await t.step("no lease without a running run", () => {
    assert.equal(health(routine(), [run("succeeded"), run("failed")]).lease, null);
  });
  await t.step("no lease for a running run without owner or expiry", () => {
    const runs = [
      run("running"),
      run("running", { leaseOwner: "inst_a" }),
      run("running", { leaseExpiresAt: expiresAt }),
    ];
    assert.equal(health(routine(), runs).lease, null);
  });
  await t.step("a finished run's leftover lease is ignored", () => {
    const runs = [run("failed", { leaseOwner: "inst_a", leaseExpiresAt: expiresAt })];
    assert.equal(health(routine(), runs).lease, null);
  });
});

Deno.test("routineHealth() says why a routine is stale", async (t) => {
  const leased = (expiresAt: string) => [
    run("running", { leaseOwner: "inst_a", leaseExpiresAt: expiresAt }),
  ];
  const twoCadencesAfter = (iso: string) => new Date(T(iso) + 2 * CADENCE_MS).toISOString();
  const planned = "2026-03-01T10:00:00.000Z";
  const cases: Array<[string, RoutineRow, RunRow[], string, string | null]> = [
    ["planned recently", routine(), [], NOW, null],
    ["planned exactly two cadences ago", routine(), [], twoCadencesAfter(planned), null],
    [
      "planned more than two cadences ago",
      routine(),
      [],
      new Date(T(planned) + 2 * CADENCE_MS + 1).toISOString(),
      "scheduler_not_ticking",
    ],
    [
      "never planned, active long ago",
      routine({ lastPlannedAt: null }),
      [],
      NOW,
      "scheduler_not_ticking",
    ],
    [
      "PAUSED and not planned for long",
      routine({}, { status: "PAUSED" }),
      [],
      "2026-04-01T00:00:00.000Z",
      null,
    ],
    [
      "ACTIVE without an anchor",
      routine({ activeSince: null, lastPlannedAt: null }),
      [],
      NOW,
      null,
    ],
    ["lease expired", routine(), leased("2026-03-01T10:00:29.999Z"), NOW, "lease_expired"],
    ["lease expiring right now", routine(), leased(NOW), NOW, null],
    ["lease in the future", routine(), leased("2026-03-01T10:03:00.000Z"), NOW, null],
    [
      "lease expired wins over not ticking",
      routine({ lastPlannedAt: "2026-02-01T00:00:00.000Z" }),
      leased("2026-02-01T00:03:00.000Z"),
      NOW,
      "lease_expired",
    ],
    [
      "lease expired on a PAUSED routine",
      routine({}, { status: "PAUSED" }),
      leased("2026-03-01T10:00:00.000Z"),
      NOW,
      "lease_expired",
    ],
  ];
  for (const [name, row, runs, now, expected] of cases) {
    await t.step(name, () => assert.equal(health(row, runs, { now }).stale, expected));
  }
});

Deno.test("routineHealth() takes lastRunAt from the newest started run", async (t) => {
  await t.step("newest started run", () => {
    const runs = [
      run("running", { startedAt: "2026-03-01T09:00:01.000Z" }),
      run("failed", { startedAt: "2026-02-28T09:00:01.000Z" }),
    ];
    assert.equal(health(routine(), runs).lastRunAt, "2026-03-01T09:00:01.000Z");
  });
  await t.step("runs that never started are passed over", () => {
    const runs = [run("failed"), run("succeeded", { startedAt: "2026-02-27T09:00:01.000Z" })];
    assert.equal(health(routine(), runs).lastRunAt, "2026-02-27T09:00:01.000Z");
  });
  await t.step("null when none started", () => {
    assert.equal(health(routine(), [run("failed")]).lastRunAt, null);
  });
});

Deno.test("routineHealth() takes lastSuccessAt from history.lastSuccess", async (t) => {
  await t.step("its endedAt", () => {
    const lastSuccess = run("succeeded", { endedAt: "2026-02-20T09:04:00.000Z" });
    // Older than the recent runs: it comes from history.lastSuccess, not recentRuns.
    const runs = [run("failed"), run("failed")];
    const result = health(routine(), runs, { lastSuccess });
    assert.equal(result.lastSuccessAt, "2026-02-20T09:04:00.000Z");
    assert.equal(result.consecutiveFailures, 2);
  });
  await t.step("null without one, even with a succeeded recent run", () => {
    const result = health(routine(), [run("succeeded")], { lastSuccess: null });
    assert.equal(result.lastSuccessAt, null);
  });
});
