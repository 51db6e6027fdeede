import assert from "node:assert/strict";
import { parseNumstat, refComponent } from "../../src/worktrees/diff_stat.ts";

Deno.test("parseNumstat() sums -z records; a binary file counts as changed without lines (D20)", () => {
  assert.deepEqual(parseNumstat(""), { changedFiles: 0, insertions: 0, deletions: 0 });
  assert.deepEqual(
    parseNumstat("3\t1\tsrc/a.ts\0" + "-\t-\timage.png\0" + "0\t7\tname\twith tab.txt\0"),
    { changedFiles: 3, insertions: 3, deletions: 8 },
  );
});

Deno.test("refComponent() turns any routine id into a branch component git accepts (D20)", async () => {
  const ids = ["nightly", "a.b_c-9", "..", ".hidden", "x.lock", "end.", "a..b", "...", "-dash"];
  for (const id of ids) {
    const branch = `svc/${refComponent(id)}/run_01`;
    const check = await new Deno.Command("git", {
      args: ["check-ref-format", "--branch", branch],
      stdout: "null",
      stderr: "null",
    }).output();
    assert.ok(check.success, `${id} → ${branch}`);
  }
  assert.equal(refComponent("nightly"), "nightly");
  assert.equal(refComponent(".."), "__");
});
