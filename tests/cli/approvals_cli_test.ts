/** `svc approvals` and `svc approve` against a real `svc serve` (issue 10, D18). */
import assert from "node:assert/strict";
import { approvalsTable } from "../../src/cli/approvals.ts";
import { waitForEnd } from "../helpers/daemon.ts";
import { startCliDaemon } from "./cli_daemon.ts";

type Json = Record<string, unknown>;

Deno.test("approvalsTable() lists requests with their expiry, or says there are none", () => {
  assert.equal(approvalsTable([], 0), "No pending approvals");
  const now = Date.parse("2026-11-23T10:00:00Z");
  const text = approvalsTable([{
    sessionId: "ses_1",
    requestId: "req_1",
    tool: "Bash",
    summary: "Bash: touch\nx",
    requestedAt: "2026-11-23T10:00:00Z",
    expiresAt: "2026-11-23T10:04:10Z",
  }], now);
  assert.deepEqual(text.split("\n").map((line) => line.split(/\s{2,}/)), [
    ["SESSION", "REQUEST", "TOOL", "EXPIRES", "SUMMARY"],
    ["ses_1", "req_1", "Bash", "in 4m 10s", "Bash: touch x"],
  ]);
});

Deno.test("svc approvals lists a pending request; svc approve answers it once", async () => {
  await using d = await startCliDaemon();
  const launched = await d.client.post<Json>("/sessions", {
    projectRoot: d.project,
    harness: "agent",
    prompt: "ask Bash touch x",
    approvals: "ask",
  });
  const id = launched.body.id as string;
  let listed = "";
  const deadline = Date.now() + 20_000;
  while (!(listed = (await d.svc(["approvals"])).stdout).includes(id)) {
    assert.ok(Date.now() < deadline, `no pending request: ${listed}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.match(listed, /req_1\s+Bash\s+in \d+m \d+s\s+Bash: touch x/);
  const json = JSON.parse((await d.svc(["approvals", "--session", id, "--json"])).stdout);
  assert.equal(json.result.approvals.length, 1);

  const denied = await d.svc(["approve", id, "req_1", "--deny", "--message", "not here"]);
  assert.equal(denied.code, 0, denied.stderr);
  assert.equal(denied.stdout, `Denied req_1 of ${id}\n`);
  const again = await d.svc(["approve", id, "req_1"]);
  assert.equal(again.code, 1);
  assert.match(again.stderr, /^approval_not_pending: /);
  const unknown = await d.svc(["approve", id, "nope"]);
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /^approval_not_found: /);
  assert.equal((await d.svc(["approve", id])).code, 2, "a missing request id is a usage error");
  assert.equal((await d.svc(["approve", id, "r", "--deny", "--remember"])).code, 2);

  const page = await d.client.get<{ events: Json[] }>(`/sessions/${id}/events?kinds=agent.turn`);
  const deadlineTurn = Date.now() + 20_000;
  let turns = page.body.events;
  while (turns.length === 0) {
    assert.ok(Date.now() < deadlineTurn, "the turn never ended");
    await new Promise((resolve) => setTimeout(resolve, 50));
    turns = (await d.client.get<{ events: Json[] }>(`/sessions/${id}/events?kinds=agent.turn`))
      .body.events;
  }
  assert.equal(JSON.parse(turns[0].payload_json as string).result, "denied: not here");
  assert.equal((await d.svc(["approvals"])).stdout, "No pending approvals\n");
  await d.client.post(`/sessions/${id}/kill`, {});
  await waitForEnd(d.client, id);
});
