/**
 * An agent that rewrites its worktree's git setup cannot make the daemon's
 * git run its programs (issue 33 item 1), end to end: the real socket, a
 * real repository, the real `git`, and the tampering agent
 * (tests/fixtures/tampering_agent.ts) as the session's harness.
 */
import assert from "node:assert/strict";
import { startTestDaemon, type TestDaemon, waitForEnd } from "../helpers/daemon.ts";
import { git, gitRepository } from "../helpers/git.ts";
import { removeTree } from "../helpers/home.ts";
import { markersIn, tamperingHarness, type TamperingVector } from "../helpers/worktree_rig.ts";

// deno-lint-ignore no-explicit-any
type AnyJson = Record<string, any>;

async function withTamperedSession(
  vector: TamperingVector,
  body: (t: TestDaemon, id: string, repo: string, markers: string) => Promise<void>,
) {
  const repo = await gitRepository();
  await using t = await startTestDaemon({
    configJson: { harnesses: { tamper: tamperingHarness() } },
  });
  const markers = `${t.home}/markers`;
  await Deno.mkdir(markers);
  try {
    const launch = await t.client.post<AnyJson>("/sessions", {
      projectRoot: repo,
      harness: "tamper",
      prompt: `${vector} ${markers}`,
      isolation: "worktree",
    });
    assert.equal(launch.status, 201, JSON.stringify(launch.body));
    const ended = await waitForEnd(t.client, launch.body.id) as AnyJson;
    assert.equal(ended.status, "completed", JSON.stringify(ended));
    // The end-of-session summary ran git on the worktree: none of the agent's programs.
    assert.deepEqual(markersIn(markers), []);
    await body(t, launch.body.id, repo, markers);
  } finally {
    await removeTree(repo);
  }
}

for (const vector of ["gitfile", "gitdir"] as const) {
  Deno.test(`a session that replaced its worktree's .git (${vector}): diff and land answer worktree_tampered, nothing runs (issue 33)`, async () => {
    await withTamperedSession(vector, async (t, id, repo, markers) => {
      const session = (await t.client.get<AnyJson>(`/sessions/${id}`)).body;
      assert.match(session.worktree.error, /was tampered with: its \.git/);
      assert.equal(session.worktree.changedFiles, null);
      for (const path of ["worktree/diff", "worktree/diff?stat=1"]) {
        const refused = await t.client.get<AnyJson>(`/sessions/${id}/${path}`);
        assert.equal(refused.status, 409, JSON.stringify(refused.body));
        assert.equal(refused.body.error.code, "worktree_tampered");
        assert.match(refused.body.error.message, /was tampered with/);
        assert.equal(refused.body.error.details.path, session.worktree.path);
      }
      const head = await git(repo, "rev-parse", "HEAD");
      const land = await t.client.post<AnyJson>(`/sessions/${id}/worktree/land`, {
        mode: "squash",
      });
      assert.equal(land.status, 409, JSON.stringify(land.body));
      assert.equal(land.body.error.code, "worktree_tampered");
      assert.equal(await git(repo, "rev-parse", "HEAD"), head);
      const discard = await t.client.post<AnyJson>(`/sessions/${id}/worktree/discard`, {});
      assert.equal(discard.status, 409);
      assert.equal(discard.body.error.code, "worktree_tampered");
      const forced = await t.client.post<AnyJson>(`/sessions/${id}/worktree/discard`, {
        force: true,
      });
      assert.equal(forced.status, 200, JSON.stringify(forced.body));
      assert.equal((await git(repo, "branch", "--list", "svc/*")).trim(), "");
      assert.deepEqual(markersIn(markers), []);
    });
  });
}

Deno.test("a session that committed a nested repository with its own config: summary, diff and land run none of it (issue 33)", async () => {
  await withTamperedSession("submodule", async (t, id, repo, markers) => {
    const session = (await t.client.get<AnyJson>(`/sessions/${id}`)).body;
    assert.equal(session.worktree.error, null);
    const diff = await t.client.get<AnyJson>(`/sessions/${id}/worktree/diff`);
    assert.equal(diff.status, 200, JSON.stringify(diff.body));
    assert.match(diff.body.diff.data, /^\+Subproject commit /m);
    const land = await t.client.post<AnyJson>(`/sessions/${id}/worktree/land`, { mode: "merge" });
    assert.equal(land.status, 200, JSON.stringify(land.body));
    assert.equal((await git(repo, "ls-files", "--stage", "nested")).slice(0, 6), "160000");
    assert.deepEqual(markersIn(markers), []);
  });
});
