/**
 * Issue 33 items 6 and 10: a resume re-runs the launch checks (D7, D20, D26)
 * on the world as it is now, and never hands the agent a recorded agent
 * session id that is not in its agent's format. Through the real daemon, with
 * the scripted stream-json agent and real git.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { agentConfig, launchAgent, waitForKind } from "../helpers/scripted_agent.ts";
import { git, gitRepository } from "../helpers/git.ts";
import * as daemons from "../helpers/daemon.ts";
import { removeTree, tempHome } from "../helpers/home.ts";

const { allEvents, restartTestDaemon, startTestDaemon, waitForEnd } = daemons;
type TestDaemon = daemons.TestDaemon;

// deno-lint-ignore no-explicit-any
type Json = Record<string, any>;

/** A conversation that answered `pwd` once and was closed: its id and record. */
async function endedConversation(t: TestDaemon, project: string, body: Json = {}) {
  const id = await launchAgent(t, project, { prompt: "pwd", ...body });
  await waitForKind(t, id, "agent.turn", 1);
  await t.client.post(`/sessions/${id}/close`, {});
  const ended = await waitForEnd(t.client, id) as Json;
  assert.equal(ended.status, "completed");
  return { id, ended };
}

/** The resume is refused with 409 and `reason`; nothing was started. */
async function assertRefused(t: TestDaemon, id: string, code: string, reason?: string) {
  const response = await t.client.post<Json>(`/sessions/${id}/resume`, {});
  assert.equal(response.status, 409, JSON.stringify(response.body));
  assert.equal(response.body.error.code, code);
  if (reason !== undefined) assert.equal(response.body.error.details.reason, reason);
  assert.equal((await t.client.get<Json>(`/sessions/${id}`)).body.status, "completed");
  const kinds = (await allEvents(t.client, id)).map((event) => event.kind);
  assert.equal(kinds.includes("session.resumed"), false, "no agent was started");
  return response.body.error;
}

async function tempDir(): Promise<string> {
  return await Deno.realPath(await tempHome());
}

Deno.test("resume refuses a cwd swapped for a symlink outside the project roots (issue 33 item 6)", async () => {
  const roots = await tempDir();
  const outside = await tempDir();
  const project = `${roots}/project`;
  await Deno.mkdir(`${project}/sub`, { recursive: true });
  try {
    await using t = await startTestDaemon({ configJson: agentConfig({ projectRoots: [roots] }) });
    const { id, ended } = await endedConversation(t, project, { cwd: "sub" });
    assert.equal(ended.cwd, `${project}/sub`);
    await Deno.remove(`${project}/sub`);
    await Deno.symlink(outside, `${project}/sub`);
    const error = await assertRefused(t, id, "not_resumable", "paths_refused");
    assert.equal(error.details.field, "cwd");
    assert.match(error.message, /outside the project root/);
  } finally {
    await removeTree(roots);
    await removeTree(outside);
  }
});

Deno.test("resume refuses a project outside the restarted daemon's --project-root (issue 33 item 6)", async () => {
  const home = await tempHome();
  const first = await tempDir();
  const second = await tempDir();
  try {
    let id = "";
    {
      await using t = await startTestDaemon({
        home,
        configJson: agentConfig(),
        projectRoots: [first],
      });
      id = (await endedConversation(t, first)).id;
    }
    await using t = await restartTestDaemon({
      home,
      configJson: agentConfig(),
      projectRoots: [second],
    });
    const error = await assertRefused(t, id, "not_resumable", "paths_refused");
    assert.equal(error.details.field, "projectRoot");
  } finally {
    await removeTree(home);
    await removeTree(first);
    await removeTree(second);
  }
});

Deno.test("resume refuses a worktree that is no longer the one svc made (issue 33 item 6)", async (t) => {
  const repo = await gitRepository();
  try {
    await using daemon = await startTestDaemon({ configJson: agentConfig() });
    await t.step("its path replaced by a symlink to the owner's checkout", async () => {
      const { id, ended } = await endedConversation(daemon, repo, { isolation: "worktree" });
      const path = ended.worktree.path;
      await Deno.rename(path, `${path}.moved`);
      await Deno.symlink(repo, path);
      await assertRefused(daemon, id, "not_resumable", "worktree_replaced");
      await Deno.remove(path);
      await Deno.rename(`${path}.moved`, path);
    });
    await t.step("a plain directory where git no longer has the worktree", async () => {
      const { id, ended } = await endedConversation(daemon, repo, { isolation: "worktree" });
      const path = ended.worktree.path;
      await git(repo, "worktree", "remove", "--force", path);
      await Deno.mkdir(path);
      await assertRefused(daemon, id, "not_resumable", "worktree_replaced");
    });
    assert.equal(await git(repo, "status", "--porcelain"), "", "nothing ran in the checkout");
  } finally {
    await removeTree(repo);
  }
});

Deno.test("resume refuses a recorded agent session id that is not its agent's format (issue 33 item 10)", async () => {
  const project = await tempDir();
  try {
    await using t = await startTestDaemon({ configJson: agentConfig() });
    const { id } = await endedConversation(t, project);
    const db = new DatabaseSync(`${t.home}/svc.db`);
    try {
      db.prepare("UPDATE sessions SET agent_session_id = ? WHERE id = ?")
        .run("--permission-mode=bypassPermissions", id);
    } finally {
      db.close();
    }
    await assertRefused(t, id, "not_resumable", "invalid_agent_session_id");
  } finally {
    await removeTree(project);
  }
});
