import assert from "node:assert/strict";
import { systemClock } from "../../src/clock.ts";
import { silentLogger } from "../../src/log.ts";
import { newLiveSession } from "../../src/sessions/live_session.ts";
import { MarkedReaper } from "../../src/sessions/process_tree.ts";
import { endOutcome, recordSessionEnd, sweepLeftovers } from "../../src/sessions/session_end.ts";
import type { ParkOutcome } from "../../src/sessions/park_record.ts";
import { FakeProcess } from "../fakes/spawner.ts";
import { runningSessionRow } from "../helpers/rows.ts";
import { withSessionLog } from "../helpers/session_log.ts";

const spawnRequest = { argv: ["x"], cwd: "/", env: {} };
const noPark = (): ParkOutcome => {
  throw new Error("a raw session never parks");
};

Deno.test("endOutcome() of a raw start: killed when asked, completed on a clean exit, failed otherwise", async (t) => {
  const cases = [
    { kill: true, exit: { code: 0, signal: null }, status: "killed" },
    { kill: false, exit: { code: 0, signal: null }, status: "completed" },
    { kill: false, exit: { code: 1, signal: null }, status: "failed" },
    { kill: false, exit: { code: 139, signal: "SIGSEGV" }, status: "failed" },
  ] as const;
  for (const { kill, exit, status } of cases) {
    await t.step(`${status} (exit ${exit.code}, ${exit.signal}, kill ${kill})`, async () => {
      const live = newLiveSession(runningSessionRow("ses_a"), new FakeProcess(spawnRequest));
      live.killRequested = kill;
      assert.deepEqual(await endOutcome(live, exit, noPark), { status, exit });
    });
  }
});

Deno.test("sweepLeftovers() after a kill SIGKILLs the start's group at once", async () => {
  await withSessionLog(async ({ home }) => {
    const process = new FakeProcess(spawnRequest);
    const live = newLiveSession(runningSessionRow("ses_a"), process);
    live.killRequested = true;
    sweepLeftovers(live, new MarkedReaper(home));
    assert.deepEqual(process.signals, ["SIGKILL"]);
    await new Promise((resolve) => setTimeout(resolve, 10)); // The reaper's scan runs.
  });
});

Deno.test("recordSessionEnd() records session.ended before the row, with finalize's fields", async () => {
  await withSessionLog(async ({ sessions, events, stored }) => {
    const row = runningSessionRow("ses_a");
    sessions.insert(row);
    events.open("ses_a", 0);
    const published: unknown[] = [];
    const ended = await recordSessionEnd(
      {
        sessions,
        events,
        clock: systemClock,
        log: silentLogger,
        publish: (kind, data) => published.push({ kind, ...data }),
        finalize: () => {
          // The event is not recorded yet when finalize runs (D20: counted before the end).
          assert.equal(stored.readAfter("ses_a", 0, 10).length, 0);
          return Promise.resolve({ title: "counted" });
        },
      },
      row,
      { status: "failed", exit: { code: 3, signal: null }, error: "boom" },
    );
    const [event] = stored.readAfter("ses_a", 0, 10);
    assert.equal(event.kind, "session.ended");
    assert.deepEqual(JSON.parse(event.payload_json), {
      status: "failed",
      exitCode: 3,
      signal: null,
      error: "boom",
    });
    assert.equal(ended.status, "failed");
    assert.equal(ended.exit_code, 3);
    assert.equal(ended.title, "counted");
    assert.equal(ended.activity, null);
    assert.notEqual(ended.ended_at, null);
    assert.deepEqual(published, [
      { kind: "session.updated", sessionId: "ses_a", status: "failed", activity: null },
    ]);
  });
});
