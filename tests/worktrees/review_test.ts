import assert from "node:assert/strict";
import { parseNumstatFiles } from "../../src/worktrees/diff_stat.ts";
import { parseStatusPaths } from "../../src/worktrees/land_checks.ts";
import { configuredSetup } from "../../src/worktrees/setup.ts";

Deno.test("parseNumstatFiles() reads counts, binaries and renames of numstat -z (D27)", () => {
  const output = "3\t1\ta.txt\0-\t-\tlogo.png\0" + "2\t0\t\0old name.txt\0new\tname.txt\0";
  assert.deepEqual(parseNumstatFiles(output), [
    { path: "a.txt", oldPath: null, insertions: 3, deletions: 1, binary: false },
    { path: "logo.png", oldPath: null, insertions: null, deletions: null, binary: true },
    { path: "new\tname.txt", oldPath: "old name.txt", insertions: 2, deletions: 0, binary: false },
  ]);
  assert.deepEqual(parseNumstatFiles(""), []);
});

Deno.test("parseStatusPaths() takes the paths of status --porcelain -z (D27)", () => {
  assert.deepEqual(parseStatusPaths(" M a.txt\0?? new dir/x.txt\0A  s.txt\0"), [
    "a.txt",
    "new dir/x.txt",
    "s.txt",
  ]);
});

Deno.test("configuredSetup() takes the longest project root containing the cwd (D27)", () => {
  const outer = { copy: [".env"] };
  const inner = { run: [["make"]] };
  const byRoot = { "/p": outer, "/p/sub": inner };
  assert.equal(configuredSetup(byRoot, "/p/src"), outer);
  assert.equal(configuredSetup(byRoot, "/p/sub/x"), inner);
  assert.equal(configuredSetup(byRoot, "/pq"), null);
  assert.equal(configuredSetup(undefined, "/p"), null);
});
