/**
 * Output figures: ingestion throughput and losslessness, and output-to-visible
 * latency — each against its same-run baseline.
 */
import { join } from "node:path";
import {
  type ApiEvent,
  type BenchContext,
  dataFile,
  harnessConfig,
  launch,
  makeHome,
  projectDir,
  readBack,
  settleDisk,
  waitForEnd,
} from "./context.ts";
import { UnixHttpClient, withClient } from "./http_client.ts";
import { residentBytes, startSvc, TICKER_SCRIPT } from "./processes.ts";
import { type Figure, figure, percentile } from "./report.ts";
import { RAW_BATCH_ROWS, RAW_FILE_READ_BYTES, rawFileStorage, rawInsert } from "./raw_insert.ts";

const MB = 1e6;

/** What one ingestion run measured: svc, then both storage baselines on the same data. */
interface IngestRun {
  file: { path: string; bytes: number; sha256: string };
  back: Awaited<ReturnType<typeof readBack>>;
  rows: number;
  seconds: number;
  rawSeconds: number;
  fileSeconds: number;
  fileRows: number;
  rss: number | null;
}

/** A harness `cat`s a ~100 MB file; the clock runs until the session is durable and readable. */
async function ingestFile(ctx: BenchContext, kind: "mixed" | "hex"): Promise<IngestRun> {
  const file = await dataFile(ctx, ctx.sizes.ingestBytes, kind === "hex" ? 26 : 1, kind);
  const home = await makeHome(ctx, `ingest-${kind}`, harnessConfig(ctx));
  const root = await projectDir(ctx);
  const svc = await startSvc(ctx.registry, home, { cpuProfDir: ctx.cpuProfDir ?? undefined });
  const rows: ApiEvent[] = [];
  let seconds: number;
  let back;
  let rss: number | null;
  try {
    const client = await UnixHttpClient.connect(svc.socket);
    try {
      await settleDisk();
      const started = performance.now();
      const id = await launch(client, { projectRoot: root, harness: "cat", prompt: file.path });
      const ended = await waitForEnd(client, id, { everyMs: 10, timeoutMs: 300_000 });
      seconds = (performance.now() - started) / 1000;
      rss = residentBytes(svc.process.pid, "VmHWM");
      ctx.log(
        `ingest ${kind}: ${ended.status}, ${ended.last_seq} events in ${seconds.toFixed(2)} s`,
      );
      back = await readBack(client, id, (event) => rows.push(event));
    } finally {
      client.close();
    }
  } finally {
    await svc.stop();
  }
  await settleDisk();
  const rawSeconds = rawInsert(join(ctx.root, `raw-ingest-${kind}.db`), rows);
  await settleDisk();
  const stored = rawFileStorage(join(ctx.root, `raw-file-${kind}.db`), file.path);
  ctx.log(
    `ingest ${kind}: raw inserts ${rawSeconds.toFixed(2)} s; raw storage from the file ${
      stored.seconds.toFixed(2)
    } s; read back ${back.seconds.toFixed(2)} s`,
  );
  return {
    file,
    back,
    rows: rows.length,
    seconds,
    rawSeconds,
    fileSeconds: stored.seconds,
    fileRows: stored.rows,
    rss,
  };
}

/**
 * Ingestion of two ~100 MB outputs (mixed lines, and issue 26's `xxd -p`
 * lines), each against two same-run baselines: the rows svc stored inserted
 * raw, and the file itself stored raw from disk.
 */
export async function ingestion(ctx: BenchContext): Promise<Figure[]> {
  const figures: Figure[] = [];
  for (const kind of ["mixed", "hex"] as const) {
    const run = await ingestFile(ctx, kind);
    const { file, back } = run;
    const bytesOut = back.outputBytes;
    const what = kind === "mixed" ? "mixed lines" : "`xxd -p` lines";
    const prefix = kind === "mixed" ? "ingest" : "ingest_hex";
    const details = {
      bytesIn: file.bytes,
      bytesOut,
      contentIdentical: back.outputSha256 === file.sha256,
      redactedEvents: back.redactions,
      events: back.events,
      outputEvents: back.outputEvents,
      gapFree: back.gapFree,
      endedStatus: back.endedStatus,
      svcSeconds: run.seconds,
      rawInsertSeconds: run.rawSeconds,
      rawBatchRows: RAW_BATCH_ROWS,
      rawFileSeconds: run.fileSeconds,
      rawFileRows: run.fileRows,
      rawFileReadBytes: RAW_FILE_READ_BYTES,
      readBackSeconds: back.seconds,
      readBackMBps: bytesOut / MB / back.seconds,
      daemonPeakRssBytes: run.rss,
    };
    const label = `ingestion, ${
      (file.bytes / MB).toFixed(0)
    } MB of ${what}, until durable and readable`;
    figures.push(
      figure({
        id: `${prefix}_mbps`,
        label,
        unit: "MB/s",
        better: "higher",
        svc: bytesOut / MB / run.seconds,
        baseline: bytesOut / MB / run.rawSeconds,
        baselineLabel: `svc's rows inserted raw with node:sqlite, ${RAW_BATCH_ROWS}/txn`,
        target: { on: "ratio", op: ">=", value: 0.5 },
        details,
      }),
      figure({
        id: `${prefix}_mbps_vs_file`,
        label: `${label}, against raw storage from the file`,
        unit: "MB/s",
        better: "higher",
        svc: bytesOut / MB / run.seconds,
        baseline: file.bytes / MB / run.fileSeconds,
        baselineLabel: `the file read in ${
          RAW_FILE_READ_BYTES / 1024
        } KiB and stored raw, ${RAW_BATCH_ROWS} rows/txn`,
        target: { on: "ratio", op: ">=", value: 0.5 },
        details,
      }),
      figure({
        id: `${prefix}_events_per_s`,
        label: `ingestion of ${what}, events/s (same run)`,
        unit: "events/s",
        better: "higher",
        svc: back.events / run.seconds,
        baseline: run.rows / run.rawSeconds,
        baselineLabel: "raw node:sqlite inserts",
      }),
      figure({
        id: `${prefix}_bytes_out_over_in`,
        label: `ingestion of ${what}, bytes out (read back via API) vs bytes in`,
        unit: "B",
        better: "higher",
        svc: bytesOut,
        baseline: file.bytes,
        baselineLabel: "bytes written by the harness",
        target: { on: "ratio", op: "==", value: 1 },
        details: { lostBytes: file.bytes - bytesOut, contentIdentical: details.contentIdentical },
      }),
    );
  }
  return figures;
}

/** Latencies (ms) of `tick <n> <ms>` lines as they arrive; the first `skip` ticks are warm-up. */
export class TickCollector {
  readonly latencies: number[] = [];
  #carry = "";
  constructor(readonly skip: number) {}

  push(text: string, receivedAt: number): void {
    const lines = (this.#carry + text).split("\n");
    this.#carry = lines.pop()!;
    for (const line of lines) {
      const match = /^tick (\d+) ([\d.]+)$/.exec(line);
      if (match && Number(match[1]) >= this.skip) {
        this.latencies.push(receivedAt - Number(match[2]));
      }
    }
  }
}

/** Wall time in ms as the ticker stamps it: `performance.timeOrigin + now()`, sub-ms. */
export const wallNow = () => performance.timeOrigin + performance.now();

/**
 * Follows a session by `waitMs` long-poll (`GET …/events?afterSeq=&waitMs=5000`)
 * until its `session.ended`, feeding each output event to `collector` with the
 * time its page arrived. Returns the number of polls.
 */
export async function followByLongPoll(
  client: UnixHttpClient,
  sessionId: string,
  { collector, timeoutMs }: { collector: TickCollector; timeoutMs: number },
): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  let afterSeq = 0;
  let ended = false;
  let polls = 0;
  while (!ended && performance.now() < deadline) {
    const page = await client.json<{ events: ApiEvent[]; nextCursor: { afterSeq: number } }>(
      "GET",
      `/api/v1/sessions/${sessionId}/events?afterSeq=${afterSeq}&limit=1000&waitMs=5000`,
    );
    const receivedAt = wallNow();
    polls++;
    afterSeq = page.nextCursor.afterSeq;
    for (const event of page.events) {
      if (event.kind === "session.ended") ended = true;
      if (event.kind === "output") collector.push(JSON.parse(event.payload_json).data, receivedAt);
    }
  }
  return polls;
}

/** The baseline: the ticker run by the bench with its stdout piped straight to `collector`. */
export async function tickerOnPipe(
  ctx: BenchContext,
  prompt: string,
  { collector, timeoutMs }: { collector: TickCollector; timeoutMs: number },
): Promise<void> {
  const process = ctx.registry.spawn("ticker on a bare pipe", Deno.execPath(), [
    "run",
    TICKER_SCRIPT,
    prompt,
  ], { stdout: "piped" });
  const timer = setTimeout(() => process.stop("SIGKILL"), timeoutMs);
  try {
    const decoder = new TextDecoder();
    for await (const chunk of process.child.stdout) {
      collector.push(decoder.decode(chunk, { stream: true }), wallNow());
    }
    await process.exited;
  } finally {
    clearTimeout(timer);
  }
}

/** A harness writes a timestamped line every 20 ms; a reader follows by `waitMs` long-poll. */
export async function latency(ctx: BenchContext): Promise<Figure[]> {
  const { latencyTicks, latencyIntervalMs } = ctx.sizes;
  const prompt = `${latencyTicks} ${latencyIntervalMs}`;
  const skip = 5;
  const timeoutMs = latencyTicks * latencyIntervalMs * 3 + 30_000;

  const home = await makeHome(ctx, "latency", harnessConfig(ctx));
  const root = await projectDir(ctx);
  const svc = await startSvc(ctx.registry, home, { cpuProfDir: ctx.cpuProfDir ?? undefined });
  const ours = new TickCollector(skip);
  let polls = 0;
  try {
    await withClient(svc.socket, async (client) => {
      const id = await launch(client, { projectRoot: root, harness: "ticker", prompt });
      polls = await followByLongPoll(client, id, { collector: ours, timeoutMs });
    });
  } finally {
    await svc.stop();
  }

  const base = new TickCollector(skip);
  await tickerOnPipe(ctx, prompt, { collector: base, timeoutMs });
  const expected = latencyTicks - skip;
  const details = {
    ticks: latencyTicks,
    intervalMs: latencyIntervalMs,
    warmupTicksSkipped: skip,
    svcSamples: ours.latencies.length,
    baselineSamples: base.latencies.length,
    svcMaxMs: Math.max(...ours.latencies),
    baselineMaxMs: Math.max(...base.latencies),
    longPolls: polls,
  };
  if (ours.latencies.length !== expected || base.latencies.length !== expected) {
    throw new Error(`Latency samples missing: ${JSON.stringify(details)} (expected ${expected})`);
  }
  ctx.log(
    `latency: svc p50 ${percentile(ours.latencies, 50).toFixed(2)} ms p99 ${
      percentile(ours.latencies, 99).toFixed(2)
    } ms; pipe p50 ${percentile(base.latencies, 50).toFixed(3)} ms`,
  );
  return [50, 99].map((p) =>
    figure({
      id: `latency_p${p}_ms`,
      label:
        `output → visible via waitMs long-poll, p${p} (${expected} lines, every ${latencyIntervalMs} ms)`,
      unit: "ms",
      better: "lower",
      svc: percentile(ours.latencies, p),
      baseline: percentile(base.latencies, p),
      baselineLabel: "bare pipe read, no svc",
      target: p === 99 ? { on: "svc", op: "<=", value: 50 } : undefined,
      details,
    })
  );
}
