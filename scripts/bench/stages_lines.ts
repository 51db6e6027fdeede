/**
 * Issue 26's page workload: a session whose stdout is `xxd -p` of random
 * bytes (60 hex digits and a newline per line, events of 4–62 KB, about
 * 100 MB), read in pages of `limit=1000` that the 4 MiB bound cuts at 70–135
 * events, through the daemon's socket and, in the same run, from the bare
 * page server (scripts/bench/bare_page_server.ts) asked for the same events.
 * And the same output in runs after runs of short lines (a build's log: 20
 * events of one short line, then 80 of `xxd -p`), where a page that starts
 * among the short lines meets the large ones.
 */
import { join } from "node:path";
import { isoTime } from "../../src/clock.ts";
import { newId } from "../../src/ids.ts";
import { openDatabase } from "../../src/store/db.ts";
import { EventsStore, type NewEvent } from "../../src/store/events_store.ts";
import { SessionsStore } from "../../src/store/sessions_store.ts";
import { seededSessionRow } from "./seed_rows.ts";
import { type BenchContext, makeHome } from "./context.ts";
import { seededRandom } from "./data.ts";
import { readPagesFromBoth } from "./page_reads.ts";
import { type Figure, figure, percentile } from "./report.ts";

const LIMIT = 1000;
const WARMUP_READS = 20;
/** `xxd -p`: 30 bytes as 60 hex digits per line. */
const LINE_CHARS = 60;
const MIN_EVENT_BYTES = 4_000;
const MAX_EVENT_BYTES = 62_000;
const HEX = "0123456789abcdef";

/** Runs of short-line events between runs of `xxd -p` events (the mixed session). */
interface Runs {
  readonly short: number;
  readonly hex: number;
}

/**
 * Seeds a completed session of `xxd -p` output until `totalBytes`, in `runs`
 * after runs of short lines when given; returns its id and events.
 */
function seedHexLines(
  dbPath: string,
  totalBytes: number,
  runs?: Runs,
): { sessionId: string; events: number } {
  const db = openDatabase(dbPath);
  try {
    const baseMs = Date.parse("2026-01-01T00:00:00.000Z");
    const sessionId = newId("ses", baseMs);
    new SessionsStore(db).insert(seededSessionRow(sessionId, isoTime(baseMs)));
    const random = seededRandom(26);
    const hexLine = () => {
      let line = "";
      for (let i = 0; i < LINE_CHARS; i++) line += HEX[Math.floor(random() * 16)];
      return line + "\n";
    };
    /** One event of `xxd -p` lines, 4–62 KB. */
    const hexEvent = () => {
      const size = MIN_EVENT_BYTES + Math.floor(random() * (MAX_EVENT_BYTES - MIN_EVENT_BYTES));
      const lines: string[] = [];
      for (let bytes = 0; bytes + LINE_CHARS + 1 <= size; bytes += LINE_CHARS + 1) {
        lines.push(hexLine());
      }
      return lines.join("");
    };
    const store = new EventsStore(db);
    let written = 0;
    let seq = 0;
    let batch: NewEvent[] = [];
    while (written < totalBytes) {
      const short = runs !== undefined && seq % (runs.short + runs.hex) < runs.short;
      const data = short
        ? `[${seq}/${seq + 1}] Building C object src/part_${seq}.c.o\n`
        : hexEvent();
      seq++;
      written += data.length;
      batch.push({
        seq,
        id: newId("evt", baseMs + seq),
        session_id: sessionId,
        kind: "output",
        stream: "stdout",
        data,
        created_at: isoTime(baseMs + seq),
      });
      if (batch.length === 100) {
        store.appendBatch(batch);
        batch = [];
      }
    }
    store.appendBatch(batch);
    db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    return { sessionId, events: seq };
  } finally {
    db.close();
  }
}

export async function linesPageRead(ctx: BenchContext): Promise<Figure[]> {
  return [
    ...await readLinePages(ctx, "lines", undefined, "`xxd -p` output (events of 4–62 KB)"),
    ...await readLinePages(
      ctx,
      "mixed_lines",
      { short: 20, hex: 80 },
      "runs of 20 short lines and 80 `xxd -p` events",
    ),
  ];
}

async function readLinePages(
  ctx: BenchContext,
  name: string,
  runs: Runs | undefined,
  what: string,
): Promise<Figure[]> {
  const totalBytes = ctx.quick ? 20_000_000 : 100_000_000;
  const reads = ctx.quick ? 60 : 300;
  const home = await makeHome(ctx, name);
  const { sessionId, events } = seedHexLines(join(home, "svc.db"), totalBytes, runs);
  const random = seededRandom(27);
  const offsets = Array.from(
    { length: WARMUP_READS + reads },
    () => Math.floor(random() * (events - 200)),
  );
  const { svc: svcRun, bare: bareRun } = await readPagesFromBoth(ctx, home, sessionId, {
    offsets,
    limit: LIMIT,
    warmup: WARMUP_READS,
    bareSameEvents: true,
  });
  const counts = svcRun.counts.slice(WARMUP_READS);
  const details = {
    events,
    totalBytes,
    reads,
    pageEventsMin: Math.min(...counts),
    pageEventsMax: Math.max(...counts),
    svcPageBytes: svcRun.bytes,
    barePageBytes: bareRun.bytes,
  };
  return [50, 99].map((p) =>
    figure({
      id: `${name}_page_p${p}_ms`,
      label: `4 MiB page of ${what} (limit=${LIMIT}), p${p}`,
      unit: "ms",
      better: "lower",
      svc: percentile(svcRun.ms, p),
      baseline: percentile(bareRun.ms, p),
      baselineLabel: "bare Deno.serve + node:sqlite, the same events, SELECT + JSON.stringify",
      target: { on: "ratio", op: "<=", value: 1.5 },
      details,
    })
  );
}
