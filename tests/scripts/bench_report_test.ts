import assert from "node:assert/strict";
import { combineRuns, figure, markdownTable } from "../../scripts/bench/report.ts";

const run = (svc: number, baseline: number, extra = true) => [
  figure({
    id: "page",
    label: "page p50",
    unit: "ms",
    better: "lower",
    svc,
    baseline,
    baselineLabel: "bare",
    target: { on: "ratio", op: "<=", value: 1.5 },
  }),
  ...(extra
    ? [figure({
      id: "rss",
      label: "rss",
      unit: "MB",
      better: "lower",
      svc: 80,
      baseline: 40,
      baselineLabel: "bare",
    })]
    : []),
];

Deno.test("combineRuns() takes each figure's medians, judges the target on the median ratio, keeps the spread", () => {
  // Ratios 1.0, 2.0, 1.2: the median ratio (1.2) meets the target though one run missed it.
  const [page, rss] = combineRuns([run(10, 10), run(20, 10, false), run(12, 10)]);
  assert.equal(page.id, "page");
  assert.equal(page.svc, 12);
  assert.equal(page.baseline, 10);
  assert.equal(page.ratio, 1.2);
  assert.equal(page.met, true);
  assert.deepEqual((page.details.runs as Array<{ ratio: number }>).map((r) => r.ratio), [
    1,
    2,
    1.2,
  ]);
  // A figure absent from a run (its stage failed there) comes from the runs that have it.
  assert.equal((rss.details.runs as unknown[]).length, 2);
  assert.equal(rss.ratio, 2);
  assert.match(markdownTable([page]), /\| 1\.200× \(1\.00–2\.00\) \|/);
});

Deno.test("markdownTable() gives no spread for one run, even when a stage keeps its own runs", () => {
  const [page] = run(1.2, 1, false);
  const withRounds = { ...page, details: { runs: [{ readers: 0 }, { readers: 200 }] } };
  assert.match(markdownTable([withRounds]), /\| 1\.200× \| ratio ≤ 1\.5 \|/);
  assert.match(markdownTable([page]), /\| 1\.200× \| ratio ≤ 1\.5 \|/);
});
