import assert from "node:assert/strict";
import { claimedRun, LEASE_MS, type NewRun, skippedRun } from "../../src/automations/run_rows.ts";

const NOW = Date.parse("2026-03-01T09:00:05.123Z");
const SCHEDULED = Date.parse("2026-03-01T09:00:00.000Z");
const RUN_ID = /^run_[0-9ABCDEFGHJKMNPQRSTVWXYZ]{26}$/;

const scheduled: NewRun = {
  routineId: "daily",
  trigger: "schedule",
  scheduledForMs: SCHEDULED,
  nowMs: NOW,
};
const manual: NewRun = { routineId: "daily", trigger: "manual", scheduledForMs: null, nowMs: NOW };

Deno.test("LEASE_MS is three minutes", () => {
  assert.equal(LEASE_MS, 180_000);
});

Deno.test("claimedRun() is running and leased to the owner until now + LEASE_MS", async (t) => {
  const cases: Array<[string, NewRun, string | null]> = [
    ["a scheduled run", scheduled, "2026-03-01T09:00:00.000Z"],
    ["a manual run", manual, null],
  ];
  for (const [name, input, scheduledFor] of cases) {
    await t.step(name, () => {
      const { id, ...row } = claimedRun(input, "inst_a");
      assert.match(id, RUN_ID);
      assert.deepEqual(row, {
        routineId: "daily",
        trigger: input.trigger,
        scheduledFor,
        status: "running",
        sessionId: null,
        startedAt: null,
        endedAt: null,
        exitCode: null,
        error: null,
        leaseOwner: "inst_a",
        leaseExpiresAt: new Date(NOW + LEASE_MS).toISOString(),
        createdAt: "2026-03-01T09:00:05.123Z",
      });
      assert.equal(row.leaseExpiresAt, "2026-03-01T09:03:05.123Z");
    });
  }
});

Deno.test("skippedRun() is skipped, ended now, with its reason and no lease", async (t) => {
  const cases: Array<[string, NewRun, string | null]> = [
    ["a scheduled run", scheduled, "2026-03-01T09:00:00.000Z"],
    ["a manual run", manual, null],
  ];
  const error = { code: "overlap", message: "A run of this routine is still active" };
  for (const [name, input, scheduledFor] of cases) {
    await t.step(name, () => {
      const { id, ...row } = skippedRun(input, error);
      assert.match(id, RUN_ID);
      assert.deepEqual(row, {
        routineId: "daily",
        trigger: input.trigger,
        scheduledFor,
        status: "skipped",
        sessionId: null,
        startedAt: null,
        endedAt: "2026-03-01T09:00:05.123Z",
        exitCode: null,
        error,
        leaseOwner: null,
        leaseExpiresAt: null,
        createdAt: "2026-03-01T09:00:05.123Z",
      });
    });
  }
});

Deno.test("claimedRun() and skippedRun() give each run a new id", () => {
  const ids = [
    claimedRun(scheduled, "inst_a").id,
    claimedRun(scheduled, "inst_a").id,
    skippedRun(scheduled, { code: "missed", message: "m" }).id,
  ];
  assert.equal(new Set(ids).size, 3);
  assert.deepEqual([...ids].sort(), ids);
});
