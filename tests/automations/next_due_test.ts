import assert from "node:assert/strict";
import fc from "fast-check";
import rrule from "rrule";
import {
  nextOccurrence,
  occurrencesBetween,
  resolveTimeZone,
} from "../../src/automations/next_due.ts";
import { parseRrule, type RruleSubset, WEEKDAYS } from "../../src/automations/rrule.ts";

const { RRule } = rrule;
const ms = (iso: string) => Date.parse(iso);
const iso = (epochMs: number) => new Date(epochMs).toISOString();
const DAY_MS = 86_400_000;

Deno.test("nextOccurrence() finds hand-checked instants", async (t) => {
  const cases: [zone: string, rule: string, after: string, expected: string][] = [
    // UTC. 2025-06-01 is a Sunday.
    ["UTC", "FREQ=DAILY;BYHOUR=9", "2025-06-01T08:59:59.999Z", "2025-06-01T09:00:00.000Z"],
    ["UTC", "FREQ=DAILY;BYHOUR=9", "2025-06-01T09:00:00.000Z", "2025-06-02T09:00:00.000Z"],
    ["UTC", "FREQ=DAILY;BYHOUR=9,17", "2025-06-01T10:00:00.000Z", "2025-06-01T17:00:00.000Z"],
    ["UTC", "FREQ=DAILY;BYHOUR=0", "2025-12-31T23:30:00.000Z", "2026-01-01T00:00:00.000Z"],
    [
      "UTC",
      "FREQ=WEEKLY;BYDAY=MO,FR;BYHOUR=9",
      "2025-06-01T12:00:00.000Z",
      "2025-06-02T09:00:00.000Z",
    ],
    [
      "UTC",
      "FREQ=WEEKLY;BYDAY=MO,FR;BYHOUR=9",
      "2025-06-02T09:00:00.000Z",
      "2025-06-06T09:00:00.000Z",
    ],
    [
      "UTC",
      "FREQ=WEEKLY;BYDAY=MO,FR;BYHOUR=9",
      "2025-06-06T10:00:00.000Z",
      "2025-06-09T09:00:00.000Z",
    ],
    ["UTC", "FREQ=DAILY;BYDAY=SA;BYHOUR=6", "2025-06-01T00:00:00.000Z", "2025-06-07T06:00:00.000Z"],
    // New York: EDT (UTC-4) in June, EST (UTC-5) in January.
    [
      "America/New_York",
      "FREQ=DAILY;BYHOUR=9",
      "2025-06-01T12:00:00.000Z",
      "2025-06-01T13:00:00.000Z",
    ],
    [
      "America/New_York",
      "FREQ=DAILY;BYHOUR=9",
      "2025-06-01T13:00:00.000Z",
      "2025-06-02T13:00:00.000Z",
    ],
    [
      "America/New_York",
      "FREQ=DAILY;BYHOUR=9",
      "2025-01-15T00:00:00.000Z",
      "2025-01-15T14:00:00.000Z",
    ],
    [
      "America/New_York",
      "FREQ=WEEKLY;BYDAY=MO;BYHOUR=23",
      "2025-06-02T12:00:00.000Z",
      "2025-06-03T03:00:00.000Z",
    ],
    [
      "America/New_York",
      "RRULE:FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=9;BYMINUTE=0",
      "2025-06-06T13:00:00.000Z",
      "2025-06-09T13:00:00.000Z",
    ],
    // Kolkata: UTC+05:30, no DST; local 02:00 is the previous UTC day.
    ["Asia/Kolkata", "FREQ=DAILY;BYHOUR=9", "2025-06-01T00:00:00.000Z", "2025-06-01T03:30:00.000Z"],
    ["Asia/Kolkata", "FREQ=DAILY;BYHOUR=9", "2025-06-01T03:30:00.000Z", "2025-06-02T03:30:00.000Z"],
    ["Asia/Kolkata", "FREQ=DAILY;BYHOUR=2", "2025-06-01T12:00:00.000Z", "2025-06-01T20:30:00.000Z"],
    [
      "Asia/Kolkata",
      "FREQ=WEEKLY;BYDAY=MO;BYHOUR=1",
      "2025-06-01T00:00:00.000Z",
      "2025-06-01T19:30:00.000Z",
    ],
    // DST: the gap day shifts 02:00 to 03:00 EDT; the fall-back day runs 01:00 once (EDT).
    [
      "America/New_York",
      "FREQ=DAILY;BYHOUR=2",
      "2025-03-09T00:00:00.000Z",
      "2025-03-09T07:00:00.000Z",
    ],
    [
      "America/New_York",
      "FREQ=DAILY;BYHOUR=2",
      "2025-03-09T07:00:00.000Z",
      "2025-03-10T06:00:00.000Z",
    ],
    [
      "America/New_York",
      "FREQ=DAILY;BYHOUR=1",
      "2025-11-02T00:00:00.000Z",
      "2025-11-02T05:00:00.000Z",
    ],
    [
      "America/New_York",
      "FREQ=DAILY;BYHOUR=1",
      "2025-11-02T05:00:00.000Z",
      "2025-11-03T06:00:00.000Z",
    ],
  ];
  for (const [zone, text, after, expected] of cases) {
    await t.step(`${zone} ${text} after ${after}`, () => {
      assert.equal(iso(nextOccurrence(parseRrule(text), ms(after), zone)), expected);
    });
  }
});

Deno.test("occurrencesBetween() runs a spring-forward gap hour once, shifted by the gap", () => {
  const gapDay = occurrencesBetween(
    parseRrule("FREQ=DAILY;BYHOUR=1,2,3"),
    ms("2025-03-09T00:00:00Z"),
    ms("2025-03-10T00:00:00Z"),
    "America/New_York",
  );
  // 01:00 EST, then 02:00 (absent) and 03:00 EDT are the same instant.
  assert.deepEqual(gapDay.map(iso), ["2025-03-09T06:00:00.000Z", "2025-03-09T07:00:00.000Z"]);
});

Deno.test("occurrencesBetween() runs a repeated fall-back hour once, at its first instant", () => {
  const between = (text: string) =>
    occurrencesBetween(
      parseRrule(text),
      ms("2025-11-01T12:00:00Z"),
      ms("2025-11-02T23:59:59Z"),
      "America/New_York",
    ).map(iso);
  assert.deepEqual(between("FREQ=DAILY;BYHOUR=1"), ["2025-11-02T05:00:00.000Z"]);
  assert.deepEqual(between("FREQ=DAILY;BYHOUR=1,2"), [
    "2025-11-02T05:00:00.000Z",
    "2025-11-02T07:00:00.000Z",
  ]);
});

Deno.test("occurrencesBetween() keeps (from, to] and stops at max", () => {
  const rule = parseRrule("FREQ=DAILY;BYHOUR=9");
  const from = ms("2025-06-01T09:00:00Z");
  const to = ms("2025-06-04T09:00:00Z");
  assert.deepEqual(occurrencesBetween(rule, from, to, "UTC").map(iso), [
    "2025-06-02T09:00:00.000Z",
    "2025-06-03T09:00:00.000Z",
    "2025-06-04T09:00:00.000Z",
  ]);
  assert.deepEqual(occurrencesBetween(rule, from, to, "UTC", 2).map(iso), [
    "2025-06-02T09:00:00.000Z",
    "2025-06-03T09:00:00.000Z",
  ]);
  assert.deepEqual(occurrencesBetween(rule, from, from + 1000, "UTC"), []);
  assert.deepEqual(occurrencesBetween(rule, to, from, "UTC"), []);
});

Deno.test("nextOccurrence() refuses a rule that selects nothing", () => {
  assert.throws(
    () => nextOccurrence({ freq: "DAILY", hours: [], days: null }, 0, "UTC"),
    RangeError,
  );
  assert.throws(
    () => nextOccurrence({ freq: "WEEKLY", hours: [9], days: [] }, 0, "UTC"),
    RangeError,
  );
});

Deno.test("resolveTimeZone() maps utc to UTC and local to the host zone", () => {
  assert.equal(resolveTimeZone("utc", "Asia/Kolkata"), "UTC");
  assert.equal(resolveTimeZone("local", "Asia/Kolkata"), "Asia/Kolkata");
  assert.equal(resolveTimeZone("local"), Temporal.Now.timeZoneId());
});

const ZONES = [
  "UTC",
  "America/New_York",
  "Asia/Kolkata",
  "Europe/London",
  "Australia/Lord_Howe", // 30-minute DST shift
  "America/Santiago", // DST changes at midnight
  "Pacific/Apia", // skipped 2011-12-30 entirely
  "Asia/Kathmandu",
];

const FIXED_OFFSET_ZONES = ["UTC", "Asia/Kolkata", "Asia/Kathmandu"];

const ruleArbitrary: fc.Arbitrary<RruleSubset> = fc.record({
  freq: fc.constantFrom("DAILY" as const, "WEEKLY" as const),
  hours: fc.uniqueArray(fc.integer({ min: 0, max: 23 }), { minLength: 1, maxLength: 6 })
    .map((hours) => hours.sort((a, b) => a - b)),
  days: fc.uniqueArray(fc.constantFrom(...WEEKDAYS), { minLength: 1, maxLength: 7 })
    .map((days) => WEEKDAYS.filter((day) => days.includes(day))),
  everyDay: fc.boolean(),
}).map(({ freq, hours, days, everyDay }) => ({
  freq,
  hours,
  days: freq === "DAILY" && everyDay ? null : days,
}));

const timeArbitrary = fc.integer({ min: Date.UTC(2010, 0, 1), max: Date.UTC(2035, 0, 1) });

Deno.test("nextOccurrence() is after t and constant on [t, next(t))", () => {
  fc.assert(
    fc.property(
      ruleArbitrary,
      fc.constantFrom(...ZONES),
      timeArbitrary,
      fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
      (rule, zone, t, fraction) => {
        const next = nextOccurrence(rule, t, zone);
        assert.ok(next > t);
        assert.ok(next - t <= 8 * DAY_MS, `${iso(t)} → ${iso(next)} is over 8 days`);
        const later = t + Math.floor(fraction * (next - t));
        assert.equal(nextOccurrence(rule, later, zone), next);
        assert.equal(nextOccurrence(rule, next - 1, zone), next);
        if (FIXED_OFFSET_ZONES.includes(zone)) {
          const local = Temporal.Instant.fromEpochMilliseconds(next).toZonedDateTimeISO(zone);
          assert.ok(rule.hours.includes(local.hour) && local.minute === 0 && local.second === 0);
          assert.ok(rule.days === null || rule.days.includes(WEEKDAYS[local.dayOfWeek - 1]));
        }
      },
    ),
    { numRuns: 500 },
  );
});

Deno.test("occurrencesBetween() agrees with nextOccurrence() step by step", () => {
  fc.assert(
    fc.property(ruleArbitrary, fc.constantFrom(...ZONES), timeArbitrary, (rule, zone, t) => {
      const found = occurrencesBetween(rule, t, t + 10 * DAY_MS, zone);
      let cursor = t;
      for (const instant of found) {
        assert.equal(instant, nextOccurrence(rule, cursor, zone));
        cursor = instant;
      }
      assert.ok(nextOccurrence(rule, cursor, zone) > t + 10 * DAY_MS);
    }),
    { numRuns: 200 },
  );
});

Deno.test("occurrencesBetween() matches npm rrule for UTC rules", () => {
  const weekdays = [RRule.MO, RRule.TU, RRule.WE, RRule.TH, RRule.FR, RRule.SA, RRule.SU];
  fc.assert(
    fc.property(
      ruleArbitrary,
      fc.integer({ min: Date.UTC(2024, 0, 2), max: Date.UTC(2030, 0, 1) }),
      (rule, from) => {
        const to = from + 30 * DAY_MS;
        const reference = new RRule({
          freq: rule.freq === "DAILY" ? RRule.DAILY : RRule.WEEKLY,
          byhour: rule.hours,
          byminute: [0],
          bysecond: [0],
          byweekday: rule.days?.map((day) => weekdays[WEEKDAYS.indexOf(day)]) ?? null,
          // Explicit, whole-hour and UTC: without it rrule inherits the current minutes.
          dtstart: new Date(Date.UTC(2024, 0, 1)),
        });
        const expected = reference.between(new Date(from), new Date(to), true)
          .map((date) => date.getTime())
          .filter((instant) => instant > from);
        assert.deepEqual(occurrencesBetween(rule, from, to, "UTC"), expected);
        assert.equal(nextOccurrence(rule, from, "UTC"), reference.after(new Date(from))?.getTime());
      },
    ),
    { numRuns: 200 },
  );
});
