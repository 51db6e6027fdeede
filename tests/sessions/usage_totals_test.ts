import assert from "node:assert/strict";
import { usageTotals } from "../../src/sessions/usage_totals.ts";
import { tailUtf8 } from "../../src/automations/run_outcome.ts";

const usage = (input: number | null, cost: number | null) =>
  JSON.stringify({
    inputTokens: input,
    outputTokens: null,
    cachedInputTokens: null,
    costUsd: cost,
  });

Deno.test("usageTotals() sums per group, keeps unreported figures null, days in the host zone (D22)", () => {
  const rows = [
    {
      harness: "claude",
      routine_id: "r",
      created_at: "2026-11-23T10:30:00.000Z",
      usage_json: usage(10, 0.5),
    },
    {
      harness: "codex",
      routine_id: null,
      created_at: "2026-11-23T11:30:00.000Z",
      usage_json: usage(5, null),
    },
    { harness: "echo", routine_id: null, created_at: "2026-11-22T09:00:00.000Z", usage_json: null },
  ];
  const byHarness = usageTotals(rows, "harness", "UTC");
  assert.deepEqual(
    byHarness.groups.map((g) => [g.key, g.sessions, g.inputTokens, g.costUsd, g.outputTokens]),
    [
      ["claude", 1, 10, 0.5, null],
      ["codex", 1, 5, null, null],
      ["echo", 1, null, null, null],
    ],
  );
  assert.deepEqual(
    [byHarness.total.sessions, byHarness.total.inputTokens, byHarness.total.costUsd],
    [3, 15, 0.5],
  );
  // 10:30 and 11:30 UTC are the 23rd and the 24th in Auckland (UTC+13).
  const byDay = usageTotals(rows, "day", "Pacific/Auckland");
  assert.deepEqual(byDay.groups.map((g) => [g.key, g.sessions]), [["2026-11-22", 1], [
    "2026-11-23",
    1,
  ], ["2026-11-24", 1]]);
  assert.deepEqual(usageTotals(rows, "routine", "UTC").groups.map((g) => g.key), [null, "r"]);
});

Deno.test("tailUtf8() keeps the last bytes without splitting a character (D22)", () => {
  assert.equal(tailUtf8("hello", 10), "hello");
  assert.equal(tailUtf8("hello", 3), "llo");
  assert.equal(tailUtf8("aé€", 4), "€"); // é is 2 bytes, € 3: the last 4 bytes start mid-é.
});
