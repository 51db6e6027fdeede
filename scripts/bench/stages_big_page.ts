/**
 * A ~4 MiB event page of 64 KiB events (issue 14), read through the daemon's
 * socket and, in the same run, from a bare page server over the same rows
 * (scripts/bench/bare_page_server.ts): SELECT + JSON.stringify in Deno.serve.
 */
import { join } from "node:path";
import { isoTime } from "../../src/clock.ts";
import { newId } from "../../src/ids.ts";
import { openDatabase } from "../../src/store/db.ts";
import { type EventRecord, EventsStore } from "../../src/store/events_store.ts";
import { SessionsStore } from "../../src/store/sessions_store.ts";
import { seededSessionRow } from "./seed_rows.ts";
import { type BenchContext, makeHome } from "./context.ts";
import { seededRandom } from "./data.ts";
import { readPagesFromBoth } from "./page_reads.ts";
import { type Figure, figure, percentile } from "./report.ts";

/** 63 events of 64 KiB: the largest page under the 4 MiB bound. */
const PAGE = 63;
const EVENT_DATA_BYTES = 64 * 1024 - 64;
const WARMUP_READS = 10;

/** Seeds a completed session of `count` 64 KiB output events; returns its id. */
function seedBigEvents(dbPath: string, count: number): string {
  const db = openDatabase(dbPath);
  try {
    const baseMs = Date.parse("2026-01-01T00:00:00.000Z");
    const sessionId = newId("ses", baseMs);
    new SessionsStore(db).insert(seededSessionRow(sessionId, isoTime(baseMs)));
    const random = seededRandom(17);
    const line = (seq: number) => {
      const chars: string[] = [];
      for (let i = 0; i < EVENT_DATA_BYTES; i += 64) {
        chars.push(String.fromCharCode(97 + Math.floor(random() * 26)).repeat(63), "\n");
      }
      return `${seq} ` + chars.join("").slice(0, EVENT_DATA_BYTES - 8);
    };
    const events = new EventsStore(db);
    for (let first = 1; first <= count; first += 100) {
      const batch: EventRecord[] = [];
      for (let seq = first; seq < first + 100 && seq <= count; seq++) {
        batch.push({
          seq,
          id: newId("evt", baseMs + seq),
          session_id: sessionId,
          kind: "output",
          payload_json: JSON.stringify({ stream: "stdout", data: line(seq) }),
          created_at: isoTime(baseMs + seq),
        });
      }
      events.appendBatch(batch);
    }
    db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    return sessionId;
  } finally {
    db.close();
  }
}

export async function bigPageRead(ctx: BenchContext): Promise<Figure[]> {
  const events = ctx.quick ? 400 : 1500;
  const reads = ctx.quick ? 40 : 150;
  const home = await makeHome(ctx, "bigpage");
  const dbPath = join(home, "svc.db");
  const sessionId = seedBigEvents(dbPath, events);
  const random = seededRandom(23);
  const offsets = Array.from(
    { length: WARMUP_READS + reads },
    () => Math.floor(random() * (events - PAGE)),
  );

  const { svc: svcRun, bare: bareRun } = await readPagesFromBoth(ctx, home, sessionId, {
    offsets,
    limit: PAGE,
    warmup: WARMUP_READS,
  });
  const details = {
    events,
    reads,
    pageEvents: PAGE,
    svcPageBytes: svcRun.bytes,
    barePageBytes: bareRun.bytes,
  };
  return [50, 99].map((p) =>
    figure({
      id: `big_page_p${p}_ms`,
      label: `${PAGE}-event page of 64 KiB events (≈4 MiB), p${p}`,
      unit: "ms",
      better: "lower",
      svc: percentile(svcRun.ms, p),
      baseline: percentile(bareRun.ms, p),
      baselineLabel: "bare Deno.serve + node:sqlite, SELECT + JSON.stringify",
      target: p === 50 ? { on: "ratio", op: "<=", value: 1.5 } : undefined,
      details,
    })
  );
}
