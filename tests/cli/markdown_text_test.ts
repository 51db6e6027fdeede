import assert from "node:assert/strict";
import { markdownForTerminal } from "../../src/cli/markdown_text.ts";
import { localTime } from "../../src/cli/output.ts";

/** A result as the inbox holds it (automations/delivery.ts): a table without a header. */
const RESULT = [
  "# Nightly: succeeded",
  "",
  "| | |",
  "|---|---|",
  "| Routine | Nightly (`nightly`) |",
  "| Run | `run_1` (schedule) |",
  "| Started | 2026-11-23T10:00:00.000Z |",
  "| Ended | — |",
  "| Note | a \\| b \x1b[2J |",
  "",
  "## Result",
  "",
  "Done | nothing else.",
].join("\n");

Deno.test("markdownForTerminal() renders a table as aligned columns, its times local or UTC (issue 38 item 14)", async (t) => {
  await t.step("no pipes or delimiter row; code spans unwrapped; escaped for the terminal", () => {
    assert.equal(
      markdownForTerminal(RESULT, true),
      [
        "# Nightly: succeeded",
        "",
        "Routine  Nightly (nightly)",
        "Run      run_1 (schedule)",
        "Started  2026-11-23 10:00 UTC",
        "Ended    —",
        "Note     a | b ^[[2J",
        "",
        "## Result",
        "",
        "Done | nothing else.",
      ].join("\n"),
    );
  });
  await t.step("times in the local zone without --utc", () => {
    const started = markdownForTerminal(RESULT, false).split("\n")[4];
    assert.equal(started, `Started  ${localTime("2026-11-23T10:00:00.000Z")}`);
  });
  await t.step("a header row is kept; alignment colons are read as a delimiter", () => {
    assert.equal(
      markdownForTerminal("| File | Changes |\n|:--|--:|\n| a.ts | +1 |\n| bb.ts | -2 |", true),
      "File   Changes\na.ts   +1\nbb.ts  -2",
    );
  });
  await t.step("lines that only look like a table are left as they are", () => {
    const fenced = "```\n| a | b |\n|---|---|\n```";
    assert.equal(markdownForTerminal(fenced, true), fenced);
    assert.equal(markdownForTerminal("| a | b |\nno delimiter", true), "| a | b |\nno delimiter");
  });
});
