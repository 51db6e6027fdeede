/** The 201 record's last_seq is the seq of session.started, durable before the answer (issue 15). */
import assert from "node:assert/strict";
import { allEvents, fixtureHarnesses, startTestDaemon, waitForEnd } from "../helpers/daemon.ts";
import { removeTree, tempHome } from "../helpers/home.ts";

Deno.test("a new session's record says last_seq 1: its session.started event", async () => {
  const project = await Deno.realPath(await tempHome());
  await using t = await startTestDaemon({ configJson: { harnesses: fixtureHarnesses() } });
  try {
    const launched = await t.client.post<{ id: string; last_seq: number }>("/sessions", {
      projectRoot: project,
      harness: "fixture",
      prompt: "sleep 200; exit 0",
    });
    assert.equal(launched.status, 201);
    assert.equal(launched.body.last_seq, 1);
    await waitForEnd(t.client, launched.body.id);
    const [first] = await allEvents(t.client, launched.body.id);
    assert.deepEqual([first.seq, first.kind], [1, "session.started"]);
  } finally {
    await removeTree(project);
  }
});
