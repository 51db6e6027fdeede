/**
 * An isolated routine run of the real claude CLI against the fake provider,
 * whose scripted tool call writes a file in the worktree; then `svc worktrees
 * diff` and `svc worktrees land` through the real CLI put that file on the
 * owner's branch (issue 24, D27). Run with `deno test -A tests/real_agents/land_test.ts`.
 */
import assert from "node:assert/strict";
import { withAgentAndRepo } from "./agent_daemon.ts";
import { runAgentTests } from "./agents_gate.ts";
import { git } from "../helpers/git.ts";
import { runSvc } from "../helpers/process.ts";
import { routineDefinition } from "../helpers/routine.ts";

type Json = Record<string, unknown>;

const options = { ignore: !runAgentTests, sanitizeOps: false, sanitizeResources: false };

Deno.test(
  {
    name: "claude: an isolated run's file is diffed and landed on the owner's branch (D27)",
    ...options,
  },
  withAgentAndRepo("claude", async (d, repo) => {
    d.provider.script([
      {
        toolCall: {
          name: "Bash",
          arguments: {
            command: "printf 'written by claude\\n' > landed.txt",
            description: "Write landed.txt",
          },
        },
      },
      { text: "file written" },
    ]);
    const created = await d.act("svc.automations.create", {
      definition: routineDefinition("land-claude", {
        name: "Write a file",
        runtime: "claude",
        prompt: "write landed.txt",
        cwd: repo,
        approvals: "allow",
        isolation: "worktree",
        outputTarget: { kind: "inbox" },
      }),
    });
    assert.equal(created.ok, true, JSON.stringify(created));
    const run = (await d.act("svc.automations.run", { id: "land-claude" })).result as Json;
    assert.equal(run.error ?? null, null, JSON.stringify(run));
    const sessionId = run.sessionId as string;
    await d.waitForEnd(sessionId);
    let record: Json = {};
    for (const deadline = Date.now() + 60_000;;) {
      const runs = await d.act("svc.automations.runs", { id: "land-claude" });
      [record] = (runs.result as { runs: Json[] }).runs;
      if (record.status !== "running" && record.delivery) break;
      assert.ok(Date.now() < deadline, JSON.stringify(record));
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(record.status, "succeeded", JSON.stringify(record));
    const result = await Deno.readTextFile((record.delivery as Json).path as string);
    assert.match(result, new RegExp(`svc worktrees land ${sessionId} --squash`));
    assert.match(result, /\+1 -0\s+landed\.txt/);
    assert.equal(await git(repo, "status", "--porcelain"), "", "the checkout is untouched");

    const home = ["--home", d.home];
    const diff = await runSvc(["worktrees", "diff", sessionId, ...home]);
    assert.equal(diff.code, 0, diff.stderr);
    assert.match(diff.stdout, /^\+\+\+ b\/landed\.txt$/m);
    assert.match(diff.stdout, /^\+written by claude$/m);
    const landed = await runSvc([
      "worktrees",
      "land",
      sessionId,
      "--squash",
      "-m",
      "Land claude's file",
      ...home,
    ]);
    assert.equal(landed.code, 0, landed.stderr);
    assert.match(landed.stdout, /^Landed on main \(squash\)/);
    assert.equal(await Deno.readTextFile(`${repo}/landed.txt`), "written by claude\n");
    assert.equal((await git(repo, "log", "-1", "--format=%s")).trim(), "Land claude's file");
    assert.equal(await git(repo, "status", "--porcelain"), "");
    const discarded = await runSvc(["worktrees", "discard", sessionId, ...home]);
    assert.equal(discarded.code, 0, discarded.stderr);
    d.provider.clearScript();
  }),
);
