/**
 * Sessions parked on a limit (D33) through the real daemon: the scripted
 * claude agent fails a turn on a subscription's usage limit in claude's own
 * shape; the clock is a FakeClock and the jitter's random number is fixed.
 */
import assert from "node:assert/strict";
import { FakeClock } from "../fakes/clock.ts";
import {
  restartTestDaemon,
  startTestDaemon,
  type TestDaemon,
  waitForEnd,
} from "../helpers/daemon.ts";
import { agentConfig, launchAgent, waitForKind } from "../helpers/scripted_agent.ts";
import { openSse } from "../helpers/sse.ts";
import { tempHome } from "../helpers/home.ts";
import { routineDefinition } from "../helpers/routine.ts";

type Json = Record<string, unknown>;
// deno-lint-ignore no-explicit-any
type Any = any;

const T0 = Date.UTC(2026, 10, 28, 9, 0, 0);
const RESET_S = T0 / 1000 + 3600; // The limit lifts an hour later.
const RESET_MS = RESET_S * 1000;
/** random() = 0.5: the timer fires 30 s after the reset. */
const JITTER_MS = 30_000;

async function parkedDaemon(
  autoResume: Json | null,
  options: { home?: string; clock?: FakeClock } = {},
): Promise<{ t: TestDaemon; clock: FakeClock; id: string; project: string }> {
  const home = options.home ?? await tempHome();
  const project = await Deno.makeTempDir();
  const clock = options.clock ?? new FakeClock(T0);
  const t = await startTestDaemon({
    home,
    clock,
    random: () => 0.5,
    configJson: agentConfig(autoResume === null ? {} : { autoResume }),
  });
  const id = await launchAgent(t, project, { prompt: `limit ${RESET_S}` });
  const ended = await waitForEnd(t.client, id);
  assert.equal(ended.status, "parked", JSON.stringify(ended));
  return { t, clock, id, project };
}

async function session(t: TestDaemon, id: string): Promise<Any> {
  return (await t.client.get<Json>(`/sessions/${id}`)).body;
}

Deno.test("a turn failed on a usage limit parks the session until its reset", async () => {
  const { t, clock, id } = await parkedDaemon(null);
  await using _ = t;
  const record = await session(t, id);
  assert.deepEqual(record.parked, {
    until: new Date(RESET_MS).toISOString(),
    reason: "usage_limit",
    autoResume: { state: "off", at: null, note: null },
  });
  assert.equal(record.resumable, true);
  const [parked] = await waitForKind(t, id, "session.parked");
  assert.equal(parked.parkedUntil, new Date(RESET_MS).toISOString());
  assert.equal(parked.autoResume, null);
  // Off by default: nothing happens after the reset.
  await clock.advance(2 * 3600_000);
  assert.equal((await session(t, id)).status, "parked");
  const listed = await t.client.get<Any>("/sessions?status=parked");
  assert.deepEqual(listed.body.map((row: Json) => row.id), [id]);
});

Deno.test("GET /health counts parked sessions and says when the first limit lifts", async () => {
  const { t, id } = await parkedDaemon(null);
  await using _ = t;
  const health = (await t.client.get<Any>("/health")).body;
  assert.equal(health.parkedSessions, 1, JSON.stringify(health));
  assert.equal(health.nextParkedUntil, new Date(RESET_MS).toISOString());
  assert.equal((await t.client.post<Any>(`/sessions/${id}/unpark`, {})).status, 200);
  const after = (await t.client.get<Any>("/health")).body;
  assert.equal(after.parkedSessions, 0);
  assert.equal(after.nextParkedUntil, null);
});

Deno.test("session.parked reaches the /stream feed", async () => {
  const home = await tempHome();
  await using t = await startTestDaemon({
    home,
    clock: new FakeClock(T0),
    random: () => 0.5,
    configJson: agentConfig(),
  });
  const feed = await openSse(t.socket, "/stream");
  try {
    const project = await Deno.makeTempDir();
    const id = await launchAgent(t, project, { prompt: `limit ${RESET_S}` });
    for (;;) {
      const message = await feed.next();
      assert.ok(message !== null, "the feed ended");
      if (message.event !== "session.parked") continue;
      const data = JSON.parse(message.data);
      assert.equal(data.sessionId, id);
      assert.equal(data.reason, "usage_limit");
      assert.equal(data.parkedUntil, new Date(RESET_MS).toISOString());
      break;
    }
  } finally {
    await feed.close();
  }
});

Deno.test("unpark resumes now and sends the interrupted turn again", async () => {
  const { t, id } = await parkedDaemon(null);
  await using _ = t;
  const response = await t.client.post<Any>(`/sessions/${id}/unpark`, {});
  assert.equal(response.status, 200, JSON.stringify(response.body));
  assert.equal(response.body.status, "running");
  const turns = await waitForKind(t, id, "agent.turn", 2);
  assert.equal(turns[1].status, "completed");
  assert.equal(turns[1].result, `echo (resumed fixture-session-1): limit ${RESET_S}`);
  const [unparked] = await waitForKind(t, id, "session.unparked");
  assert.deepEqual(unparked, { by: "owner", turns: 1 });
  const again = await t.client.post<Any>(`/sessions/${id}/unpark`, {});
  assert.equal(again.status, 409);
  assert.equal(again.body.error.code, "session_not_parked");
});

Deno.test("unpark --cancel stops the timer: the session stays parked and resumable", async () => {
  const { t, clock, id } = await parkedDaemon({ enabled: true });
  await using _ = t;
  const cancelled = await t.client.post<Any>(`/sessions/${id}/unpark`, { cancel: true });
  assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
  assert.equal(cancelled.body.status, "parked");
  assert.equal(cancelled.body.parked.autoResume.state, "cancelled");
  await clock.advance(2 * 3600_000);
  const record = await session(t, id);
  assert.equal(record.status, "parked");
  assert.equal(record.resumes, 0);
  assert.equal(record.resumable, true);
});

Deno.test("autoResume fires once at parkedUntil plus the jitter", async () => {
  const { t, clock, id } = await parkedDaemon({ enabled: true });
  await using _ = t;
  const record = await session(t, id);
  assert.equal(record.parked.autoResume.state, "waiting");
  assert.equal(record.parked.autoResume.at, new Date(RESET_MS + JITTER_MS).toISOString());
  await clock.advance(RESET_MS + JITTER_MS - 1 - clock.now());
  assert.equal((await session(t, id)).status, "parked", "not before the jitter");
  await clock.advance(1);
  const turns = await waitForKind(t, id, "agent.turn", 2);
  assert.equal(turns[1].result, `echo (resumed fixture-session-1): limit ${RESET_S}`);
  await clock.advance(3600_000);
  const after = await session(t, id);
  assert.equal(after.resumes, 1, "resumed exactly once");
  const unparked = await waitForKind(t, id, "session.unparked");
  assert.deepEqual(unparked, [{ by: "timer", turns: 1 }]);
});

Deno.test("a park whose time passed while the daemon was down fires once on start", async () => {
  const home = await tempHome();
  const clock = new FakeClock(T0);
  const { t, id } = await parkedDaemon({ enabled: true }, { home, clock });
  await t.daemon.stop();
  clock.set(RESET_MS + 3600_000);
  await using second = await restartTestDaemon({
    home,
    clock,
    random: () => 0.5,
    configJson: agentConfig({ autoResume: { enabled: true } }),
  });
  await clock.advance(1); // The fake clock fires even an overdue sleep only when it moves.
  const turns = await waitForKind(second, id, "agent.turn", 2);
  assert.equal(turns[1].status, "completed");
  await clock.advance(3600_000);
  assert.equal((await session(second, id)).resumes, 1);
});

Deno.test("maxPerDay bounds auto-resumes: then the session stays parked and says why", async () => {
  const home = await tempHome();
  const project = await Deno.makeTempDir();
  const clock = new FakeClock(T0);
  await using t = await startTestDaemon({
    home,
    clock,
    random: () => 0.5,
    configJson: agentConfig(),
  });
  const id = await launchAgent(t, project, {
    prompt: `limitalways ${RESET_S}`,
    autoResume: { enabled: true, maxPerDay: 1 },
  });
  assert.equal((await waitForEnd(t.client, id)).status, "parked");
  await clock.advance(RESET_MS + JITTER_MS - clock.now());
  await waitForKind(t, id, "session.parked", 2); // Resumed once, parked again at once.
  assert.equal((await waitForEnd(t.client, id)).status, "parked");
  // The reset is past: the second park waits from now, and its timer is refused.
  await clock.advance(2 * JITTER_MS);
  const [refused] = await waitForKind(t, id, "session.unparked", 2).then((all) => all.slice(1));
  assert.equal(refused.refused, "max_per_day");
  const record = await session(t, id);
  assert.equal(record.status, "parked");
  assert.equal(record.resumes, 1);
  assert.equal(record.parked.autoResume.state, "max_per_day");
  assert.match(record.parked.autoResume.note, /maxPerDay 1/);
});

Deno.test("unpark refuses what it cannot resume", async (t) => {
  await using daemon = await startTestDaemon({ configJson: agentConfig() });
  await t.step("an unknown session: 404", async () => {
    const response = await daemon.client.post<Any>("/sessions/ses_nope/unpark", {});
    assert.equal(response.status, 404);
  });
  await t.step("a completed session: 409 session_not_parked", async () => {
    const project = await Deno.makeTempDir();
    const id = await launchAgent(daemon, project, { prompt: "hello", oneShot: true });
    assert.equal((await waitForEnd(daemon.client, id)).status, "completed");
    const response = await daemon.client.post<Any>(`/sessions/${id}/unpark`, {});
    assert.equal(response.status, 409);
    assert.equal(response.body.error.code, "session_not_parked");
  });
});

Deno.test("a parked session whose worktree is gone: unpark answers not_resumable", async () => {
  const { t, id, project } = await parkedDaemon(null);
  await using _ = t;
  await Deno.remove(project, { recursive: true });
  const response = await t.client.post<Any>(`/sessions/${id}/unpark`, {});
  assert.equal(response.status, 409, JSON.stringify(response.body));
  assert.equal(response.body.error.code, "not_resumable");
  const record = await session(t, id);
  assert.equal(record.status, "parked", "still parked, the turn kept");
});

/** The newest run of routine `id`. */
async function lastRun(t: TestDaemon, id: string): Promise<Any> {
  const response = await t.client.post<Any>("/actions", { action: "svc.automations.runs", id });
  return response.body.result.runs[0];
}

Deno.test("a routine run left parked by a stopped daemon completes when its session ends", async () => {
  const home = await tempHome();
  const project = await Deno.makeTempDir();
  const clock = new FakeClock(T0);
  const configJson = agentConfig({ autoResume: { enabled: true } });
  const t = await startTestDaemon({ home, clock, random: () => 0.5, configJson });
  const created = await t.client.post<Any>("/actions", {
    action: "svc.automations.create",
    definition: routineDefinition("nightly", {
      runtime: "agent",
      prompt: `limit ${RESET_S}`,
      cwd: project,
      timeoutMinutes: 120,
    }),
  });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  const started = (await t.client.post<Any>("/actions", {
    action: "svc.automations.run",
    id: "nightly",
  })).body.result;
  const id = started.sessionId;
  assert.equal((await waitForEnd(t.client, id)).status, "parked");
  for (let i = 0; (await lastRun(t, "nightly")).status !== "parked"; i++) {
    assert.ok(i < 500, "the run never became parked");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  await t.daemon.stop();

  await using second = await restartTestDaemon({ home, clock, random: () => 0.5, configJson });
  assert.equal((await lastRun(second, "nightly")).status, "parked");
  await clock.advance(RESET_MS + JITTER_MS - clock.now());
  const turns = await waitForKind(second, id, "agent.turn", 2);
  assert.equal(turns[1].status, "completed");
  assert.equal((await waitForEnd(second.client, id)).status, "completed");
  await second.daemon.runner.settled();
  const run = await lastRun(second, "nightly");
  assert.equal(run.status, "succeeded", JSON.stringify(run));
  assert.equal(run.sessionId, id);
});
