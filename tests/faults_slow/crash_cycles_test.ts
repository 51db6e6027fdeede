/**
 * The slow variant of tests/faults/scheduled_crash_test.ts (`deno task
 * test:faults`): several kill -9 / restart cycles on one home, each killing
 * the daemon at a random moment while plain sessions flood, a scheduled run
 * and a manual run are live and readers follow them. After every restart:
 * every served event is still there at its seq, every session of the cycle
 * is `orphaned` with a gap-free log, its runs are `failed` /
 * `daemon_restarted`, no occurrence has two runs, leftovers are killed, and
 * `PRAGMA integrity_check` is ok.
 *
 * FAULT_SEED replays the kill timings; FAULT_CYCLES sets the cycle count (default 4).
 */
import assert from "node:assert/strict";
import {
  alive,
  assertWholeLog,
  currentHourMs,
  delay,
  eventually,
  type FaultRig,
  faultRig,
  follow,
  type Json,
  killQuietly,
  openStore,
  readAll,
  routineDefinition,
  type ServedEvent,
} from "../faults/fault_rig.ts";
import { runSlow } from "./slow_gate.ts";

const SEED = Number(Deno.env.get("FAULT_SEED") || Math.floor(Math.random() * 0x7fffffff));
const CYCLES = Number(Deno.env.get("FAULT_CYCLES") || 4);
if (runSlow) console.log(`crash cycles: FAULT_SEED=${SEED} FAULT_CYCLES=${CYCLES}`);

/** mulberry32: a small seeded PRNG for the kill timings. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Watched {
  sessionId: string;
  runId: string | null;
  served: ServedEvent[];
  pid: number;
}

async function launch(rig: FaultRig, prompt: string): Promise<string> {
  const launched = await rig.client.post<Json>("/sessions", {
    projectRoot: rig.project,
    harness: "fixture",
    prompt,
  });
  assert.equal(launched.status, 201, JSON.stringify(launched.body));
  return launched.body.id;
}

/** An ACTIVE routine whose HH:00 occurrence is due now, claimed by a tick: a scheduled run. */
async function scheduledRun(
  rig: FaultRig,
  id: string,
): Promise<{ runId: string; sessionId: string }> {
  const dueMs = currentHourMs();
  const definition = routineDefinition(id, rig.project, {
    rrule: `FREQ=DAILY;BYHOUR=${new Date(dueMs).getUTCHours()}`,
    prompt: "out run-started; flood 100000000",
  });
  const created = await rig.action("svc.automations.create", { definition });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  // Planned up to just before HH:00 (as if ACTIVE since then): the next pass claims HH:00.
  const db = openStore(rig.home);
  const before = new Date(dueMs - 60_000).toISOString();
  db.prepare("UPDATE routines SET active_since = ?, last_planned_at = ? WHERE id = ?")
    .run(before, before, id);
  db.close();
  const tick = await rig.action("svc.automations.tick");
  assert.equal(tick.status, 200, JSON.stringify(tick.body));
  const claimed = tick.body.result.claimed.find((c: Json) => c.routineId === id);
  assert.ok(claimed, `tick claimed ${id}: ${JSON.stringify(tick.body.result)}`);
  const runs = await rig.action("svc.automations.runs", { id });
  const run = runs.body.result.runs.find((r: Json) => r.id === claimed.runId);
  assert.equal(run?.status, "running", JSON.stringify(run));
  return { runId: run.id, sessionId: run.sessionId };
}

Deno.test({
  name: "kill -9 at random moments over several restart cycles",
  ignore: !runSlow,
  fn: killCycles,
});

async function killCycles(): Promise<void> {
  const random = prng(SEED);
  await using rig = await faultRig();
  const manual = routineDefinition("manual", rig.project, {
    status: "PAUSED",
    prompt: "out run-started; errflood 100000000",
  });
  assert.equal((await rig.action("svc.automations.create", { definition: manual })).status, 200);
  const everyRun = new Set<string>();

  for (let cycle = 1; cycle <= CYCLES; cycle++) {
    const live: Array<{ sessionId: string; runId: string | null }> = [
      { sessionId: await launch(rig, "flood 100000000"), runId: null },
      { sessionId: await launch(rig, "errflood 100000000"), runId: null },
      await scheduledRun(rig, `sched-${cycle}`),
    ];
    const manualRun = await rig.action("svc.automations.run", { id: "manual" });
    assert.equal(manualRun.body.result.status, "running", JSON.stringify(manualRun.body));
    live.push({ sessionId: manualRun.body.result.sessionId, runId: manualRun.body.result.runId });

    const watched: Watched[] = await Promise.all(live.map(async ({ sessionId, runId }) => {
      const target = 100 + Math.floor(random() * 3000);
      const served = await follow(rig.client, sessionId, (events) => events.length >= target, {
        timeoutMs: 60_000,
      });
      const started = served.find((event) => event.kind === "session.started");
      return { sessionId, runId, served, pid: JSON.parse(started!.payload_json).pid };
    }));
    await delay(Math.floor(random() * 300));
    await rig.kill9();
    await rig.start();

    for (const { sessionId, runId, served, pid } of watched) {
      const record = await rig.client.get<Json>(`/sessions/${sessionId}`);
      assert.equal(record.body.status, "orphaned", `cycle ${cycle} ${sessionId}`);
      const stored = await readAll(rig.client, sessionId);
      assert.deepEqual(stored.slice(0, served.length), served, `cycle ${cycle}: served prefix`);
      assert.equal(assertWholeLog(stored).status, "orphaned");
      await eventually(`leftover ${pid} to be killed`, () => alive(pid) ? undefined : true)
        .finally(() => killQuietly(pid));
      if (runId === null) continue;
      everyRun.add(runId);
      const routineId = record.body.routine_id;
      const runs = (await rig.action("svc.automations.runs", { id: routineId, limit: 100 })).body
        .result.runs as Json[];
      const run = runs.find((r) => r.id === runId);
      assert.equal(run?.status, "failed", JSON.stringify(run));
      assert.equal(run?.error.code, "daemon_restarted");
    }
    const tick = await rig.action("svc.automations.tick");
    assert.deepEqual(tick.body.result.claimed, [], `cycle ${cycle}: nothing runs again`);
    const db = openStore(rig.home);
    try {
      const check = db.prepare("PRAGMA integrity_check").get() as { integrity_check: string };
      assert.equal(check.integrity_check, "ok", `cycle ${cycle}`);
      const twice = db.prepare(
        `SELECT routine_id, scheduled_for, COUNT(*) AS n FROM runs
         WHERE scheduled_for IS NOT NULL GROUP BY routine_id, scheduled_for HAVING n > 1`,
      ).all();
      assert.deepEqual(twice, [], "no occurrence has two runs");
      const running = db.prepare("SELECT id FROM runs WHERE status = 'running'").all();
      assert.deepEqual(running, [], "no run is left running");
    } finally {
      db.close();
    }
  }
  assert.equal(everyRun.size, CYCLES * 2);
  const sessions = await rig.client.get<Json[]>("/sessions?limit=1000");
  assert.equal(sessions.body.length, CYCLES * 4, "one session per launch, none relaunched");
}
