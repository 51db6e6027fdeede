/**
 * The approval broker end to end through the real socket (issue 10, D18):
 * the scripted stream-json agent asks permission ("ask TOOL CMD"), the owner
 * answers with `svc.sessions.approve`. The real CLIs: tests/real_agents.
 */
import assert from "node:assert/strict";
import { freePort, startTestDaemon, type TestDaemon, waitForEnd } from "../helpers/daemon.ts";
import { removeTree, tempHome } from "../helpers/home.ts";
import { httpRequest, rawHttp } from "../helpers/http.ts";
import { routineDefinition } from "../helpers/routine.ts";
import { act, agentConfig, launchAgent, waitForKind } from "../helpers/scripted_agent.ts";

type Json = Record<string, unknown>;
// deno-lint-ignore no-explicit-any
type Any = any;

async function withDaemon(
  extra: Json,
  fn: (t: TestDaemon, project: string) => Promise<void>,
  options: { tcpPort?: number } = {},
): Promise<void> {
  await using t = await startTestDaemon({
    configJson: agentConfig(extra),
    ...(options.tcpPort ? { tcp: { hostname: "127.0.0.1", port: options.tcpPort } } : {}),
  });
  const project = await Deno.realPath(await tempHome());
  try {
    await fn(t, project);
  } finally {
    await removeTree(project);
  }
}

Deno.test("ask → the owner allows; the request is listed while pending (D18)", async () => {
  await withDaemon({}, async (t, project) => {
    const id = await launchAgent(t, project, { approvals: "ask" });
    const [request] = await waitForKind(t, id, "agent.permission");
    const record = (await t.client.get<Json>(`/sessions/${id}`)).body;
    assert.equal(record.approvals, "ask");
    assert.equal(record.activity, "waiting_approval");
    const listed = await act(t, "svc.sessions.approvals", {});
    assert.equal(listed.http, 200);
    assert.equal(listed.result.approvals.length, 1);
    const pending = listed.result.approvals[0];
    assert.deepEqual(
      { sessionId: pending.sessionId, requestId: pending.requestId, tool: pending.tool },
      { sessionId: id, requestId: request.requestId, tool: "Bash" },
    );
    assert.equal(pending.summary, "Bash: touch created.txt");
    assert.ok(Date.parse(pending.expiresAt) - Date.parse(pending.requestedAt) === 600_000);

    const approved = await act(t, "svc.sessions.approve", {
      sessionId: id,
      requestId: request.requestId,
      decision: "allow",
    });
    assert.equal(approved.http, 200, JSON.stringify(approved));
    assert.deepEqual(approved.result, {
      sessionId: id,
      requestId: request.requestId,
      decision: "allow",
      rule: null,
    });
    const [turn] = await waitForKind(t, id, "agent.turn");
    assert.equal(turn.result, "allowed");
    const [resolved] = await waitForKind(t, id, "agent.permission.resolved");
    assert.deepEqual(resolved, { requestId: request.requestId, decision: "allow", by: "owner" });
    assert.deepEqual((await act(t, "svc.sessions.approvals", { sessionId: id })).result, {
      approvals: [],
    });
    assert.equal((await t.client.get<Json>(`/sessions/${id}`)).body.activity, "idle");
  });
});

Deno.test("ask → the owner denies with a message; the agent gets it and goes on (D18)", async () => {
  await withDaemon({}, async (t, project) => {
    const id = await launchAgent(t, project, {});
    const [request] = await waitForKind(t, id, "agent.permission");
    const denied = await act(t, "svc.sessions.approve", {
      sessionId: id,
      requestId: request.requestId,
      decision: "deny",
      message: "not in this repo",
    });
    assert.equal(denied.http, 200);
    const [turn] = await waitForKind(t, id, "agent.turn");
    assert.equal(turn.status, "completed");
    assert.equal(turn.result, "denied: not in this repo");
  });
});

Deno.test("ask → nobody answers: denied by timeout, the turn completes (D18)", async () => {
  await withDaemon({ approvals: { timeoutSeconds: 0.2 } }, async (t, project) => {
    const id = await launchAgent(t, project, {});
    const [resolved] = await waitForKind(t, id, "agent.permission.resolved");
    assert.equal(resolved.by, "timeout");
    assert.equal(resolved.decision, "deny");
    const [turn] = await waitForKind(t, id, "agent.turn");
    assert.equal(turn.status, "completed");
  });
});

Deno.test("two requests under one id: the copy is denied at once, the first waits for the owner (D18, issue 28 item 7)", async () => {
  await withDaemon({}, async (t, project) => {
    const id = await launchAgent(t, project, { prompt: "askdup Bash touch created.txt" });
    const asked = await waitForKind(t, id, "agent.permission", 2);
    assert.equal(asked[0].requestId, asked[1].requestId);
    const [copy] = await waitForKind(t, id, "agent.permission.resolved");
    assert.deepEqual(copy, { requestId: asked[0].requestId, decision: "deny", by: "policy" });
    // The first is still pending: listed, and the session waits on it (not "working").
    const listed = await act(t, "svc.sessions.approvals", { sessionId: id });
    assert.equal(listed.result.approvals.length, 1);
    assert.equal(listed.result.approvals[0].requestId, asked[0].requestId);
    assert.equal((await t.client.get<Json>(`/sessions/${id}`)).body.activity, "waiting_approval");

    const approved = await act(t, "svc.sessions.approve", {
      sessionId: id,
      requestId: asked[0].requestId,
      decision: "allow",
    });
    assert.equal(approved.http, 200, JSON.stringify(approved));
    const resolved = await waitForKind(t, id, "agent.permission.resolved", 2);
    assert.deepEqual(resolved[1], {
      requestId: asked[0].requestId,
      decision: "allow",
      by: "owner",
    });
    // The agent got one answer per request it sent: the denial first, then the owner's.
    const [turn] = await waitForKind(t, id, "agent.turn");
    assert.match(
      turn.result as string,
      /^denied: Denied by svc: request "req_1" repeats .*, allowed$/,
    );
    assert.equal((await t.client.get<Json>(`/sessions/${id}`)).body.activity, "idle");
  });
});

Deno.test("policies deny and allow answer at once; config sets the default (D18)", async () => {
  await withDaemon({ approvals: { interactive: "allow" } }, async (t, project) => {
    const allowed = await launchAgent(t, project, {});
    assert.equal((await waitForKind(t, allowed, "agent.turn"))[0].result, "allowed");
    assert.deepEqual((await waitForKind(t, allowed, "agent.permission.resolved"))[0].by, "policy");
    const denied = await launchAgent(t, project, { approvals: "deny" });
    assert.match((await waitForKind(t, denied, "agent.turn"))[0].result as string, /^denied: /);
    const bad = await t.client.post<Any>("/sessions", {
      projectRoot: project,
      harness: "agent",
      prompt: "x",
      approvals: "sometimes",
    });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.details.field, "approvals");
  });
});

Deno.test("20 concurrent answers to one request: exactly one wins (D18)", async () => {
  await withDaemon({}, async (t, project) => {
    const id = await launchAgent(t, project, {});
    const [request] = await waitForKind(t, id, "agent.permission");
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        act(t, "svc.sessions.approve", {
          sessionId: id,
          requestId: request.requestId,
          decision: i % 2 === 0 ? "allow" : "deny",
        })),
    );
    const statuses = answers.map((answer) => answer.http).sort();
    assert.deepEqual(statuses, [200, ...Array(19).fill(409)]);
    for (const answer of answers.filter((answer) => answer.http === 409)) {
      assert.equal(answer.error.code, "approval_not_pending");
    }
    assert.equal((await waitForKind(t, id, "agent.permission.resolved")).length, 1);
  });
});

Deno.test("a kill resolves pending requests as ended; answering then is 409, unknown 404 (D18)", async () => {
  await withDaemon({}, async (t, project) => {
    const id = await launchAgent(t, project, {});
    const [request] = await waitForKind(t, id, "agent.permission");
    await t.client.post(`/sessions/${id}/kill`, {});
    await waitForEnd(t.client, id);
    const [resolved] = await waitForKind(t, id, "agent.permission.resolved");
    assert.deepEqual([resolved.decision, resolved.by], ["deny", "ended"]);
    const late = await act(t, "svc.sessions.approve", {
      sessionId: id,
      requestId: request.requestId,
      decision: "allow",
    });
    assert.equal(late.http, 409);
    assert.equal(late.error.code, "approval_not_pending");
    const unknown = await act(t, "svc.sessions.approve", {
      sessionId: id,
      requestId: "nope",
      decision: "allow",
    });
    assert.equal(unknown.http, 404);
    assert.equal(unknown.error.code, "approval_not_found");
    const invalid = await act(t, "svc.sessions.approve", { sessionId: id, decision: "maybe" });
    assert.equal(invalid.http, 400);
  });
});

Deno.test("an interrupt resolves the pending request as ended (D18)", async () => {
  await withDaemon({}, async (t, project) => {
    const id = await launchAgent(t, project, {});
    await waitForKind(t, id, "agent.permission");
    await t.client.post(`/sessions/${id}/interrupt`, {});
    const [resolved] = await waitForKind(t, id, "agent.permission.resolved");
    assert.equal(resolved.by, "ended");
    await t.client.post(`/sessions/${id}/kill`, {});
    await waitForEnd(t.client, id);
  });
});

Deno.test("over TCP approve is 403 AUTHORITY_REQUIRED before validation; the list is readable (D18)", async () => {
  const port = freePort();
  await withDaemon({}, async (t) => {
    const tcp = (body: Json) =>
      rawHttp(
        { hostname: "127.0.0.1", port },
        httpRequest("POST", "/api/v1/actions", {
          host: `127.0.0.1:${port}`,
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body),
        }),
      );
    for (const body of [{ action: "svc.sessions.approve" }, { action: "svc.sessions.x", y: 1 }]) {
      const response = await tcp(body);
      assert.equal(response.status, 403);
      assert.equal((response.body as Any).error.code, "AUTHORITY_REQUIRED");
    }
    const list = await tcp({ action: "svc.sessions.approvals" });
    assert.equal(list.status, 200);
    const capabilities = (await t.client.get<Any>("/capabilities")).body.capabilities;
    const sessions = capabilities.find((c: Json) => c.id === "svc.sessions");
    assert.deepEqual(sessions.actions, ["svc.sessions.approve", "svc.sessions.approvals"]);
    assert.equal(sessions.policy, "approval-required");
  }, { tcpPort: port });
});

Deno.test("a pending request runs notify.command with its details, no shell (D18, D21)", async () => {
  const out = await Deno.makeTempFile();
  const script = await Deno.makeTempFile({ suffix: ".ts" });
  await Deno.writeTextFile(
    script,
    `const keys = ["SVC_EVENT", "SVC_SESSION_ID", "SVC_REQUEST_ID", "SVC_TOOL", "SVC_SUMMARY"];
     await Deno.writeTextFile(Deno.args[0], JSON.stringify(Object.fromEntries(keys.map((k) => [k, Deno.env.get(k)]))));`,
  );
  try {
    const notify = { command: [Deno.execPath(), "run", "-A", script, out] };
    await withDaemon({ notify }, async (t, project) => {
      const id = await launchAgent(t, project, {});
      const [request] = await waitForKind(t, id, "agent.permission");
      const deadline = Date.now() + 20_000;
      let written = "";
      while ((written = await Deno.readTextFile(out)) === "") {
        assert.ok(Date.now() < deadline, "the notification never ran");
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.deepEqual(JSON.parse(written), {
        SVC_EVENT: "approval.requested",
        SVC_SESSION_ID: id,
        SVC_REQUEST_ID: request.requestId,
        SVC_TOOL: "Bash",
        SVC_SUMMARY: "Bash: touch created.txt",
      });
      await t.client.post(`/sessions/${id}/kill`, {});
      await waitForEnd(t.client, id);
    });
  } finally {
    await Deno.remove(out);
    await Deno.remove(script);
  }
});

Deno.test("an unattended routine run meets a request: denied by policy, the run finishes (D18)", async () => {
  await withDaemon({}, async (t, project) => {
    const created = await act(t, "svc.automations.create", {
      definition: routineDefinition("asker", {
        name: "Asker",
        runtime: "agent",
        prompt: "ask Bash touch created.txt",
        cwd: project,
      }),
    });
    assert.equal(created.http, 200, JSON.stringify(created));
    const run = await act(t, "svc.automations.run", { id: "asker" });
    const sessionId = run.result.sessionId as string;
    assert.equal((await waitForEnd(t.client, sessionId)).approvals, "deny");
    const [resolved] = await waitForKind(t, sessionId, "agent.permission.resolved");
    assert.deepEqual([resolved.decision, resolved.by], ["deny", "policy"]);
    await t.daemon.runner.settled();
    const runs = await act(t, "svc.automations.runs", { id: "asker" });
    assert.equal(runs.result.runs[0].status, "succeeded");
    assert.equal(runs.result.runs[0].permissionDenials, 1, "the run record says so");
  });
});
