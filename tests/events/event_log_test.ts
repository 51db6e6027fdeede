import assert from "node:assert/strict";
import { EventLog } from "../../src/events/event_log.ts";
import { openDatabase } from "../../src/store/db.ts";
import { type EventRecord, EventsStore } from "../../src/store/events_store.ts";
import { SessionsStore } from "../../src/store/sessions_store.ts";
import { systemClock } from "../../src/clock.ts";
import { silentLogger } from "../../src/log.ts";
import { removeTree, tempHome } from "../helpers/home.ts";
import { runningSessionRow } from "../helpers/rows.ts";

async function withLog(fn: (log: EventLog, store: EventsStore) => Promise<void>, failFirst = 0) {
  const dir = await tempHome();
  const db = openDatabase(`${dir}/svc.db`);
  const sessions = new SessionsStore(db);
  for (const id of ["ses_a", "ses_b"]) {
    sessions.insert(runningSessionRow(id));
  }
  const real = new EventsStore(db);
  let failures = failFirst;
  const store = Object.assign(Object.create(real), {
    appendBatch(events: readonly EventRecord[]) {
      if (failures-- > 0) throw new Error("disk full");
      real.appendBatch(events);
    },
  }) as EventsStore;
  const log = new EventLog(store, systemClock, silentLogger);
  try {
    await fn(log, real);
  } finally {
    log.flush();
    db.close();
    await removeTree(dir);
  }
}

Deno.test("EventLog assigns gap-free seqs per session and resolves only when durable (D8)", async () => {
  await withLog(async (log, store) => {
    log.open("ses_a", 0);
    log.open("ses_b", 0);
    const appends = [];
    for (let i = 0; i < 50; i++) {
      appends.push(log.append("ses_a", "output", { i }));
      appends.push(log.append("ses_b", "output", { i }));
    }
    assert.equal(
      store.readAfter("ses_a", 0, 1000).length,
      0,
      "nothing is visible before the commit",
    );
    const records = await Promise.all(appends);
    assert.deepEqual(
      records.filter((r) => r.session_id === "ses_a").map((r) => r.seq),
      Array.from({ length: 50 }, (_, i) => i + 1),
    );
    assert.equal(store.readAfter("ses_a", 0, 1000).length, 50);
    assert.equal(store.readAfter("ses_b", 49, 1000)[0].seq, 50);
  });
});

Deno.test("EventLog keeps a failed batch and retries it: nothing is lost (issue 6 fault)", async () => {
  await withLog(async (log, store) => {
    log.open("ses_a", 0);
    const first = log.append("ses_a", "output", { n: 1 });
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(log.degraded, true);
    let writable = false;
    const waiting = log.whenWritable().then(() => writable = true);
    assert.equal(writable, false, "writers are held while commits fail");
    await first;
    await waiting;
    assert.equal(log.degraded, false);
    assert.deepEqual(store.readAfter("ses_a", 0, 10).map((e) => JSON.parse(e.payload_json)), [{
      n: 1,
    }]);
  }, 1);
});

Deno.test("EventLog wakes a waiting reader on commit and bounds waiters", async () => {
  await withLog(async (log) => {
    log.open("ses_a", 0);
    const stop = new AbortController();
    const waiting = log.waitForChange("ses_a", 30_000, { signal: stop.signal, maxWaiters: 1 });
    assert.equal(await log.waitForChange("ses_a", 30_000, { maxWaiters: 1 }), false);
    await log.append("ses_a", "output", {});
    assert.equal(await waiting, true);
    const aborted = log.waitForChange("ses_a", 30_000, { signal: stop.signal, maxWaiters: 1 });
    stop.abort();
    assert.equal(await aborted, true);
  });
});
