/**
 * Store-bound figures: a 1000-event page read on a session of 1 M events
 * (seeded with the real EventsStore before the daemon starts), and one
 * scheduler planning pass over 1000 ACTIVE routines.
 */
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { isoTime } from "../../src/clock.ts";
import { newId } from "../../src/ids.ts";
import { openDatabase } from "../../src/store/db.ts";
import { type EventRecord, EventsStore } from "../../src/store/events_store.ts";
import { SessionsStore } from "../../src/store/sessions_store.ts";
import { planOccurrences } from "../../src/automations/plan.ts";
import { parseRrule } from "../../src/automations/rrule.ts";
import { resolveTimeZone } from "../../src/automations/next_due.ts";
import { type BenchContext, makeHome } from "./context.ts";
import { seededRandom, shortLines } from "./data.ts";
import { UnixHttpClient } from "./http_client.ts";
import { startSvc } from "./processes.ts";
import { readPagesFromBoth } from "./page_reads.ts";
import { seededSessionRow } from "./seed_rows.ts";
import { type Figure, figure, median, percentile } from "./report.ts";

const PAGE = 1000;
const SEED_BATCH = 10_000;
const WARMUP_READS = 20;
const READ_SQL = `SELECT seq, id, session_id, kind, payload_json, created_at FROM events
  WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?`;

/** Seeds a completed session of `count` events through the real stores; returns its id. */
function seedSession(dbPath: string, count: number): { sessionId: string; seconds: number } {
  const started = performance.now();
  const db = openDatabase(dbPath);
  try {
    const baseMs = Date.parse("2026-01-01T00:00:00.000Z");
    const sessionId = newId("ses", baseMs);
    const created = isoTime(baseMs);
    new SessionsStore(db).insert(seededSessionRow(sessionId, created));
    const events = new EventsStore(db);
    const lines = shortLines(4096);
    const random = seededRandom(7);
    for (let first = 1; first <= count; first += SEED_BATCH) {
      const batch: EventRecord[] = [];
      for (let seq = first; seq < first + SEED_BATCH && seq <= count; seq++) {
        const atMs = baseMs + Math.floor(seq / 100);
        const kind = seq === 1 ? "session.started" : seq === count ? "session.ended" : "output";
        const payload = kind === "session.started"
          ? { harness: "bench", pid: 1, cwd: "/bench", prompt: "seeded" }
          : kind === "session.ended"
          ? { status: "completed", exitCode: 0, signal: null }
          : {
            stream: random() < 0.9 ? "stdout" : "stderr",
            data: lines[Math.floor(random() * lines.length)] + "\n",
          };
        batch.push({
          seq,
          id: newId("evt", atMs),
          session_id: sessionId,
          kind,
          payload_json: JSON.stringify(payload),
          created_at: isoTime(atMs),
        });
      }
      events.appendBatch(batch);
    }
    db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    return { sessionId, seconds: (performance.now() - started) / 1000 };
  } finally {
    db.close();
  }
}

/** A 1000-event page read on a 1 M-event session, through the API vs the raw SELECT. */
export async function pageRead(ctx: BenchContext): Promise<Figure[]> {
  const { pageEvents, pageReads } = ctx.sizes;
  const home = await makeHome(ctx, "page");
  const dbPath = join(home, "svc.db");
  const seeded = seedSession(dbPath, pageEvents);
  ctx.log(`page: seeded ${pageEvents} events in ${seeded.seconds.toFixed(1)} s`);
  const random = seededRandom(11);
  const offsets = Array.from(
    { length: WARMUP_READS + pageReads },
    () => Math.floor(random() * (pageEvents - PAGE)),
  );

  const { svc: svcRun, bare: bareRun } = await readPagesFromBoth(ctx, home, seeded.sessionId, {
    offsets,
    limit: PAGE,
    warmup: WARMUP_READS,
    expectFull: true,
  });
  const svcMs = svcRun.ms;
  const pageBytes = svcRun.bytes;

  const db = new DatabaseSync(dbPath, { readOnly: true });
  const selectMs: number[] = [];
  const selectJsonMs: number[] = [];
  try {
    const select = db.prepare(READ_SQL);
    for (const [index, afterSeq] of offsets.entries()) {
      const started = performance.now();
      const rows = select.all(seeded.sessionId, afterSeq, PAGE);
      const selected = performance.now();
      JSON.stringify(rows);
      const serialized = performance.now();
      if (rows.length !== PAGE) throw new Error(`The raw SELECT returned ${rows.length} rows`);
      if (index < WARMUP_READS) continue;
      selectMs.push(selected - started);
      selectJsonMs.push(serialized - started);
    }
  } finally {
    db.close();
  }
  const details = {
    sessionEvents: pageEvents,
    reads: pageReads,
    warmupReads: WARMUP_READS,
    pageBytes,
    seedSeconds: seeded.seconds,
    baselineSelectPlusStringifyP50Ms: percentile(selectJsonMs, 50),
    baselineSelectPlusStringifyP99Ms: percentile(selectJsonMs, 99),
    svcP90Ms: percentile(svcMs, 90),
    svcMaxMs: Math.max(...svcMs),
    svcOver10Ms: svcMs.filter((ms) => ms > 10).length,
    baselineMaxMs: Math.max(...selectMs),
  };
  return [
    figure({
      id: "page_vs_bare_p50_ms",
      label: `${PAGE}-event page read through the socket vs a bare page server, p50`,
      unit: "ms",
      better: "lower",
      svc: percentile(svcMs, 50),
      baseline: percentile(bareRun.ms, 50),
      baselineLabel: "bare Deno.serve + node:sqlite, SELECT + JSON.stringify",
      target: { on: "ratio", op: "<=", value: 1.5 },
      details: { ...details, bareP99Ms: percentile(bareRun.ms, 99), barePageBytes: bareRun.bytes },
    }),
    ...[50, 99].map((p) =>
      figure({
        id: `page_p${p}_ms`,
        label: `${PAGE}-event page read on a ${
          pageEvents.toLocaleString("en-US")
        }-event session, p${p}`,
        unit: "ms",
        better: "lower",
        svc: percentile(svcMs, p),
        baseline: percentile(selectMs, p),
        baselineLabel: "raw SELECT of 1000 rows",
        target: p === 99 ? { on: "svc", op: "<=", value: 10 } : undefined,
        details,
      })
    ),
  ];
}

/** Routine rules that have no occurrence in the next two hours (nothing launches). */
function quietRules(count: number): string[] {
  const hourNow = new Date().getUTCHours();
  const localHour = Temporal.Now.zonedDateTimeISO().hour;
  const busy = new Set([hourNow, (hourNow + 1) % 24, localHour, (localHour + 1) % 24]);
  const quiet = Array.from({ length: 24 }, (_, hour) => hour).filter((hour) => !busy.has(hour));
  const days = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"];
  return Array.from({ length: count }, (_, i) => {
    const a = quiet[i % quiet.length];
    const b = quiet[(i * 7 + 3) % quiet.length];
    const hours = [...new Set([a, b])].sort((x, y) => x - y).join(",");
    return i % 3 === 0
      ? `FREQ=WEEKLY;BYDAY=${days[i % 7]},${days[(i + 3) % 7]};BYHOUR=${hours}`
      : `FREQ=DAILY;BYHOUR=${hours}`;
  });
}

/** One planning pass (the tick action) over N ACTIVE routines vs N pure planOccurrences calls. */
export async function schedulerPass(ctx: BenchContext): Promise<Figure[]> {
  const { routines, ticks } = ctx.sizes;
  const rules = quietRules(routines);
  const home = await makeHome(ctx, "scheduler");
  const svc = await startSvc(ctx.registry, home, { cpuProfDir: ctx.cpuProfDir ?? undefined });
  const tickMs: number[] = [];
  let createSeconds: number;
  try {
    const client = await UnixHttpClient.connect(svc.socket);
    try {
      const created = performance.now();
      for (const [i, rrule] of rules.entries()) {
        await client.json("POST", "/api/v1/actions", {
          action: "svc.automations.create",
          definition: {
            schemaVersion: 1,
            id: `bench-${i}`,
            name: `bench routine ${i}`,
            status: "ACTIVE",
            rrule,
            timezone: i % 2 === 0 ? "utc" : "local",
            misfire: "latest",
            overlap: "forbid",
            timeoutMinutes: 30,
            runtime: "claude",
            prompt: "summarise yesterday's failures",
          },
        });
      }
      createSeconds = (performance.now() - created) / 1000;
      for (let i = 0; i < ticks; i++) {
        const started = performance.now();
        const body = await client.json<{ result: { planned: unknown[]; claimed: unknown[] } }>(
          "POST",
          "/api/v1/actions",
          { action: "svc.automations.tick" },
        );
        tickMs.push(performance.now() - started);
        if (body.result.claimed.length > 0) throw new Error("A bench routine was due");
      }
    } finally {
      client.close();
    }
  } finally {
    await svc.stop();
  }

  const parsed = rules.map((rule, i) => ({
    rule: parseRrule(rule),
    timeZone: resolveTimeZone(i % 2 === 0 ? "utc" : "local", Temporal.Now.timeZoneId()),
  }));
  const pureMs: number[] = [];
  for (let i = 0; i < ticks; i++) {
    const nowMs = Date.now();
    const started = performance.now();
    for (const { rule, timeZone } of parsed) {
      planOccurrences({ rule, timeZone, lastPlannedMs: nowMs - 60_000, nowMs });
    }
    pureMs.push(performance.now() - started);
  }
  ctx.log(
    `scheduler: tick p50 ${median(tickMs).toFixed(1)} ms, pure ${median(pureMs).toFixed(1)} ms`,
  );
  return [figure({
    id: "scheduler_tick_ms",
    label: `scheduler planning pass (tick action), ${routines} ACTIVE routines, median of ${ticks}`,
    unit: "ms",
    better: "lower",
    svc: median(tickMs),
    baseline: median(pureMs),
    baselineLabel: `${routines} × planOccurrences, pure`,
    details: { tickRunsMs: tickMs, pureRunsMs: pureMs, createSeconds, routines },
  })];
}
