import assert from "node:assert/strict";
import { DEFAULT_MAX_MISSED, planOccurrences } from "../../src/automations/plan.ts";
import { parseRrule } from "../../src/automations/rrule.ts";

const ms = (iso: string) => Date.parse(iso);
const iso = (epochMs: number) => new Date(epochMs).toISOString();
const DAILY_9 = parseRrule("FREQ=DAILY;BYHOUR=9");

Deno.test("planOccurrences() runs the newest of 3 missed occurrences and records 2 missed", () => {
  const plan = planOccurrences({
    rule: DAILY_9,
    timeZone: "UTC",
    lastPlannedMs: ms("2025-06-01T00:00:00Z"),
    nowMs: ms("2025-06-03T09:00:30Z"),
  });
  assert.equal(iso(plan.due!), "2025-06-03T09:00:00.000Z");
  assert.deepEqual(plan.missed.map(iso), ["2025-06-01T09:00:00.000Z", "2025-06-02T09:00:00.000Z"]);
  assert.equal(plan.missedCount, 2);
  assert.equal(iso(plan.nextDueMs), "2025-06-04T09:00:00.000Z");
});

Deno.test("planOccurrences() never counts occurrences at or before lastPlanned", async (t) => {
  await t.step("activated after today's occurrence", () => {
    const plan = planOccurrences({
      rule: DAILY_9,
      timeZone: "UTC",
      lastPlannedMs: ms("2025-06-01T09:30:00Z"),
      nowMs: ms("2025-06-01T10:00:00Z"),
    });
    assert.deepEqual(plan, {
      due: null,
      missed: [],
      missedCount: 0,
      nextDueMs: ms("2025-06-02T09:00:00Z"),
    });
  });
  await t.step("activated exactly at an occurrence", () => {
    const plan = planOccurrences({
      rule: DAILY_9,
      timeZone: "UTC",
      lastPlannedMs: ms("2025-06-01T09:00:00Z"),
      nowMs: ms("2025-06-02T08:59:59Z"),
    });
    assert.equal(plan.due, null);
    assert.equal(iso(plan.nextDueMs), "2025-06-02T09:00:00.000Z");
  });
  await t.step("clock behind lastPlanned", () => {
    const plan = planOccurrences({
      rule: DAILY_9,
      timeZone: "UTC",
      lastPlannedMs: ms("2025-06-05T00:00:00Z"),
      nowMs: ms("2025-06-01T10:00:00Z"),
    });
    assert.equal(plan.due, null);
    assert.equal(plan.missedCount, 0);
    assert.equal(iso(plan.nextDueMs), "2025-06-05T09:00:00.000Z");
  });
});

Deno.test("planOccurrences() plans nothing on a second tick at the same instant", () => {
  const nowMs = ms("2025-06-01T09:00:00Z");
  const first = planOccurrences({
    rule: DAILY_9,
    timeZone: "UTC",
    lastPlannedMs: ms("2025-06-01T08:59:00Z"),
    nowMs,
  });
  assert.equal(first.due, nowMs);
  // The caller advances lastPlanned to now after each pass.
  const second = planOccurrences({ rule: DAILY_9, timeZone: "UTC", lastPlannedMs: nowMs, nowMs });
  assert.deepEqual(second, { due: null, missed: [], missedCount: 0, nextDueMs: first.nextDueMs });
});

Deno.test("planOccurrences() keeps the newest maxMissed and counts them all", async (t) => {
  const window = {
    rule: parseRrule("FREQ=DAILY;BYHOUR=0,12"),
    timeZone: "UTC",
    lastPlannedMs: ms("2025-01-01T06:00:00Z"),
    nowMs: ms("2025-01-11T06:00:00Z"),
  };
  await t.step("capped at 3", () => {
    const plan = planOccurrences({ ...window, maxMissed: 3 });
    assert.equal(iso(plan.due!), "2025-01-11T00:00:00.000Z");
    assert.deepEqual(plan.missed.map(iso), [
      "2025-01-09T12:00:00.000Z",
      "2025-01-10T00:00:00.000Z",
      "2025-01-10T12:00:00.000Z",
    ]);
    assert.equal(plan.missedCount, 19);
  });
  await t.step("capped at 0", () => {
    const plan = planOccurrences({ ...window, maxMissed: 0 });
    assert.equal(iso(plan.due!), "2025-01-11T00:00:00.000Z");
    assert.deepEqual(plan.missed, []);
    assert.equal(plan.missedCount, 19);
  });
  await t.step("default bound", () => {
    const plan = planOccurrences({
      ...window,
      lastPlannedMs: ms("2024-01-01T00:00:00Z"),
      nowMs: ms("2025-01-01T00:00:00Z"),
    });
    assert.equal(iso(plan.due!), "2025-01-01T00:00:00.000Z");
    assert.equal(plan.missed.length, DEFAULT_MAX_MISSED);
    assert.equal(iso(plan.missed.at(-1)!), "2024-12-31T12:00:00.000Z");
    assert.equal(plan.missedCount, 366 * 2 - 1);
  });
  await t.step("refuses a negative bound", () => {
    assert.throws(() => planOccurrences({ ...window, maxMissed: -1 }), RangeError);
  });
});

Deno.test("planOccurrences() follows the zone across the fall-back day", () => {
  const plan = planOccurrences({
    rule: parseRrule("FREQ=DAILY;BYHOUR=1"),
    timeZone: "America/New_York",
    lastPlannedMs: ms("2025-11-02T04:00:00Z"),
    nowMs: ms("2025-11-02T06:30:00Z"),
  });
  assert.equal(iso(plan.due!), "2025-11-02T05:00:00.000Z");
  assert.equal(plan.missedCount, 0);
  assert.equal(iso(plan.nextDueMs), "2025-11-03T06:00:00.000Z");
});
