/**
 * Standing approval rules through the real socket (issue 25, D28), with the
 * scripted stream-json agent ("ask Bash CMD"): rules survive a restart, TCP
 * reads them but cannot change them, "always" creates svc's own rule, and the
 * approval log lists decisions of every kind in the order they were made.
 */
import assert from "node:assert/strict";
import { freePort, restartTestDaemon, startTestDaemon, waitForEnd } from "../helpers/daemon.ts";
import type { TestDaemon } from "../helpers/daemon.ts";
import { gitRepository } from "../helpers/git.ts";
import { removeTree, tempHome } from "../helpers/home.ts";
import { httpRequest, rawHttp } from "../helpers/http.ts";
import { act, agentConfig, launchAgent, waitForKind } from "../helpers/scripted_agent.ts";

type Json = Record<string, unknown>;
// deno-lint-ignore no-explicit-any
type Any = any;

Deno.test("rules survive a daemon restart and decide before anyone is asked (D28)", async () => {
  const home = await tempHome();
  const project = await Deno.realPath(await tempHome());
  try {
    let ruleId: string;
    {
      await using t = await startTestDaemon({ home, configJson: agentConfig() });
      const added = await act(t, "svc.approvals.rules.add", {
        decision: "allow",
        command: ["touch"],
        projectRoot: project,
        note: "touch is fine",
      });
      assert.equal(added.http, 200, JSON.stringify(added));
      ruleId = added.result.rule.id;
      assert.match(ruleId, /^apr_/);
      // A rule must name something; an unknown field is refused.
      assert.equal((await act(t, "svc.approvals.rules.add", { decision: "allow" })).http, 400);
      assert.equal(
        (await act(t, "svc.approvals.rules.add", { decision: "allow", tool: "x", y: 1 })).http,
        400,
      );
    }
    await using t = await restartTestDaemon({ home, configJson: agentConfig() });
    const listed = await t.client.get<{ rules: Json[] }>("/approval-rules");
    assert.deepEqual(listed.body.rules.map((rule) => [rule.id, rule.command, rule.note]), [
      [ruleId, ["touch"], "touch is fine"],
    ]);
    const id = await launchAgent(t, project, { approvals: "ask" });
    const [turn] = await waitForKind(t, id, "agent.turn");
    assert.equal(turn.result, "allowed");
    const [resolved] = await waitForKind(t, id, "agent.permission.resolved");
    assert.deepEqual(resolved, {
      requestId: resolved.requestId,
      decision: "allow",
      by: "rule",
      ruleId,
    });
    // In another project the rule does not apply: asked, then denied by the session's policy.
    const elsewhere = await Deno.realPath(await tempHome());
    try {
      const other = await launchAgent(t, elsewhere, { approvals: "deny" });
      const [denied] = await waitForKind(t, other, "agent.permission.resolved");
      assert.deepEqual([denied.decision, denied.by], ["deny", "policy"]);
    } finally {
      await removeTree(elsewhere);
    }
    const removed = await act(t, "svc.approvals.rules.remove", { id: ruleId });
    assert.deepEqual(removed.result, { id: ruleId, removed: true });
    const again = await act(t, "svc.approvals.rules.remove", { id: ruleId });
    assert.deepEqual([again.http, again.error.code], [404, "approval_rule_not_found"]);
    assert.deepEqual((await t.client.get<Json>("/approval-rules")).body, { rules: [] });
  } finally {
    await removeTree(home);
    await removeTree(project);
  }
});

Deno.test("over TCP rules and the log are readable, adding and removing is 403 (D23, D28)", async () => {
  const port = freePort();
  await using t = await startTestDaemon({
    configJson: agentConfig(),
    tcp: { hostname: "127.0.0.1", port },
  });
  const added = await act(t, "svc.approvals.rules.add", { decision: "deny", command: ["rm"] });
  assert.equal(added.http, 200);
  const tcp = (method: string, path: string, body?: Json) =>
    rawHttp(
      { hostname: "127.0.0.1", port },
      httpRequest(method, `/api/v1${path}`, {
        host: `127.0.0.1:${port}`,
        headers: body ? { "content-type": "application/json" } : {},
        ...(body ? { body: JSON.stringify(body) } : {}),
      }),
    );
  const rules = await tcp("GET", "/approval-rules");
  assert.equal(rules.status, 200);
  assert.deepEqual((rules.body as Any).rules.map((rule: Json) => rule.id), [added.result.rule.id]);
  assert.equal((await tcp("GET", "/approvals/log")).status, 200);
  for (
    const body of [
      { action: "svc.approvals.rules.add", decision: "allow", tool: "shell" },
      { action: "svc.approvals.rules.remove", id: added.result.rule.id },
      { action: "svc.approvals.rules.x" },
    ]
  ) {
    const response = await tcp("POST", "/actions", body);
    assert.equal(response.status, 403, JSON.stringify(response.body));
    assert.equal((response.body as Any).error.code, "AUTHORITY_REQUIRED");
  }
  assert.equal((await t.client.get<Any>("/approval-rules")).body.rules.length, 1, "unchanged");
});

/**
 * Answers the first permission request of `sessionId` "always" in `scope`:
 * the request as `svc.sessions.approvals` listed it, and the rule it made.
 */
async function answerAlways(t: TestDaemon, sessionId: string, scope: string) {
  const [request] = await waitForKind(t, sessionId, "agent.permission");
  const [pending] = (await act(t, "svc.sessions.approvals", { sessionId })).result.approvals;
  const answered = await act(t, "svc.sessions.approve", {
    sessionId,
    requestId: request.requestId,
    decision: "allow",
    scope,
  });
  assert.equal(answered.http, 200, JSON.stringify(answered));
  return { pending, rule: answered.result.rule };
}

Deno.test("always creates svc's rule for the scope asked; the agent gets a plain allow (D28)", async () => {
  await using t = await startTestDaemon({ configJson: agentConfig() });
  const project = await Deno.realPath(await tempHome());
  try {
    const first = await launchAgent(t, project, { approvals: "ask" });
    const { pending, rule } = await answerAlways(t, first, "session");
    assert.deepEqual([pending.kind, pending.command, pending.argv, pending.projectRoot], [
      "shell",
      "touch created.txt",
      ["touch", "created.txt"],
      project,
    ]);
    assert.deepEqual(
      { ...rule, id: undefined, createdAt: undefined },
      {
        id: undefined,
        createdAt: undefined,
        decision: "allow",
        sessionId: first,
        tool: "shell",
        command: ["touch", "created.txt"],
      },
    );
    const [resolved] = await waitForKind(t, first, "agent.permission.resolved");
    assert.deepEqual([resolved.decision, resolved.by], ["allow", "owner"]);
    // The session's next identical request is allowed by the rule; another session is asked.
    await t.client.post(`/sessions/${first}/input`, { data: "ask Bash touch created.txt" });
    const both = await waitForKind(t, first, "agent.permission.resolved", 2);
    assert.deepEqual([both[1].by, both[1].ruleId], ["rule", rule.id]);
    const second = await launchAgent(t, project, { approvals: "deny" });
    const [other] = await waitForKind(t, second, "agent.permission.resolved");
    assert.equal(other.by, "policy");
    await t.client.post(`/sessions/${first}/kill`, {});
    await waitForEnd(t.client, first);
  } finally {
    await removeTree(project);
  }
});

Deno.test("the approval log lists decisions of every kind in order, paged (D28)", async () => {
  await using t = await startTestDaemon({
    configJson: agentConfig({ approvals: { timeoutSeconds: 1 } }),
  });
  const project = await Deno.realPath(await tempHome());
  try {
    const start = new Date().toISOString();
    const sessions: string[] = [];
    // rule
    const allowTouch = await act(t, "svc.approvals.rules.add", {
      decision: "allow",
      command: ["touch", "ruled.txt"],
    });
    sessions.push(await launchAgent(t, project, { prompt: "ask Bash touch ruled.txt" }));
    await waitForKind(t, sessions[0], "agent.permission.resolved");
    // owner
    sessions.push(await launchAgent(t, project, {}));
    const [request] = await waitForKind(t, sessions[1], "agent.permission");
    await act(t, "svc.sessions.approve", {
      sessionId: sessions[1],
      requestId: request.requestId,
      decision: "allow",
    });
    await waitForKind(t, sessions[1], "agent.permission.resolved");
    // policy
    sessions.push(await launchAgent(t, project, { approvals: "deny" }));
    await waitForKind(t, sessions[2], "agent.permission.resolved");
    // timeout
    sessions.push(await launchAgent(t, project, {}));
    await waitForKind(t, sessions[3], "agent.permission.resolved");
    // ended
    sessions.push(await launchAgent(t, project, {}));
    await waitForKind(t, sessions[4], "agent.permission");
    await t.client.post(`/sessions/${sessions[4]}/kill`, {});
    await waitForKind(t, sessions[4], "agent.permission.resolved");

    const log = await t.client.get<{ entries: Json[]; nextCursor: string | null }>(
      `/approvals/log?since=${start}`,
    );
    assert.equal(log.status, 200);
    assert.deepEqual(
      log.body.entries.map((e) => [e.sessionId, e.by, e.decision, e.tool, e.command, e.harness]),
      [
        [sessions[0], "rule", "allow", "Bash", "touch ruled.txt", "agent"],
        [sessions[1], "owner", "allow", "Bash", "touch created.txt", "agent"],
        [sessions[2], "policy", "deny", "Bash", "touch created.txt", "agent"],
        [sessions[3], "timeout", "deny", "Bash", "touch created.txt", "agent"],
        [sessions[4], "ended", "deny", "Bash", "touch created.txt", "agent"],
      ],
    );
    assert.equal(log.body.entries[0].ruleId, allowTouch.result.rule.id);
    assert.equal(log.body.nextCursor, null);
    // Paged: two at a time, the cursor carries on.
    const seen: string[] = [];
    let cursor: string | null = "";
    while (cursor !== null) {
      const page: { status: number; body: { entries: Json[]; nextCursor: string | null } } = await t
        .client.get(`/approvals/log?limit=2${cursor ? `&cursor=${cursor}` : ""}`);
      assert.ok(page.body.entries.length <= 2);
      seen.push(...page.body.entries.map((e) => e.by as string));
      cursor = page.body.nextCursor;
    }
    assert.deepEqual(seen, ["rule", "owner", "policy", "timeout", "ended"]);
    const one = await t.client.get<{ entries: Json[] }>(`/approvals/log?sessionId=${sessions[2]}`);
    assert.deepEqual(one.body.entries.map((e) => e.by), ["policy"]);
    const future = await t.client.get<{ entries: Json[] }>(
      "/approvals/log?since=2999-01-01T00:00:00Z",
    );
    assert.deepEqual(future.body.entries, []);
    assert.equal((await t.client.get("/approvals/log?since=yesterday")).status, 400);
    assert.equal((await t.client.get("/approvals/log?cursor=-1")).status, 400);
    for (const id of sessions) {
      await t.client.post(`/sessions/${id}/kill`, {});
      await waitForEnd(t.client, id);
    }
  } finally {
    await removeTree(project);
  }
});

Deno.test("a deny rule sees through git's global options and sudo's, on the real socket (issue 33)", async () => {
  await using t = await startTestDaemon({ configJson: agentConfig() });
  const project = await Deno.realPath(await tempHome());
  try {
    const denyPush = await act(t, "svc.approvals.rules.add", {
      decision: "deny",
      command: ["git", "push"],
    });
    const denyRm = await act(t, "svc.approvals.rules.add", { decision: "deny", command: ["rm"] });
    // Under `allow`, only a rule can deny.
    const id = await launchAgent(t, project, {
      approvals: "allow",
      prompt: "ask Bash git --no-pager push",
    });
    const [first] = await waitForKind(t, id, "agent.permission.resolved");
    assert.deepEqual([first.decision, first.by, first.ruleId], [
      "deny",
      "rule",
      denyPush.result.rule.id,
    ]);
    await t.client.post(`/sessions/${id}/input`, { data: "ask Bash sudo -u root rm -rf x" });
    const both = await waitForKind(t, id, "agent.permission.resolved", 2);
    assert.deepEqual([both[1].decision, both[1].by, both[1].ruleId], [
      "deny",
      "rule",
      denyRm.result.rule.id,
    ]);
    const turns = await waitForKind(t, id, "agent.turn", 2);
    assert.match(turns[1].result as string, /^denied: Denied by svc: approval rule apr_/);
    await t.client.post(`/sessions/${id}/kill`, {});
    await waitForEnd(t.client, id);
  } finally {
    await removeTree(project);
  }
});

Deno.test("always for this project from a worktree session covers the checkout and other isolated runs (issue 38 item 4)", async () => {
  await using t = await startTestDaemon({ configJson: agentConfig() });
  const repo = await gitRepository();
  try {
    const isolated = await launchAgent(t, repo, { approvals: "ask", isolation: "worktree" });
    const { pending, rule } = await answerAlways(t, isolated, "project");
    assert.equal(pending.projectRoot, repo, "the project of a worktree session is its repository");
    assert.equal(rule.projectRoot, repo);
    const ruleId = rule.id;
    // The repository's checkout and another isolated run of it: both allowed by the rule.
    const checkout = await launchAgent(t, repo, { approvals: "deny" });
    const other = await launchAgent(t, repo, { approvals: "deny", isolation: "worktree" });
    for (const id of [checkout, other]) {
      const [resolved] = await waitForKind(t, id, "agent.permission.resolved");
      assert.deepEqual([resolved.decision, resolved.by, resolved.ruleId], [
        "allow",
        "rule",
        ruleId,
      ]);
    }
    for (const id of [isolated, checkout, other]) {
      await t.client.post(`/sessions/${id}/kill`, {});
      await waitForEnd(t.client, id);
    }
  } finally {
    await removeTree(repo);
  }
});
