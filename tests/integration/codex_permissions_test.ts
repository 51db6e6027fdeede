/**
 * Codex permission requests through the real socket (issue 33 item 5, D18,
 * D28), with a scripted agent speaking codex app-server lines: the owner sees
 * the requested profile, the grant is what was shown, and an "always" for one
 * path does not grant a later request for `/` or for the network.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { startTestDaemon } from "../helpers/daemon.ts";
import { removeTree, tempHome } from "../helpers/home.ts";
import { act, waitForKind } from "../helpers/scripted_agent.ts";

type Json = Record<string, unknown>;

const agentScript = new URL("../fixtures/codex_app_server_agent.ts", import.meta.url).pathname;
const CONFIG = {
  harnesses: {
    codexlike: {
      command: [Deno.execPath(), "run", "-A", agentScript],
      protocol: "codex-app-server",
    },
  },
};

/** The `perms` turn asking `write` paths, and the network when `network`. */
const perms = (write: string[], network = false) =>
  `perms ${JSON.stringify({ network: { enabled: network }, fileSystem: { read: null, write } })}`;

Deno.test("an always grant of one path does not grant a later request for / or the network (issue 33)", async () => {
  await using t = await startTestDaemon({ configJson: CONFIG });
  const project = await Deno.realPath(await tempHome());
  try {
    const cache = join(project, "cache");
    const launched = await t.client.post<Json>("/sessions", {
      projectRoot: project,
      harness: "codexlike",
      prompt: perms([cache]),
      approvals: "ask",
    });
    assert.equal(launched.status, 201, JSON.stringify(launched.body));
    const id = launched.body.id as string;
    const pending = async (count: number) => {
      await waitForKind(t, id, "agent.permission", count);
      const listed = await act(t, "svc.sessions.approvals", { sessionId: id });
      return listed.result.approvals as Json[];
    };
    const [first] = await pending(1);
    assert.deepEqual(first.profile, { network: false, read: [], write: [cache] });
    assert.match(first.summary as string, /write .*cache/);
    const answered = await act(t, "svc.sessions.approve", {
      sessionId: id,
      requestId: first.requestId,
      decision: "allow",
      remember: true,
    });
    assert.deepEqual(answered.result.rule.profile, { network: false, read: [], write: [cache] });
    const [turn] = await waitForKind(t, id, "agent.turn");
    assert.equal(
      turn.result,
      `granted: ${
        JSON.stringify({
          permissions: { fileSystem: { read: null, write: [cache] } },
          scope: "turn",
        })
      }`,
    );

    // Under the granted path: the rule answers.
    const input = async (data: string) =>
      assert.equal((await t.client.post<Json>(`/sessions/${id}/input`, { data })).status, 200);
    await input(perms([join(cache, "sub")]));
    const [, byRule] = await waitForKind(t, id, "agent.permission.resolved", 2);
    assert.deepEqual([byRule.by, byRule.ruleId], ["rule", answered.result.rule.id]);

    // Beyond it: asked again, each time.
    let asked = 2;
    for (const escalation of [perms(["/"]), perms([cache], true)]) {
      await input(escalation);
      const waitingNow = await pending(++asked);
      assert.equal(waitingNow.length, 1, `${escalation} waits for the owner`);
      const denied = await act(t, "svc.sessions.approve", {
        sessionId: id,
        requestId: waitingNow[0].requestId,
        decision: "deny",
      });
      assert.equal(denied.http, 200, JSON.stringify(denied));
      const turns = await waitForKind(t, id, "agent.turn", asked);
      assert.equal(
        turns.at(-1)!.result,
        `granted: ${JSON.stringify({ permissions: {}, scope: "turn" })}`,
      );
    }
  } finally {
    await removeTree(project);
  }
});
