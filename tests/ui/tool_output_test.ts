import assert from "node:assert/strict";
import type { FocusLine } from "../../src/ui/focus.ts";
import { outputDetail, toggleOutput } from "../../src/ui/tool_output.ts";

const plain = (text: string): FocusLine => ({ text, tone: "plain" });

Deno.test("outputDetail() is the whole output, safe, when the summary hides part of it", () => {
  assert.equal(outputDetail("ran"), undefined);
  assert.equal(outputDetail(""), undefined);
  assert.equal(outputDetail(42), undefined);
  assert.deepEqual(outputDetail("one\ntwo\x1b[2J")?.map((line) => line.text), [
    "      one",
    "      two^[[2J",
  ]);
  assert.equal(outputDetail("x".repeat(101))?.length, 1, "a first line the summary cuts");
});

Deno.test("toggleOutput() shows the nearest tool output above the bottom, then folds it (issue 38 item 2)", () => {
  const detail = outputDetail("line 1\nline 2\nline 3")!;
  const summary: FocusLine = { text: "    → line 1 (+2 lines)", tone: "dim", detail };
  const after = plain("agent › done");
  const lines = [plain("you › run it"), summary, after];
  const open = toggleOutput(lines, null)!;
  assert.deepEqual(open.lines, [lines[0], summary, ...detail, after]);
  assert.equal(open.scroll, null);
  // Scrolled back onto its last output line, o folds it and the window stays on the summary.
  const folded = toggleOutput(open.lines, { line: detail[2], chunk: 0, row: 0 })!;
  assert.deepEqual(folded.lines, lines);
  assert.deepEqual(folded.scroll, { line: summary, chunk: 0, row: 0 });
  // Above the only tool call there is nothing to show.
  assert.equal(toggleOutput(lines, { line: lines[0], chunk: 0, row: 0 }), null);
  assert.equal(toggleOutput([plain("x")], null), null);
});
