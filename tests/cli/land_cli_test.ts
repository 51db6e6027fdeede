/** `svc worktrees diff|land|discard` and the inbox's review commands against a real `svc serve` (D27). */
import assert from "node:assert/strict";
import { colorDiff, statText } from "../../src/cli/worktrees.ts";
import { waitForEnd } from "../helpers/daemon.ts";
import { git, gitRepository } from "../helpers/git.ts";
import { removeTree } from "../helpers/home.ts";
import { routineDefinition } from "../helpers/routine.ts";
import { startCliDaemon } from "./cli_daemon.ts";

// deno-lint-ignore no-explicit-any
type Json = Record<string, any>;

Deno.test("svc worktrees diff, land and discard an isolated run; the result names the commands (D27)", async () => {
  await using d = await startCliDaemon();
  const repo = await gitRepository();
  try {
    const run = async (id: string, prompt: string) => {
      await d.client.post("/actions", {
        action: "svc.automations.create",
        definition: routineDefinition(id, {
          prompt,
          cwd: repo,
          isolation: "worktree",
          outputTarget: { kind: "inbox" },
        }),
      });
      const started = (await d.client.post<Json>("/actions", {
        action: "svc.automations.run",
        id,
      })).body.result;
      await waitForEnd(d.client, started.sessionId);
      let shown = { code: 1, stdout: "", stderr: "" };
      for (const deadline = Date.now() + 20_000; shown.code !== 0;) {
        assert.ok(Date.now() < deadline, "the result never appeared");
        shown = await d.svc(["inbox", "show", started.runId]);
      }
      return { ...started, result: shown.stdout };
    };
    const first = await run("feature", "write feature.txt from the agent; out done; exit 0");
    const ses = first.sessionId;
    assert.match(first.result, /## Review/);
    assert.match(first.result, /\+1 -0\s+feature\.txt/);
    assert.match(first.result, new RegExp(`    svc worktrees diff ${ses}\n`));
    assert.match(first.result, new RegExp(`    svc worktrees land ${ses} --squash\n`));
    assert.match(first.result, new RegExp(`    svc worktrees discard ${ses} --force\n`));

    const diff = await d.svc(["worktrees", "diff", ses]);
    assert.equal(diff.code, 0, diff.stderr);
    const page = (await d.client.get<Json>(`/sessions/${ses}/worktree/diff`)).body.diff;
    assert.equal(diff.stdout, page.data); // Plain when not a terminal: a patch file as is.
    assert.match(diff.stdout, /^\+from the agent$/m);
    const stat = await d.svc(["worktrees", "diff", ses, "--stat"]);
    assert.match(stat.stdout, /feature\.txt\s+\+1 -0\n1 file changed, \+1 -0 since /);

    const landed = await d.svc(["worktrees", "land", ses, "--merge", "-m", "Take the feature"]);
    assert.equal(landed.code, 0, landed.stderr);
    assert.match(landed.stdout, /^Landed on main \(merge\): [0-9a-f]{12}\.\.[0-9a-f]{12}\n$/);
    assert.equal(await Deno.readTextFile(`${repo}/feature.txt`), "from the agent\n");
    assert.equal((await git(repo, "log", "-1", "--format=%s")).trim(), "Take the feature");
    const discarded = await d.svc(["worktrees", "discard", ses]);
    assert.equal(discarded.code, 0, discarded.stderr);
    assert.match(discarded.stdout, /^Removed .* and branch svc\/feature\//);

    // A refused land names the files; unlanded work needs --force to discard.
    const second = await run("edit", "write a.txt from the agent; exit 0");
    await Deno.writeTextFile(`${repo}/a.txt`, "the owner's edit\n");
    const refused = await d.svc(["worktrees", "land", second.sessionId]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /^land_conflict: .*nothing was changed\n {2}a\.txt\n$/);
    assert.equal(await Deno.readTextFile(`${repo}/a.txt`), "the owner's edit\n");
    const kept = await d.svc(["worktrees", "discard", second.sessionId]);
    assert.equal(kept.code, 1);
    assert.match(kept.stderr, /^unlanded_work: /);
    const forced = await d.svc(["worktrees", "discard", second.sessionId, "--force"]);
    assert.equal(forced.code, 0, forced.stderr);
    const both = await d.svc(["worktrees", "land", ses, "--merge", "--rebase"]);
    assert.equal(both.code, 2);
  } finally {
    await removeTree(repo);
  }
});

Deno.test("colorDiff colours a diff's lines; statText lists files, renames and binaries", () => {
  assert.equal(colorDiff("+a\n-b", false), "+a\n-b");
  assert.equal(
    colorDiff("diff --git a/x b/x\n@@ -1 +1 @@\n+a\n-b\n c", true),
    "\x1b[1mdiff --git a/x b/x\x1b[22m\n\x1b[36m@@ -1 +1 @@\x1b[39m\n\x1b[32m+a\x1b[39m\n" +
      "\x1b[31m-b\x1b[39m\n c",
  );
  const text = statText({
    sessionId: "ses_x",
    baseCommit: "0123456789abcdef",
    headCommit: "0123456789abcdef",
    changedFiles: 2,
    insertions: 1,
    deletions: 0,
    files: [
      { path: "new.txt", oldPath: "old.txt", insertions: 1, deletions: 0, binary: false },
      { path: "x.bin", oldPath: null, insertions: null, deletions: null, binary: true },
    ],
  });
  assert.match(text, /old\.txt => new\.txt\s+\+1 -0\nx\.bin\s+binary\n2 files changed/);
});
