/**
 * A real claude session (fake provider) asking permission while no face is
 * open produces the notification (issue 35, D31): a local receiver gets one
 * POST naming claude, the project and the command. Run with
 * `deno test -A tests/real_agents/notify_test.ts`.
 */
import assert from "node:assert/strict";
import { basename } from "node:path";
import { startAgentDaemon } from "./agent_daemon.ts";
import { requireAgent, runAgentTests } from "./agents_gate.ts";
import { startReceiver } from "../helpers/webhook_receiver.ts";

type Json = Record<string, unknown>;

const options = { ignore: !runAgentTests, sanitizeOps: false, sanitizeResources: false };

Deno.test(
  { name: "claude: a permission request no face answers is notified (D31)", ...options },
  async () => {
    requireAgent("claude");
    await using receiver = startReceiver();
    await using d = await startAgentDaemon("claude", {
      config: {
        notifications: { afterSeconds: 1, channels: [{ kind: "webhook", url: receiver.url }] },
      },
    });
    d.provider.script([
      {
        toolCall: {
          name: "Bash",
          arguments: { command: "touch notified.txt", description: "Create a file" },
        },
      },
      { text: "done" },
    ]);
    const id = await d.launch({
      prompt: "create a file",
      title: "make file",
      approvals: "ask",
      oneShot: true,
    });
    const [request] = await d.waitForKind(id, "agent.permission", 1);
    const [post] = await receiver.waitFor(1);
    const body = JSON.parse(post.body) as Json;
    assert.deepEqual([body.event, body.sessionId, body.harness, body.project], [
      "approval.waiting",
      id,
      "claude",
      basename(d.project),
    ]);
    assert.equal(body.title, `claude in ${basename(d.project)} (make file) needs approval: Bash`);
    assert.match(String(body.body), /touch notified\.txt/);
    assert.equal(body.url, null, "no web.origins: no link");
    const denied = await d.act("svc.sessions.approve", {
      sessionId: id,
      requestId: request.requestId,
      decision: "deny",
    });
    assert.equal(denied.ok, true, JSON.stringify(denied));
    await d.waitForEnd(id);
    assert.equal(receiver.received.length, 1);
  },
);
