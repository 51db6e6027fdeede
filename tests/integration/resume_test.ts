/**
 * Conversations that outlive their process (D26), end to end through the
 * real socket with the scripted stream-json agent
 * (tests/fixtures/stream_json_agent.ts, which takes claude's `--resume`).
 * The real CLIs are proven in tests/real_agents/resume_test.ts.
 */
import assert from "node:assert/strict";
import {
  allEvents,
  fixtureHarnesses,
  freePort,
  restartTestDaemon,
  startTestDaemon,
  type TestDaemon,
  waitForEnd,
} from "../helpers/daemon.ts";
import { removeTree, tempHome } from "../helpers/home.ts";
import { httpRequest, rawHttp } from "../helpers/http.ts";
import { git, gitRepository } from "../helpers/git.ts";
import { routineDefinition } from "../helpers/routine.ts";

// deno-lint-ignore no-explicit-any
type Json = Record<string, any>;
const agentScript = new URL("../fixtures/stream_json_agent.ts", import.meta.url).pathname;

function config(extra: Json = {}): Json {
  return {
    harnesses: {
      ...fixtureHarnesses(),
      agent: { command: [Deno.execPath(), "run", "-A", agentScript], protocol: "claude" },
      "agent-dies": {
        command: [Deno.execPath(), "run", "-A", agentScript, "--exit-before-init"],
        protocol: "claude",
      },
    },
    ...extra,
  };
}

async function withProject(fn: (project: string) => Promise<void>): Promise<void> {
  const project = await Deno.realPath(await tempHome());
  try {
    await fn(project);
  } finally {
    await removeTree(project);
  }
}

async function launch(t: TestDaemon, body: Json): Promise<string> {
  const response = await t.client.post<Json>("/sessions", { harness: "agent", ...body });
  assert.equal(response.status, 201, JSON.stringify(response.body));
  return response.body.id;
}

async function waitForKind(t: TestDaemon, id: string, kind: string, count: number) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const events = (await allEvents(t.client, id)).filter((event) => event.kind === kind);
    if (events.length >= count) return events.map((event) => event.payload);
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${count} ${kind}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Two turns, then `/close`: an ended conversation with its agent session id. */
async function endedConversation(t: TestDaemon, body: Json): Promise<string> {
  const id = await launch(t, { prompt: "hello", ...body });
  await waitForKind(t, id, "agent.turn", 1);
  await t.client.post(`/sessions/${id}/input`, { data: "second" });
  await waitForKind(t, id, "agent.turn", 2);
  await t.client.post(`/sessions/${id}/close`, {});
  assert.equal((await waitForEnd(t.client, id)).status, "completed");
  return id;
}

const resume = (t: TestDaemon, id: string, body: Json = {}) =>
  t.client.post<Json>(`/sessions/${id}/resume`, body);

function assertGapFree(events: Array<{ seq: number }>): void {
  assert.deepEqual(events.map((event) => event.seq), events.map((_, i) => i + 1));
}

Deno.test("POST /sessions/{id}/resume continues the same session and log (D26)", async () => {
  await using t = await startTestDaemon({ configJson: config() });
  await withProject(async (project) => {
    const id = await endedConversation(t, { projectRoot: project });
    const ended = (await t.client.get<Json>(`/sessions/${id}`)).body;
    assert.deepEqual([ended.resumable, ended.resumes], [true, 0]);
    const input = await t.client.post<Json>(`/sessions/${id}/input`, { data: "x" });
    assert.equal(input.status, 409);
    assert.equal(input.body.error.code, "session_not_live", "input never resumes (C4)");

    const resumed = await resume(t, id);
    assert.equal(resumed.status, 200, JSON.stringify(resumed.body));
    assert.equal(resumed.body.id, id);
    assert.equal(resumed.body.status, "running");
    assert.equal(resumed.body.resumes, 1);
    assert.equal(resumed.body.resumable, false, "a live session is not resumable");
    await t.client.post(`/sessions/${id}/input`, { data: "third" });
    const turns = await waitForKind(t, id, "agent.turn", 3);
    assert.equal(turns[2].result, "echo (resumed fixture-session-1): third");
    assert.equal(turns[2].turn, 3, "turn numbers go on");

    const events = await allEvents(t.client, id);
    assertGapFree(events);
    const seam = events.findIndex((event) => event.kind === "session.resumed");
    assert.equal(events[seam - 1].kind, "session.ended");
    assert.deepEqual(events[seam].payload, {
      agentSessionId: "fixture-session-1",
      previousStatus: "completed",
      resumes: 1,
    });
    const record = (await t.client.get<Json>(`/sessions/${id}`)).body;
    assert.equal(record.turns, 3);
    assert.deepEqual(
      [record.usage.inputTokens, record.usage.outputTokens],
      [36, 15],
      "usage adds up: 3 turns of 10 + 2 cached in, 5 out",
    );
    assert.equal(Math.round(record.usage.costUsd * 100), 3);
    await t.client.post(`/sessions/${id}/close`, {});
    const again = await waitForEnd(t.client, id);
    assert.equal(again.status, "completed");
    assert.equal(again.resumable, true);
  });
});

Deno.test("resume is refused: raw harness, no agent session id, live, unknown (D26)", async () => {
  await using t = await startTestDaemon({ configJson: config() });
  await withProject(async (project) => {
    const raw = await launch(t, { harness: "fixture", projectRoot: project, prompt: "exit 0" });
    await waitForEnd(t.client, raw);
    const rawResume = await resume(t, raw);
    assert.equal(rawResume.status, 409);
    assert.equal(rawResume.body.error.code, "not_resumable");
    assert.equal(rawResume.body.error.details.reason, "not_a_conversation");
    assert.equal((await t.client.get<Json>(`/sessions/${raw}`)).body.resumable, false);

    const dies = await launch(t, { harness: "agent-dies", projectRoot: project, prompt: "hi" });
    assert.equal((await waitForEnd(t.client, dies)).status, "failed");
    const noId = await resume(t, dies);
    assert.equal(noId.status, 409);
    assert.equal(noId.body.error.code, "not_resumable");
    assert.equal(noId.body.error.details.reason, "no_agent_session_id");

    const live = await launch(t, { projectRoot: project, prompt: "hello" });
    await waitForKind(t, live, "agent.turn", 1);
    const liveResume = await resume(t, live);
    assert.equal(liveResume.status, 409);
    assert.equal(liveResume.body.error.code, "session_live");
    await t.client.post(`/sessions/${live}/kill`, {});
    await waitForEnd(t.client, live);

    assert.equal((await resume(t, "ses_unknown")).status, 404);
    const bad = await resume(t, live, { model: "m", extra: 1 });
    assert.equal(bad.status, 400);
  });
});

Deno.test("20 concurrent resumes start exactly one agent (D26)", async () => {
  await using t = await startTestDaemon({ configJson: config() });
  await withProject(async (project) => {
    const id = await endedConversation(t, { projectRoot: project });
    const answers = await Promise.all(Array.from({ length: 20 }, () => resume(t, id)));
    const statuses = answers.map((answer) => answer.status).sort();
    assert.deepEqual(statuses, [200, ...Array(19).fill(409)]);
    for (const answer of answers.filter((a) => a.status === 409)) {
      assert.equal(answer.body.error.code, "session_live");
    }
    const seams = (await allEvents(t.client, id)).filter((e) => e.kind === "session.resumed");
    assert.equal(seams.length, 1);
    await t.client.post(`/sessions/${id}/close`, {});
    await waitForEnd(t.client, id);
  });
});

Deno.test("a resume within 2 s of the end survives the sweep of the ended start (issue 38 item 5)", async () => {
  await using t = await startTestDaemon({ configJson: config() });
  await withProject(async (project) => {
    const id = await endedConversation(t, { projectRoot: project });
    const resumed = await resume(t, id);
    assert.equal(resumed.status, 200, JSON.stringify(resumed.body));
    // The ended start's leftovers get SIGKILL 2 s after its end: the resumed agent is not one.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    assert.equal((await t.client.get<Json>(`/sessions/${id}`)).body.status, "running");
    await t.client.post(`/sessions/${id}/input`, { data: "still here" });
    const turns = await waitForKind(t, id, "agent.turn", 3);
    assert.equal(turns[2].result, "echo (resumed fixture-session-1): still here");
    await t.client.post(`/sessions/${id}/close`, {});
    assert.equal((await waitForEnd(t.client, id)).status, "completed");
  });
});

Deno.test("an agent that cannot resume ends the session failed again, its message logged (D26)", async () => {
  await using t = await startTestDaemon({ configJson: config() });
  await withProject(async (project) => {
    const id = await endedConversation(t, { projectRoot: project });
    await Deno.writeTextFile(`${project}/.fail-resume`, "");
    assert.equal((await resume(t, id)).status, 200);
    const failed = await waitForEnd(t.client, id);
    assert.equal(failed.status, "failed");
    const events = await allEvents(t.client, id);
    assertGapFree(events);
    const stderr = events.filter((e) => e.kind === "output" && e.payload.stream === "stderr")
      .map((e) => e.payload.data).join("");
    assert.match(stderr, /No conversation found with session ID: fixture-session-1/);
    assert.equal(events.at(-1)!.kind, "session.ended");
    // Nothing was lost: once the agent can load it again, the conversation goes on.
    await Deno.remove(`${project}/.fail-resume`);
    assert.equal(failed.resumable, true);
    assert.equal((await resume(t, id)).status, 200);
    await t.client.post(`/sessions/${id}/input`, { data: "back" });
    const turns = await waitForKind(t, id, "agent.turn", 3);
    assert.equal(turns[2].result, "echo (resumed fixture-session-1): back");
    await t.client.post(`/sessions/${id}/kill`, {});
    await waitForEnd(t.client, id);
  });
});

Deno.test("an isolated session resumes in its worktree; once pruned, 409 worktree_removed (D26)", async () => {
  const repo = await gitRepository();
  await using t = await startTestDaemon({ configJson: config() });
  try {
    const id = await launch(t, { projectRoot: repo, prompt: "pwd", isolation: "worktree" });
    const [first] = await waitForKind(t, id, "agent.turn", 1);
    await t.client.post(`/sessions/${id}/close`, {});
    const ended = await waitForEnd(t.client, id) as Json;
    assert.equal(first.result, `cwd: ${ended.worktree.path}`);
    assert.equal((await resume(t, id)).status, 200);
    await t.client.post(`/sessions/${id}/input`, { data: "pwd" });
    const turns = await waitForKind(t, id, "agent.turn", 2);
    assert.equal(turns[1].result, `cwd: ${ended.worktree.path}`, "the same worktree");
    await t.client.post(`/sessions/${id}/close`, {});
    await waitForEnd(t.client, id);

    const pruned = await t.client.post<Json>("/actions", {
      action: "svc.automations.prune",
      force: true,
    });
    assert.equal(pruned.body.result.removals[0].removed, true, JSON.stringify(pruned.body));
    const refused = await resume(t, id);
    assert.equal(refused.status, 409);
    assert.equal(refused.body.error.code, "worktree_removed");
    assert.equal((await t.client.get<Json>(`/sessions/${id}`)).body.resumable, false);
    assert.equal(await git(repo, "status", "--porcelain"), "");
  } finally {
    await removeTree(repo);
  }
});

Deno.test("a resume counts against maxLiveSessions like a launch (D26)", async () => {
  await using t = await startTestDaemon({ configJson: config({ maxLiveSessions: 1 }) });
  await withProject(async (project) => {
    const id = await endedConversation(t, { projectRoot: project });
    const live = await launch(t, { projectRoot: project, prompt: "hello" });
    const refused = await resume(t, id);
    assert.equal(refused.status, 429);
    assert.equal(refused.body.error.code, "too_many_sessions");
    await t.client.post(`/sessions/${live}/kill`, {});
    await waitForEnd(t.client, live);
    assert.equal((await resume(t, id)).status, 200);
    await t.client.post(`/sessions/${id}/kill`, {});
    await waitForEnd(t.client, id);
  });
});

Deno.test("a conversation ended by a daemon stop resumes after the restart (D26)", async () => {
  const home = await tempHome();
  try {
    await withProject(async (project) => {
      let id = "";
      {
        await using t = await startTestDaemon({ home, configJson: config() });
        id = await launch(t, { projectRoot: project, prompt: "hello" });
        await waitForKind(t, id, "agent.turn", 1);
      }
      await using t = await restartTestDaemon({ home, configJson: config() });
      const stopped = (await t.client.get<Json>(`/sessions/${id}`)).body;
      assert.equal(stopped.status, "killed");
      assert.equal(stopped.agent_session_id, "fixture-session-1");
      assert.equal(stopped.resumable, true);
      const resumed = await resume(t, id);
      assert.equal(resumed.status, 200);
      await t.client.post(`/sessions/${id}/input`, { data: "after restart" });
      const turns = await waitForKind(t, id, "agent.turn", 2);
      assert.equal(turns[1].result, "echo (resumed fixture-session-1): after restart");
      assertGapFree(await allEvents(t.client, id));
      await t.client.post(`/sessions/${id}/close`, {});
      await waitForEnd(t.client, id);
    });
  } finally {
    await removeTree(home);
  }
});

Deno.test("a routine run's session resumes for a follow-up; the run keeps its outcome (D26)", async () => {
  await using t = await startTestDaemon({ configJson: config() });
  await withProject(async (project) => {
    const act = (action: string, fields: Json) =>
      t.client.post<Json>("/actions", { action, ...fields });
    const created = await act("svc.automations.create", {
      definition: routineDefinition("follow-up", {
        runtime: "agent",
        prompt: "report",
        cwd: project,
      }),
    });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const run = (await act("svc.automations.run", { id: "follow-up" })).body.result;
    await waitForEnd(t.client, run.sessionId);
    const runStatus = async () => {
      for (;;) {
        const [latest] = (await act("svc.automations.runs", { id: "follow-up" })).body.result.runs;
        if (latest.status !== "running") return latest.status;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    };
    assert.equal(await runStatus(), "succeeded");
    assert.equal((await resume(t, run.sessionId)).status, 200);
    await t.client.post(`/sessions/${run.sessionId}/input`, { data: "fail" });
    const turns = await waitForKind(t, run.sessionId, "agent.turn", 2);
    assert.equal(turns[1].status, "failed");
    await t.client.post(`/sessions/${run.sessionId}/kill`, {});
    await waitForEnd(t.client, run.sessionId);
    assert.equal(await runStatus(), "succeeded", "the run keeps its own outcome");
  });
});

Deno.test("over TCP, resume is 403 before its body is read (D23, D26)", async () => {
  const port = freePort();
  await using t = await startTestDaemon({
    configJson: config(),
    tcp: { hostname: "127.0.0.1", port },
  });
  await withProject(async (project) => {
    const id = await endedConversation(t, { projectRoot: project });
    const response = await rawHttp(
      { hostname: "127.0.0.1", port },
      httpRequest("POST", `/api/v1/sessions/${id}/resume`, {
        host: `127.0.0.1:${port}`,
        headers: { "content-type": "application/json" },
        body: "{not json",
      }),
    );
    assert.equal(response.status, 403);
    assert.equal((response.body as Json).error.code, "forbidden");
    assert.equal((await t.client.get<Json>(`/sessions/${id}`)).body.status, "completed");
  });
});
