/** `GET /usage` and run records' usage through the real socket (D22). */
import assert from "node:assert/strict";
import { startTestDaemon, type TestDaemon, waitForEnd } from "../helpers/daemon.ts";
import { fixtureHarnesses } from "../helpers/daemon.ts";
import { removeTree, tempHome } from "../helpers/home.ts";
import { routineDefinition } from "../helpers/routine.ts";

// deno-lint-ignore no-explicit-any
type Json = Record<string, any>;
const agentScript = new URL("../fixtures/stream_json_agent.ts", import.meta.url).pathname;

async function launch(t: TestDaemon, project: string, harness: string, prompt: string) {
  const response = await t.client.post<Json>("/sessions", {
    projectRoot: project,
    harness,
    prompt,
    oneShot: true,
  });
  assert.equal(response.status, 201, JSON.stringify(response.body));
  return await waitForEnd(t.client, response.body.id) as Json;
}

Deno.test("svc usage totals equal the sum of the sessions' usage, by harness, routine and day (D22)", async () => {
  const project = await Deno.realPath(await tempHome());
  await using t = await startTestDaemon({
    configJson: {
      harnesses: {
        ...fixtureHarnesses(),
        agent: { command: [Deno.execPath(), "run", "-A", agentScript], protocol: "claude" },
        other: { command: [Deno.execPath(), "run", "-A", agentScript], protocol: "claude" },
      },
    },
    scheduler: false,
    hostZone: () => "Pacific/Auckland",
  });
  try {
    await launch(t, project, "agent", "one");
    await launch(t, project, "agent", "two");
    await launch(t, project, "other", "three");
    await launch(t, project, "fixture", "out raw; exit 0");
    await t.client.post("/actions", {
      action: "svc.automations.create",
      definition: routineDefinition("daily", {
        name: "Daily",
        runtime: "agent",
        prompt: "routine turn",
        cwd: project,
      }),
    });
    const started = (await t.client.post<Json>("/actions", {
      action: "svc.automations.run",
      id: "daily",
    })).body.result;
    await waitForEnd(t.client, started.sessionId);
    await t.daemon.runner.settled();
    const run = (await t.client.post<Json>("/actions", {
      action: "svc.automations.runs",
      id: "daily",
    })).body.result.runs[0];
    assert.deepEqual(run.usage, {
      inputTokens: 12,
      outputTokens: 5,
      cachedInputTokens: 2,
      costUsd: 0.01,
    });
    assert.equal(run.summary, "echo: routine turn");

    const sessions = (await t.client.get<Json[]>("/sessions")).body;
    assert.equal(sessions.length, 5);
    const sum = (figure: string) =>
      sessions.reduce((total, s) => total + (s.usage?.[figure] ?? 0), 0);
    const byHarness = (await t.client.get<Json>("/usage?by=harness")).body;
    assert.equal(byHarness.by, "harness");
    assert.equal(byHarness.timeZone, "Pacific/Auckland");
    assert.equal(byHarness.total.sessions, 5);
    assert.equal(byHarness.total.inputTokens, sum("inputTokens"));
    assert.equal(byHarness.total.outputTokens, sum("outputTokens"));
    assert.equal(byHarness.total.cachedInputTokens, sum("cachedInputTokens"));
    assert.ok(Math.abs(byHarness.total.costUsd - sum("costUsd")) < 1e-9);
    assert.deepEqual(byHarness.groups.map((g: Json) => [g.key, g.sessions, g.outputTokens]), [
      ["agent", 3, 15],
      ["fixture", 1, null], // A raw harness reports nothing: null, never 0.
      ["other", 1, 5],
    ]);
    const byRoutine = (await t.client.get<Json>("/usage?by=routine")).body;
    assert.deepEqual(byRoutine.groups.map((g: Json) => [g.key, g.sessions]), [
      [null, 4],
      ["daily", 1],
    ]);
    const today = Temporal.Now.plainDateISO("Pacific/Auckland").toString();
    const byDay = (await t.client.get<Json>("/usage?by=day")).body;
    assert.deepEqual(byDay.groups.map((g: Json) => [g.key, g.sessions]), [[today, 5]]);
    const future = (await t.client.get<Json>("/usage?since=2999-01-01")).body;
    assert.equal(future.total.sessions, 0);
    assert.equal(future.total.inputTokens, null);

    for (const query of ["by=week", "since=yesterday", "since=2026-13-01"]) {
      const bad = await t.client.get<Json>(`/usage?${query}`);
      assert.equal(bad.status, 400, query);
      assert.equal(bad.body.error.code, "invalid_request");
    }
  } finally {
    await removeTree(project);
  }
});
