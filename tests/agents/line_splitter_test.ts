import assert from "node:assert/strict";
import { LineSplitter } from "../../src/agents/line_splitter.ts";

Deno.test("LineSplitter joins lines split across chunks and splits several in one", () => {
  const splitter = new LineSplitter(100);
  assert.deepEqual(splitter.push('{"a":'), { lines: [], dropped: 0 });
  assert.deepEqual(splitter.push('1}\n{"b":2}\r\n{"c"'), {
    lines: ['{"a":1}', '{"b":2}'],
    dropped: 0,
  });
  assert.deepEqual(splitter.flush(), { lines: ['{"c"'], dropped: 0 });
  assert.deepEqual(splitter.flush(), { lines: [], dropped: 0 });
});

Deno.test("LineSplitter drops a line over its bound and resumes at the next one", () => {
  const splitter = new LineSplitter(8);
  assert.deepEqual(splitter.push("0123456789"), { lines: [], dropped: 1 });
  assert.deepEqual(splitter.push("more of it"), { lines: [], dropped: 0 });
  assert.deepEqual(splitter.push(" end\nnext\n"), { lines: ["next"], dropped: 0 });
});
