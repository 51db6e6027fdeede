/** maxLiveSessions holds under parallel launches (issue 13: 112 live of 64 before). */
import assert from "node:assert/strict";
import { fixtureHarnesses, startTestDaemon } from "../helpers/daemon.ts";
import { removeTree, tempHome } from "../helpers/home.ts";

// deno-lint-ignore no-explicit-any
type Json = Record<string, any>;

Deno.test("parallel launches never pass maxLiveSessions: the limit is reserved atomically", async () => {
  const project = await Deno.realPath(await tempHome());
  await using t = await startTestDaemon({
    configJson: { harnesses: fixtureHarnesses(), maxLiveSessions: 3 },
    scheduler: false,
  });
  try {
    const answers = await Promise.all(
      Array.from({ length: 24 }, () =>
        t.client.post<Json>("/sessions", {
          projectRoot: project,
          harness: "fixture",
          prompt: "sleep 30000",
        })),
    );
    const statuses = answers.map((answer) => answer.status);
    assert.equal(statuses.filter((status) => status === 201).length, 3, statuses.join(","));
    assert.equal(statuses.filter((status) => status === 429).length, 21);
    for (const answer of answers.filter((a) => a.status === 429)) {
      assert.equal(answer.body.error.code, "too_many_sessions");
    }
    const live = (await t.client.get<Json[]>("/sessions?status=running")).body;
    assert.equal(live.length, 3);
    for (const session of live) {
      await t.client.post(`/sessions/${session.id}/kill`, { signal: "SIGKILL" });
    }
  } finally {
    await removeTree(project);
  }
});
