import assert from "node:assert/strict";
import { alignedLines, keyValues } from "../../src/cli/key_values.ts";

Deno.test("keyValues() aligns the values, shows null as - and objects as JSON", () => {
  assert.equal(
    keyValues({ id: "nightly", prompt: "run\nthe tests", cwd: null, schedule: { rrule: "X" } }),
    'id:       nightly\nprompt:   run\n          the tests\ncwd:      -\nschedule: {"rrule":"X"}',
  );
  assert.equal(alignedLines([["a", "1"], ["bcd", "2"]]), "a:   1\nbcd: 2");
});
