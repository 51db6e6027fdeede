/**
 * Issue 38 item 10, against a real `svc serve`: after a land, `svc worktrees
 * list` says LANDED, `prune` deletes the landed branch, and the approval rules
 * scoped to the session or its worktree go with the worktree (prune, discard).
 */
import assert from "node:assert/strict";
import { landedText } from "../../src/cli/worktrees.ts";
import { git, gitRepository } from "../helpers/git.ts";
import { removeTree } from "../helpers/home.ts";
import { isolatedSession } from "../helpers/isolated_session.ts";
import { type CliDaemon, startCliDaemon } from "./cli_daemon.ts";

// deno-lint-ignore no-explicit-any
type Json = Record<string, any>;

/** An ended isolated session with one committed change in its worktree. */
async function workedSession(d: CliDaemon, repo: string): Promise<{ id: string; path: string }> {
  const { id, path } = await isolatedSession(d, repo);
  await Deno.writeTextFile(`${path}/work.txt`, `work of ${id}\n`);
  await git(path, "add", "work.txt");
  await git(path, "commit", "-q", "-m", "agent: work");
  return { id, path };
}

async function addRule(d: CliDaemon, scope: Json): Promise<string> {
  const added = await d.client.post<Json>("/actions", {
    action: "svc.approvals.rules.add",
    decision: "allow",
    tool: "Bash",
    ...scope,
  });
  assert.equal(added.status, 200, JSON.stringify(added.body));
  return added.body.result.rule.id;
}

async function ruleIds(d: CliDaemon): Promise<string[]> {
  const listed = await d.client.get<Json>("/approval-rules");
  return listed.body.rules.map((rule: Json) => rule.id);
}

Deno.test("svc worktrees: LANDED after a land, prune deletes the landed branch, rules go with the worktree (issue 38 item 10)", async () => {
  await using d = await startCliDaemon();
  const repo = await gitRepository();
  try {
    const landed = await workedSession(d, repo);
    const kept = await workedSession(d, repo);
    const scoped = [
      await addRule(d, { sessionId: landed.id }),
      await addRule(d, { projectRoot: landed.path }),
      await addRule(d, { sessionId: kept.id }),
    ];
    const everywhere = await addRule(d, {});
    assert.deepEqual(await ruleIds(d), [...scoped, everywhere]);
    const land = await d.client.post<Json>(`/sessions/${landed.id}/worktree/land`, {
      mode: "squash",
    });
    assert.equal(land.status, 200, JSON.stringify(land.body));

    const listed = await d.svc(["worktrees", "list"]);
    assert.equal(listed.code, 0, listed.stderr);
    const [header, ...rows] = listed.stdout.trim().split("\n");
    assert.match(header, /SESSION\s+STATUS\s+CHANGES\s+LANDED\s+BRANCH\s+PATH/);
    const landedCommit = land.body.landed.landedCommit.slice(0, 7);
    assert.ok(
      rows.some((row) => row.includes(landed.id) && row.includes(`squash ${landedCommit}`)),
    );
    assert.ok(rows.some((row) => row.includes(kept.id) && / - /.test(row)));

    const pruned = await d.svc(["worktrees", "prune"]);
    assert.equal(pruned.code, 0, pruned.stderr);
    assert.match(
      pruned.stdout,
      new RegExp(`Removed .*${landed.id} and branch svc/session/${landed.id}`),
    );
    assert.match(
      pruned.stdout,
      new RegExp(`branch svc/session/${kept.id} kept: it has commits not landed`),
    );
    assert.equal((await git(repo, "branch", "--list", `svc/session/${landed.id}`)).trim(), "");
    assert.deepEqual(await ruleIds(d), [everywhere], "both sessions' worktrees are gone");

    // Discarding takes the rules of its session too.
    const discarded = await workedSession(d, repo);
    const discardedRule = await addRule(d, { sessionId: discarded.id });
    assert.deepEqual(await ruleIds(d), [everywhere, discardedRule]);
    const gone = await d.svc(["worktrees", "discard", discarded.id, "--force"]);
    assert.equal(gone.code, 0, gone.stderr);
    assert.deepEqual(await ruleIds(d), [everywhere]);
  } finally {
    await removeTree(repo);
  }
});

Deno.test("landedText() names the mode and the commit, or - before a land", () => {
  const record = { landedAt: null } as Parameters<typeof landedText>[0];
  assert.equal(landedText(record), "-");
  assert.equal(
    landedText({
      ...record,
      landedAt: "2026-11-28T10:00:00Z",
      landedMode: "merge",
      landedCommit: "0123456789",
    }),
    "merge 0123456",
  );
});
