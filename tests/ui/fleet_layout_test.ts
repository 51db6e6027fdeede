import assert from "node:assert/strict";
import { fleetColumns, fleetHeading, WIDE_FLEET } from "../../src/ui/fleet_layout.ts";

const BRANCH = "svc/session/ses_01M8GJFH0000000000000000AB";

function total(columns: ReturnType<typeof fleetColumns>): number {
  return Object.values(columns).reduce((sum, n) => sum + n, 0);
}

Deno.test("fleetColumns() shows a whole worktree branch at 200 columns (issue 38 item 11)", () => {
  const columns = fleetColumns(200, { idWidth: 13, branches: [BRANCH, ""] });
  assert.equal(columns.branch, BRANCH.length);
  assert.ok(columns.title >= columns.branch, "the title keeps at least half of the rest");
  assert.ok(total(columns) + 11 <= 200, "the row fits the width");
});

Deno.test("fleetColumns() keeps the branch at 16 where the room is short, none below 110", () => {
  const columns = fleetColumns(WIDE_FLEET, { idWidth: 13, branches: [BRANCH] });
  assert.equal(columns.branch, 16);
  assert.equal(columns.project, 14);
  assert.ok(total(columns) + 11 <= WIDE_FLEET);
  const narrow = fleetColumns(80, { idWidth: 13, branches: [BRANCH] });
  assert.deepEqual([narrow.branch, narrow.project], [0, 0]);
  assert.ok(total(narrow) + 9 <= 80);
});

Deno.test("fleetColumns() gives a short branch only what it needs", () => {
  const columns = fleetColumns(200, { idWidth: 13, branches: ["main"] });
  assert.equal(columns.branch, 16);
  assert.equal(total(columns) + 11, 200);
});

Deno.test("fleetHeading() counts in English: 1 session, 2 sessions (issue 38 item 14)", () => {
  const shown = { showEnded: false, filter: "", filtering: false };
  assert.equal(fleetHeading(1, shown), "1 session live (a: show ended)");
  assert.equal(
    fleetHeading(2, { ...shown, showEnded: true, filter: "proj" }),
    '2 sessions (ended shown: a) · filter "proj"',
  );
  assert.equal(
    fleetHeading(2, { ...shown, filter: "pr", filtering: true }),
    "filter: pr█  (Enter keeps it, Esc clears)",
  );
});

Deno.test("fleetColumns() adds a HOST column only for several hosts, as wide as their names (D32)", () => {
  assert.equal(fleetColumns(120, { idWidth: 13, branches: [], hosts: ["local"] }).host, 0);
  const two = fleetColumns(120, { idWidth: 13, branches: [], hosts: ["local", "devbox"] });
  assert.equal(two.host, "devbox".length);
  assert.ok(total(two) + 12 <= 120, "the row with its HOST column fits");
  const long = fleetColumns(80, { idWidth: 13, branches: [], hosts: ["a", "x".repeat(40)] });
  assert.equal(long.host, 8, "a long context name is cut to what 80 columns leave");
  assert.ok(total(long) + 10 <= 80);
  const wide = fleetColumns(200, { idWidth: 13, branches: [], hosts: ["a", "x".repeat(40)] });
  assert.equal(wide.host, 12, "never wider than 12");
  assert.ok(long.title >= 8);
});
