/**
 * Gemini CLI loses a conversation loaded in the UTC minute its recording
 * started (issue 38 item 5): a resume of the built-in gemini in the minute
 * the session ended waits for the next minute and says so; an agent that
 * refused to load a conversation leaves it not resumable. The built-in
 * "gemini" runs the scripted ACP agent (tests/fixtures/acp_agent.ts) on a
 * fake clock.
 */
import assert from "node:assert/strict";
import { FakeClock } from "../fakes/clock.ts";
import { allEvents, startTestDaemon, type TestDaemon, waitForEnd } from "../helpers/daemon.ts";
import { removeTree, tempHome } from "../helpers/home.ts";
import { denoSpawner, type Spawner } from "../../src/sessions/spawner.ts";
import type { ProgramProber } from "../../src/sessions/harness_probe.ts";

// deno-lint-ignore no-explicit-any
type Json = Record<string, any>;
const acpAgent = new URL("../fixtures/acp_agent.ts", import.meta.url).pathname;

/** Gemini is installed (as "/fake/gemini"); nothing else is. */
const geminiOnly: ProgramProber = {
  find: (program) => Promise.resolve(program === "gemini" ? "/fake/gemini" : null),
  runVersion: () => Promise.resolve(true),
};

/** Runs the scripted ACP agent for `gemini`, counting its starts. */
function acpSpawner(starts: { count: number }): Spawner {
  return {
    spawn: (request) => {
      starts.count++;
      const argv = [Deno.execPath(), "run", "-A", acpAgent, ...request.argv.slice(1)];
      return denoSpawner.spawn({ ...request, argv });
    },
  };
}

async function eventually<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 800; i++) {
    const found = await probe();
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`Timed out waiting for ${what}`);
}

const turnResults = async (t: TestDaemon, id: string) =>
  (await allEvents(t.client, id)).filter((e) => e.kind === "agent.turn").map((e) =>
    e.payload.result
  );

/** A gemini conversation of one turn, closed, ended at the clock's time. */
async function endedGemini(t: TestDaemon, project: string): Promise<string> {
  const launched = await t.client.post<Json>("/sessions", {
    harness: "gemini",
    projectRoot: project,
    prompt: "hello",
  });
  assert.equal(launched.status, 201, JSON.stringify(launched.body));
  const id = launched.body.id;
  await eventually("the first turn", async () => (await turnResults(t, id))[0]);
  await t.client.post(`/sessions/${id}/close`, {});
  assert.equal((await waitForEnd(t.client, id)).status, "completed");
  return id;
}

Deno.test("a gemini resume in the minute of the end waits for the next minute and says so (issue 38 item 5)", async () => {
  const project = await Deno.realPath(await tempHome());
  const clock = new FakeClock(Date.parse("2026-03-02T12:00:10.000Z"));
  const starts = { count: 0 };
  await using t = await startTestDaemon({
    clock,
    prober: geminiOnly,
    spawner: acpSpawner(starts),
  });
  try {
    const id = await endedGemini(t, project);
    assert.equal(starts.count, 1);
    const resuming = t.client.post<Json>(`/sessions/${id}/resume`, {});
    const notice = await eventually(
      "the notice",
      async () => (await allEvents(t.client, id)).find((e) => e.kind === "agent.notice"),
    );
    assert.equal(notice.payload.level, "info");
    assert.match(
      String(notice.payload.message),
      /^Waiting 51 s, until 12:01:01 UTC, before Gemini CLI/,
    );
    assert.equal((await t.client.get<Json>(`/sessions/${id}`)).body.status, "running");
    await clock.advance(50_000);
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(starts.count, 1, "no agent starts within the minute of the end");
    await clock.advance(1_000);
    const resumed = await resuming;
    assert.equal(resumed.status, 200, JSON.stringify(resumed.body));
    assert.equal(starts.count, 2);
    // The agent replays a loaded conversation: the first turn waits for its silence.
    await eventually("the agent ready after its replay", async () => {
      await clock.advance(600);
      const { activity } = (await t.client.get<Json>(`/sessions/${id}`)).body;
      return activity === "idle" ? true : undefined;
    });
    await t.client.post(`/sessions/${id}/input`, { data: "again" });
    const results = await eventually("the resumed turn", async () => {
      const all = await turnResults(t, id);
      return all.length === 2 ? all : undefined;
    });
    assert.equal(results[1], "echo (loaded 00000000-0000-4000-8000-000000000001): again");
    await t.client.post(`/sessions/${id}/close`, {});
    await waitForEnd(t.client, id);

    // A minute later nothing waits.
    await clock.advance(60_000);
    assert.equal((await t.client.post<Json>(`/sessions/${id}/resume`, {})).status, 200);
    assert.equal(starts.count, 3);
    await t.client.post(`/sessions/${id}/kill`, {});
    await waitForEnd(t.client, id);

    // A clock set back before the end refuses rather than lose the conversation.
    clock.set(Date.parse("2026-03-02T11:00:00.000Z"));
    const refused = await t.client.post<Json>(`/sessions/${id}/resume`, {});
    assert.equal(refused.status, 409);
    assert.equal(refused.body.error.details.reason, "clock_before_end");
  } finally {
    await removeTree(project);
  }
});

Deno.test("an agent that refused to load a conversation leaves it not resumable (issue 38 item 5)", async () => {
  const project = await Deno.realPath(await tempHome());
  const clock = new FakeClock(Date.parse("2026-03-02T12:00:10.000Z"));
  await using t = await startTestDaemon({
    clock,
    prober: geminiOnly,
    spawner: acpSpawner({ count: 0 }),
  });
  try {
    const id = await endedGemini(t, project);
    await clock.advance(60_000);
    await Deno.writeTextFile(`${project}/.fail-load`, "");
    assert.equal((await t.client.post<Json>(`/sessions/${id}/resume`, {})).status, 200);
    const ended = await waitForEnd(t.client, id);
    assert.equal(ended.status, "failed");
    assert.equal(ended.resumable, false, "a lost conversation is never offered again");
    const errors = (await allEvents(t.client, id)).filter((e) => e.kind === "agent.error");
    assert.match(
      String(errors.at(-1)!.payload.message),
      /Agent refused "session\/load": Internal error/,
    );
    const again = await t.client.post<Json>(`/sessions/${id}/resume`, {});
    assert.equal(again.status, 409);
    assert.equal(again.body.error.details.reason, "agent_cannot_load");
  } finally {
    await removeTree(project);
  }
});
