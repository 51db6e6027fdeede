import assert from "node:assert/strict";
import { counted } from "../src/count_text.ts";

Deno.test("counted() names one of a thing in the singular, any other count in the plural", () => {
  assert.equal(counted(1, "file"), "1 file");
  assert.equal(counted(0, "file"), "0 files");
  assert.equal(counted(2, "file"), "2 files");
  assert.equal(counted(1, "match", "matches"), "1 match");
  assert.equal(counted(3, "match", "matches"), "3 matches");
});
