import assert from "node:assert/strict";
import { NotifyTriggers, type TriggerSources } from "../../src/notify/triggers.ts";

function sources(overrides: Partial<TriggerSources> = {}): TriggerSources {
  return {
    session: () => ({ harness: "gemini", title: "t", project_root: "/p/app", origin: "api" }),
    pendingApproval: () => null,
    finalText: () => "last words",
    appendedSeq: () => 7,
    inFocus: () => false,
    ...overrides,
  };
}

const options = { afterMs: () => 20_000, stalledAfterMs: () => 120_000 };

Deno.test("NotifyTriggers: a working session silent for stalledAfter is stalled, once", () => {
  const triggers = new NotifyTriggers(sources(), options);
  triggers.notice("session.updated", { sessionId: "s", status: "running", activity: "working" }, 0);
  assert.equal(triggers.nextDueAt(), 120_000);
  assert.deepEqual(triggers.due(119_999), []);
  const [stalled] = triggers.due(120_000);
  assert.equal(stalled.event, "session.stalled");
  assert.deepEqual(triggers.due(500_000), [], "once per silence");
  triggers.notice("session.progress", { sessionId: "s", lastSeq: 3 }, 500_000);
  assert.equal(triggers.nextDueAt(), 620_000);
});

Deno.test("NotifyTriggers: an approval answered before afterSeconds is never notified", () => {
  const pending = new Set(["s r1", "s r2"]);
  const triggers = new NotifyTriggers(
    sources({
      pendingApproval: (s, r) => pending.has(`${s} ${r}`) ? { tool: "Edit", detail: "a.ts" } : null,
    }),
    options,
  );
  triggers.notice("approval.requested", { sessionId: "s", requestId: "r1" }, 0);
  triggers.notice("approval.requested", { sessionId: "s", requestId: "r2" }, 0);
  triggers.notice("approval.resolved", { sessionId: "s", requestId: "r1" }, 1_000);
  pending.delete("s r1");
  const due = triggers.due(20_000);
  assert.deepEqual(due.map((t) => [t.event, t.reason, t.detail]), [
    ["approval.waiting", "needs approval: Edit", "a.ts"],
  ]);
});

Deno.test("NotifyTriggers: failed sessions, routine results, and a turn once its result is committed", () => {
  let focused = false;
  const triggers = new NotifyTriggers(sources({ inFocus: () => focused }), options);
  const start = { sessionId: "s", status: "running", activity: "working" };
  triggers.notice("session.updated", start, 0);
  triggers.notice("session.updated", { ...start, activity: "idle" }, 1);
  assert.deepEqual(triggers.notice("session.progress", { sessionId: "s", lastSeq: 6 }, 2), []);
  const [turn] = triggers.notice("session.progress", { sessionId: "s", lastSeq: 7 }, 3);
  assert.deepEqual([turn.event, turn.detail], ["turn.finished", "last words"]);
  focused = true;
  triggers.notice("session.updated", start, 4);
  triggers.notice("session.updated", { ...start, activity: "idle" }, 5);
  assert.deepEqual(triggers.notice("session.progress", { sessionId: "s", lastSeq: 9 }, 6), []);
  const [failed] = triggers.notice("session.updated", { sessionId: "s", status: "failed" }, 7);
  assert.equal(failed.event, "session.failed");
  const [result] = triggers.notice("run.ended", {
    runId: "run_1",
    routineId: "nightly",
    sessionId: null,
    status: "timed_out",
  }, 8);
  assert.deepEqual([result.event, result.reason, result.detail], [
    "routine.result",
    'ran routine "nightly": timed_out',
    "Run run_1 timed_out",
  ]);
});

Deno.test("NotifyTriggers: a land that landed or failed is land.finished, naming the commit or the files (D34)", () => {
  const triggers = new NotifyTriggers(sources(), options);
  const [landed] = triggers.notice(
    "land.landed",
    { sessionId: "s", itemId: "lnd_1", commit: "a".repeat(40) },
    0,
  );
  assert.deepEqual(
    [landed.event, landed.reason, landed.detail],
    ["land.finished", "landed its work", `Landed as ${"a".repeat(12)}`],
  );
  const [failed] = triggers.notice(
    "land.failed",
    { sessionId: "s", code: "land_conflict", files: ["a.txt", "b.txt"] },
    1,
  );
  assert.deepEqual(
    [failed.event, failed.reason, failed.detail],
    ["land.finished", "could not land its work: land_conflict", "a.txt\nb.txt"],
  );
  assert.deepEqual(triggers.notice("land.checked", { sessionId: "s" }, 2), []);
});
