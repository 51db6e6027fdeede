import assert from "node:assert/strict";
import { ServiceError } from "../../src/errors.ts";
import { parseRrule } from "../../src/automations/rrule.ts";

/** Asserts that `text` is refused on `definition.rrule` with a message holding `fragment`. */
function assertRefused(text: string, fragment: string) {
  assert.throws(() => parseRrule(text), (error: unknown) => {
    assert.ok(error instanceof ServiceError);
    assert.equal(error.code, "invalid_request");
    assert.equal(error.status, 400);
    assert.deepEqual(error.details, { field: "definition.rrule" });
    assert.ok(error.message.includes(fragment), `${error.message} lacks ${fragment}`);
    assert.ok(!error.message.endsWith("."), `${error.message} ends with a period`);
    return true;
  });
}

Deno.test("parseRrule() reads daily and weekly rules", async (t) => {
  const cases = [
    ["FREQ=DAILY;BYHOUR=9", { freq: "DAILY", hours: [9], days: null }],
    ["RRULE:FREQ=DAILY;BYHOUR=9", { freq: "DAILY", hours: [9], days: null }],
    ["BYHOUR=23,0,9;FREQ=DAILY", { freq: "DAILY", hours: [0, 9, 23], days: null }],
    ["FREQ=DAILY;BYHOUR=9,9,09", { freq: "DAILY", hours: [9], days: null }],
    ["FREQ=DAILY;BYHOUR=0;BYMINUTE=0;BYSECOND=0", { freq: "DAILY", hours: [0], days: null }],
    ["FREQ=DAILY;BYHOUR=7;BYMINUTE=00", { freq: "DAILY", hours: [7], days: null }],
    ["FREQ=DAILY;BYHOUR=7;BYDAY=SA,SU", { freq: "DAILY", hours: [7], days: ["SA", "SU"] }],
    [
      "RRULE:FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=9;BYMINUTE=0",
      { freq: "WEEKLY", hours: [9], days: ["MO", "TU", "WE", "TH", "FR"] },
    ],
    ["FREQ=WEEKLY;BYDAY=SU,MO,SU;BYHOUR=18", { freq: "WEEKLY", hours: [18], days: ["MO", "SU"] }],
  ] as const;
  for (const [text, expected] of cases) {
    await t.step(text, () => assert.deepEqual(parseRrule(text), expected));
  }
});

Deno.test("parseRrule() refuses every part outside the subset, naming it", async (t) => {
  const cases = [
    ["FREQ=DAILY;BYHOUR=9;INTERVAL=2", 'Unsupported RRULE part "INTERVAL=2"'],
    ["FREQ=DAILY;BYHOUR=9;INTERVAL=1", 'Unsupported RRULE part "INTERVAL=1"'],
    ["FREQ=DAILY;BYHOUR=9;COUNT=3", 'Unsupported RRULE part "COUNT=3"'],
    [
      "FREQ=DAILY;BYHOUR=9;UNTIL=20260101T000000Z",
      'Unsupported RRULE part "UNTIL=20260101T000000Z"',
    ],
    ["FREQ=DAILY;BYHOUR=9;DTSTART=20250101T090000Z", 'Unsupported RRULE part "DTSTART='],
    ["FREQ=DAILY;BYHOUR=9;BYMONTH=1", 'Unsupported RRULE part "BYMONTH=1"'],
    ["FREQ=DAILY;BYHOUR=9;BYMONTHDAY=1", 'Unsupported RRULE part "BYMONTHDAY=1"'],
    ["FREQ=DAILY;BYHOUR=9;BYSETPOS=1", 'Unsupported RRULE part "BYSETPOS=1"'],
    ["FREQ=DAILY;BYHOUR=9;BYYEARDAY=1", 'Unsupported RRULE part "BYYEARDAY=1"'],
    ["FREQ=DAILY;BYHOUR=9;BYWEEKNO=1", 'Unsupported RRULE part "BYWEEKNO=1"'],
    ["FREQ=WEEKLY;BYDAY=MO;BYHOUR=9;WKST=SU", 'Unsupported RRULE part "WKST=SU"'],
    ["FREQ=DAILY;BYHOUR=9;X-NAME=1", 'Unsupported RRULE part "X-NAME=1"'],
    ["FREQ=DAILY;BYHOUR=9;BYMINUTE=30", 'Unsupported RRULE part "BYMINUTE=30"'],
    ["FREQ=DAILY;BYHOUR=9;BYMINUTE=0,30", 'Unsupported RRULE part "BYMINUTE=0,30"'],
    ["FREQ=DAILY;BYHOUR=9;BYMINUTE=60", 'Unsupported RRULE part "BYMINUTE=60"'],
    ["FREQ=DAILY;BYHOUR=9;BYSECOND=15", 'Unsupported RRULE part "BYSECOND=15"'],
    ["FREQ=HOURLY;BYHOUR=9", 'Unsupported RRULE part "FREQ=HOURLY"'],
    ["RRULE:FREQ=HOURLY;INTERVAL=2", 'Unsupported RRULE part "FREQ=HOURLY"'],
    ["FREQ=MINUTELY;BYHOUR=9", 'Unsupported RRULE part "FREQ=MINUTELY"'],
    ["FREQ=MONTHLY;BYHOUR=9", 'Unsupported RRULE part "FREQ=MONTHLY"'],
    ["FREQ=YEARLY;BYHOUR=9", 'Unsupported RRULE part "FREQ=YEARLY"'],
    ["FREQ=DAILY;BYHOUR=24", 'Unsupported RRULE part "BYHOUR=24"'],
    ["FREQ=DAILY;BYHOUR=-1", 'Unsupported RRULE part "BYHOUR=-1"'],
    ["FREQ=DAILY;BYHOUR=9.5", 'Unsupported RRULE part "BYHOUR=9.5"'],
    ["FREQ=DAILY;BYHOUR=9,,10", 'Unsupported RRULE part "BYHOUR=9,,10"'],
    ["FREQ=DAILY;BYHOUR=9,", 'Unsupported RRULE part "BYHOUR=9,"'],
    ["FREQ=DAILY;BYHOUR=009", 'Unsupported RRULE part "BYHOUR=009"'],
    ["FREQ=WEEKLY;BYDAY=1MO;BYHOUR=9", 'Unsupported RRULE part "BYDAY=1MO"'],
    ["FREQ=WEEKLY;BYDAY=-1FR;BYHOUR=9", 'Unsupported RRULE part "BYDAY=-1FR"'],
    ["FREQ=WEEKLY;BYDAY=+2TU;BYHOUR=9", 'Unsupported RRULE part "BYDAY=+2TU"'],
    ["FREQ=WEEKLY;BYDAY=mo;BYHOUR=9", 'Unsupported RRULE part "BYDAY=mo"'],
    ["FREQ=WEEKLY;BYDAY=MON;BYHOUR=9", 'Unsupported RRULE part "BYDAY=MON"'],
    ["FREQ=WEEKLY;BYDAY=MO,,TU;BYHOUR=9", 'Unsupported RRULE part "BYDAY=MO,,TU"'],
    ["FREQ=DAILY;FREQ=WEEKLY;BYHOUR=9", 'Duplicate RRULE part "FREQ=WEEKLY"'],
    ["FREQ=DAILY;BYHOUR=9;BYHOUR=10", 'Duplicate RRULE part "BYHOUR=10"'],
    ["FREQ=DAILY;BYHOUR=", 'Malformed RRULE part "BYHOUR="'],
    ["FREQ=DAILY;BYHOUR=9;", 'Malformed RRULE part ""'],
    ["FREQ=DAILY;;BYHOUR=9", 'Malformed RRULE part ""'],
    ["FREQ=DAILY BYHOUR=9", 'Unsupported RRULE part "FREQ=DAILY BYHOUR=9"'],
    [" FREQ=DAILY;BYHOUR=9", 'Malformed RRULE part " FREQ=DAILY"'],
    ["freq=daily;byhour=9", 'Malformed RRULE part "freq=daily"'],
    ["rrule:FREQ=DAILY;BYHOUR=9", 'Malformed RRULE part "rrule:FREQ=DAILY"'],
    ["every day at nine", 'Malformed RRULE part "every day at nine"'],
    ["FREQ=daily;BYHOUR=9", 'Unsupported RRULE part "FREQ=daily"'],
    ["", "RRULE is empty"],
    ["RRULE:", "RRULE is empty"],
    ["BYHOUR=9", "RRULE lacks FREQ"],
    ["FREQ=DAILY", "RRULE lacks BYHOUR"],
    ["FREQ=DAILY;BYMINUTE=0", "RRULE lacks BYHOUR"],
  ] as const;
  for (const [text, fragment] of cases) {
    await t.step(JSON.stringify(text), () => assertRefused(text, fragment));
  }
});

Deno.test("parseRrule() refuses INTERVAL naming the part and the accepted ones", () => {
  assert.throws(() => parseRrule("FREQ=DAILY;BYHOUR=9;INTERVAL=2"), {
    message:
      'Unsupported RRULE part "INTERVAL=2": only FREQ, BYHOUR, BYDAY, BYMINUTE=0 and BYSECOND=0 are accepted',
  });
});

Deno.test("FREQ=WEEKLY without BYDAY runs on Mondays (D12 as amended)", () => {
  assert.deepEqual(parseRrule("FREQ=WEEKLY;BYHOUR=9"), {
    freq: "WEEKLY",
    hours: [9],
    days: ["MO"],
  });
  assert.deepEqual(parseRrule("RRULE:FREQ=WEEKLY;BYHOUR=9,17").days, ["MO"]);
  assert.equal(parseRrule("FREQ=DAILY;BYHOUR=9").days, null);
});
