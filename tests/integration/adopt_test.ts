/**
 * Sessions started outside svc (D33), end to end through the real socket:
 * a Claude Code transcript (recorded from the pinned CLI) is discovered and
 * adopted by a claude-protocol harness (the scripted stream-json agent,
 * which takes `--resume`), an ACP agent's own `session/list` is read and
 * one of its sessions adopted through `session/load`, and each refusal is
 * a clear envelope. The real CLIs are proven in tests/real_agents/adopt_test.ts.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { claudeProjectDir } from "../../src/sessions/adoption/claude_store.ts";
import { allEvents, startTestDaemon, type TestDaemon, waitForEnd } from "../helpers/daemon.ts";
import { removeTree, tempHome } from "../helpers/home.ts";
import { place, recording } from "../sessions/adoption/store_fixtures.ts";

// deno-lint-ignore no-explicit-any
type Json = Record<string, any>;
const RECORDED = "db00716f-debf-4a65-a01e-0aed04fb5e3b";
const streamJsonAgent = new URL("../fixtures/stream_json_agent.ts", import.meta.url).pathname;
const acpAgent = new URL("../fixtures/acp_agent.ts", import.meta.url).pathname;

interface Rig {
  t: TestDaemon;
  project: string;
  outside: string;
}

async function withRig(fn: (rig: Rig) => Promise<void>, extraConfig: Json = {}): Promise<void> {
  const agentHome = await tempHome();
  const roots = await Deno.realPath(await tempHome());
  const project = join(roots, "project");
  await Deno.mkdir(project);
  const outside = await Deno.realPath(await tempHome());
  const claudeConfigDir = join(agentHome, ".claude");
  const transcript = join(
    claudeConfigDir,
    "projects",
    claudeProjectDir(project),
    `${RECORDED}.jsonl`,
  );
  await place(transcript, await recording("claude_transcript.jsonl", project));
  // The ACP agent lists its sessions from this file.
  const acpSessions = [
    {
      sessionId: "acp-session-1",
      cwd: project,
      title: "An ACP chat",
      updatedAt: "2026-11-28T10:00:00Z",
    },
    { sessionId: "acp-session-gone", cwd: join(roots, "gone"), title: "Gone", updatedAt: null },
    { sessionId: "acp-session-out", cwd: outside, title: "Outside", updatedAt: null },
  ];
  const listFile = join(agentHome, "acp-sessions.json");
  await Deno.writeTextFile(listFile, JSON.stringify(acpSessions));
  const t = await startTestDaemon({
    agentHomes: {
      claudeConfigDir,
      codexHome: join(agentHome, ".codex"),
      geminiHome: agentHome,
      dataHome: join(agentHome, ".local", "share"),
    },
    configJson: {
      projectRoots: [roots],
      harnesses: {
        agent: { command: [Deno.execPath(), "run", "-A", streamJsonAgent], protocol: "claude" },
        "acp-agent": {
          command: [Deno.execPath(), "run", "-A", acpAgent, `--list=${listFile}`],
          protocol: "acp",
        },
        raw: { command: [Deno.execPath(), "--version"], prompt: "none" },
      },
      ...extraConfig,
    },
  });
  try {
    await fn({ t, project, outside });
  } finally {
    await t[Symbol.asyncDispose]();
    await removeTree(agentHome);
    await removeTree(roots);
    await removeTree(outside);
  }
}

const discover = (t: TestDaemon, query: Record<string, string>) =>
  t.client.get<Json>(`/sessions/discover?${new URLSearchParams(query)}`);
const adopt = (t: TestDaemon, body: Json) => t.client.post<Json>("/sessions/adopt", body);

async function turn(t: TestDaemon, id: string, text: string, count: number): Promise<Json> {
  const input = await t.client.post<Json>(`/sessions/${id}/input`, { data: text });
  assert.equal(input.status, 200, JSON.stringify(input.body));
  const deadline = Date.now() + 20_000;
  for (;;) {
    const turns = (await allEvents(t.client, id)).filter((e) => e.kind === "agent.turn");
    if (turns.length >= count) return turns[count - 1].payload;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for turn ${count} of ${id}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

Deno.test("a Claude Code transcript is discovered, adopted with its history, and continued (D33)", async () => {
  await withRig(async ({ t, project }) => {
    const listed = await discover(t, { harness: "agent", cwd: project });
    assert.equal(listed.status, 200, JSON.stringify(listed.body));
    assert.deepEqual(listed.body, {
      sessions: [{
        agentSessionId: RECORDED,
        harness: "agent",
        cwd: project,
        title: "hello direct",
        lastActivityAt: listed.body.sessions[0].lastActivityAt,
      }],
      unavailable: [],
    });

    const adopted = await adopt(t, { harness: "agent", agentSessionId: RECORDED });
    assert.equal(adopted.status, 201, JSON.stringify(adopted.body));
    assert.equal(adopted.body.status, "running");
    assert.equal(adopted.body.cwd, project);
    assert.equal(adopted.body.title, "hello direct");
    assert.equal(adopted.body.resumes, 1);
    const id = adopted.body.id;

    const again = await adopt(t, { harness: "agent", agentSessionId: RECORDED });
    assert.equal(again.status, 409, "a live adopted session is not adopted twice");
    assert.equal(again.body.error.code, "session_live");
    assert.equal(again.body.error.details.sessionId, id);

    const answer = await turn(t, id, "next", 1);
    assert.equal(answer.status, "completed");
    assert.equal(answer.result, `echo (resumed ${RECORDED}): next`);
    const events = await allEvents(t.client, id);
    assert.deepEqual(events.slice(0, 4).map((e) => e.kind), [
      "session.adopted",
      "agent.message",
      "agent.message",
      "session.resumed",
    ]);
    assert.deepEqual(events[0].payload, {
      harness: "agent",
      agentSessionId: RECORDED,
      cwd: project,
      lastActivityAt: listed.body.sessions[0].lastActivityAt,
      imported: 2,
      transcript: "read",
    });
    assert.deepEqual(
      events.slice(1, 3).map((e) => e.payload),
      [
        { role: "user", text: "hello direct", imported: true, at: "2026-11-28T13:13:54.845Z" },
        {
          role: "assistant",
          text: "Answer direct",
          imported: true,
          at: events[2].payload.at,
        },
      ],
    );
    assert.deepEqual(events[3].payload, {
      agentSessionId: RECORDED,
      previousStatus: "completed",
      resumes: 1,
    });
    await t.client.post(`/sessions/${id}/close`, {});
    assert.equal((await waitForEnd(t.client, id)).status, "completed");
  });
});

Deno.test("an ACP agent's own session/list is discovered and a session adopted by session/load (D33)", async () => {
  await withRig(async ({ t, project }) => {
    const listed = await discover(t, { harness: "acp-agent", cwd: project });
    assert.equal(listed.status, 200, JSON.stringify(listed.body));
    assert.deepEqual(listed.body.sessions.map((s: Json) => s.agentSessionId), ["acp-session-1"]);

    const adopted = await adopt(t, { harness: "acp-agent", agentSessionId: "acp-session-1" });
    assert.equal(adopted.status, 201, JSON.stringify(adopted.body));
    const answer = await turn(t, adopted.body.id, "hi", 1);
    assert.equal(answer.result, "echo (loaded acp-session-1): hi");
    const [first] = await allEvents(t.client, adopted.body.id);
    assert.equal(first.kind, "session.adopted");
    assert.equal(first.payload.transcript, "unreadable", "svc reads no configured agent's files");
    await t.client.post(`/sessions/${adopted.body.id}/kill`, { signal: "SIGKILL" });
    await waitForEnd(t.client, adopted.body.id);
  });
});

Deno.test("discover and adopt refuse with clear envelopes (D33, D26)", async (s) => {
  await withRig(async ({ t, project, outside }) => {
    const refused = async (
      response: Promise<{ status: number; body: Json }>,
      status: number,
      code: string,
    ) => {
      const { status: got, body } = await response;
      assert.equal(got, status, JSON.stringify(body));
      assert.equal(body.error.code, code, JSON.stringify(body));
      return body.error;
    };
    await s.step("an unknown harness", async () => {
      await refused(discover(t, { harness: "nope" }), 400, "invalid_request");
      await refused(
        adopt(t, { harness: "nope", agentSessionId: RECORDED }),
        400,
        "invalid_request",
      );
    });
    await s.step("a raw harness has no conversations to list", async () => {
      await refused(discover(t, { harness: "raw" }), 409, "discover_unsupported");
    });
    await s.step("a directory outside the project roots", async () => {
      const error = await refused(discover(t, { cwd: outside }), 400, "invalid_request");
      assert.equal(error.details.field, "cwd");
      await refused(
        adopt(t, { harness: "agent", agentSessionId: RECORDED, cwd: outside }),
        400,
        "invalid_request",
      );
      await refused(
        adopt(t, { harness: "acp-agent", agentSessionId: "acp-session-out" }),
        400,
        "invalid_request",
      );
    });
    await s.step("an agent session the agent does not have", async () => {
      const error = await refused(
        adopt(t, { harness: "agent", agentSessionId: "0a0b0c0d-0000-4000-8000-000000000009" }),
        404,
        "agent_session_not_found",
      );
      assert.equal(error.details.harness, "agent");
    });
    await s.step("an id that is not in the agent's format", async () => {
      await refused(
        adopt(t, { harness: "agent", agentSessionId: "--help" }),
        400,
        "invalid_request",
      );
    });
    await s.step("a session whose directory is gone is not_resumable", async () => {
      const error = await refused(
        adopt(t, { harness: "acp-agent", agentSessionId: "acp-session-gone" }),
        409,
        "not_resumable",
      );
      assert.equal(error.details.reason, "paths_refused");
    });
    await s.step("a bad body", async () => {
      await refused(adopt(t, { harness: "agent" }), 400, "invalid_request");
      await refused(
        adopt(t, { harness: "agent", agentSessionId: RECORDED, x: 1 }),
        400,
        "invalid_request",
      );
    });
    await s.step("nothing was recorded by a refusal", async () => {
      const sessions = await t.client.get<Json[]>("/sessions");
      assert.deepEqual(sessions.body, []);
      assert.equal((await discover(t, { cwd: project })).status, 200);
    });
  });
});

Deno.test("an adoption whose resume is refused leaves the session failed and resumable (D33, D26)", async () => {
  await withRig(async ({ t, project }) => {
    const live = await t.client.post<Json>("/sessions", {
      harness: "agent",
      projectRoot: project,
      prompt: "hello",
    });
    assert.equal(live.status, 201, JSON.stringify(live.body));
    const refused = await adopt(t, { harness: "agent", agentSessionId: RECORDED });
    assert.equal(refused.status, 429, JSON.stringify(refused.body));
    assert.equal(refused.body.error.code, "too_many_sessions");

    const adopted = (await t.client.get<Json[]>("/sessions")).body.find((s) =>
      s.id !== live.body.id
    )!;
    assert.equal(adopted.status, "failed");
    assert.equal(adopted.resumable, true);
    const events = await allEvents(t.client, adopted.id);
    assert.deepEqual(events.map((e) => e.kind), [
      "session.adopted",
      "agent.message",
      "agent.message",
      "session.ended",
    ]);
    assert.match(String(events[3].payload.error), /maxLiveSessions/);

    await t.client.post(`/sessions/${live.body.id}/kill`, { signal: "SIGKILL" });
    await waitForEnd(t.client, live.body.id);
    const resumed = await t.client.post<Json>(`/sessions/${adopted.id}/resume`, {});
    assert.equal(resumed.status, 200, JSON.stringify(resumed.body));
    assert.equal(
      (await turn(t, adopted.id, "again", 1)).result,
      `echo (resumed ${RECORDED}): again`,
    );
    await t.client.post(`/sessions/${adopted.id}/kill`, { signal: "SIGKILL" });
    await waitForEnd(t.client, adopted.id);
  }, { maxLiveSessions: 1 });
});
