import assert from "node:assert/strict";
import { parseGitlinks } from "../../src/worktrees/snapshot.ts";

Deno.test("parseGitlinks() takes the gitlink paths of ls-files --stage -z (issue 33)", () => {
  const sha = "3142f1cbf38d919f59d838da0360f4b1e69657f6";
  const entries = [
    `100644 ${sha} 0\ta.txt`,
    `160000 ${sha} 0\tnested repo`,
    `120000 ${sha} 0\tlink`,
    `160000 ${sha} 0\tdeep/sub`,
  ];
  assert.deepEqual(parseGitlinks(entries.join("\0") + "\0"), ["nested repo", "deep/sub"]);
  assert.deepEqual(parseGitlinks(""), []);
});
