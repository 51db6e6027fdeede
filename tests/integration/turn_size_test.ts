/**
 * A conversation turn as large as the body limit allows is taken whole
 * through the real socket; a larger body is 413 naming the limit; a full
 * queue is 409 saying what it holds (D16, D6; issue 33 item 13).
 */
import assert from "node:assert/strict";
import { MAX_BODY_BYTES } from "../../src/policy/body.ts";
import { startTestDaemon, type TestDaemon } from "../helpers/daemon.ts";
import { removeTree, tempHome } from "../helpers/home.ts";
import { agentConfig, launchAgent, waitForKind } from "../helpers/scripted_agent.ts";

// deno-lint-ignore no-explicit-any
type Json = Record<string, any>;

/** A daemon with the scripted agent, and a session of it launched with `prompt` in a scratch project. */
async function withSession(
  prompt: string,
  fn: (t: TestDaemon, id: string) => Promise<void>,
): Promise<void> {
  await using t = await startTestDaemon({ configJson: agentConfig() });
  const project = await Deno.realPath(await tempHome());
  try {
    await fn(t, await launchAgent(t, project, { prompt }));
  } finally {
    await removeTree(project);
  }
}

Deno.test("a turn the body limit accepts is taken whole; a larger one is 413 naming the limit (issue 33 item 13)", async () => {
  await withSession("hello", async (t, id) => {
    await waitForKind(t, id, "agent.turn", 1);

    const large = await t.client.post<Json>(`/sessions/${id}/input`, { data: "x".repeat(400_000) });
    assert.equal(large.status, 200, JSON.stringify(large.body).slice(0, 500));
    assert.deepEqual(large.body, { ok: true, accepted: true, queued: false });
    const turns = await waitForKind(t, id, "agent.turn", 2);
    assert.equal(turns[1].status, "completed");

    // Two-byte characters: 1,000,000 bytes of UTF-8 in 500,000 characters, inside the body limit.
    const accented = await t.client.post<Json>(`/sessions/${id}/input`, {
      data: "é".repeat(500_000),
    });
    assert.equal(accented.status, 200, JSON.stringify(accented.body).slice(0, 500));
    await waitForKind(t, id, "agent.turn", 3);

    const over = await t.client.post<Json>(`/sessions/${id}/input`, {
      data: "x".repeat(MAX_BODY_BYTES),
    });
    assert.equal(over.status, 413);
    assert.equal(over.body.error.code, "payload_too_large");
    assert.equal(over.body.error.details.limit, MAX_BODY_BYTES);
    assert.match(over.body.error.message, new RegExp(`${MAX_BODY_BYTES} bytes`));
  });
});

Deno.test("turns queued behind a busy agent are refused past the queue's bytes, saying what it holds (D16)", async () => {
  await withSession("hang", async (t, id) => {
    await waitForKind(t, id, "agent.message", 1);
    const turn = "x".repeat(600_000);
    const first = await t.client.post<Json>(`/sessions/${id}/input`, { data: turn });
    assert.deepEqual(first.body, { ok: true, accepted: true, queued: true });
    const refused = await t.client.post<Json>(`/sessions/${id}/input`, { data: turn });
    assert.equal(refused.status, 409);
    assert.equal(refused.body.error.code, "session_input_backlogged");
    assert.match(refused.body.error.message, /has 1 turn \(600000 bytes\) queued/);
    assert.deepEqual(refused.body.error.details, {
      sessionId: id,
      queuedTurns: 1,
      queuedBytes: 600_000,
      limit: 1024 * 1024,
    });
    await t.client.post(`/sessions/${id}/kill`, { signal: "SIGKILL" });
  });
});
