/**
 * Stream figures (issue 11, D19): output → visible through a Server-Sent
 * Events stream, side by side with the `waitMs` long-poll and a bare pipe; and
 * the daemon's CPU and memory with many SSE readers on one busy session,
 * against the same session with none and with one.
 */
import {
  type BenchContext,
  closeGate,
  harnessConfig,
  launch,
  makeHome,
  projectDir,
  waitForEnd,
} from "./context.ts";
import { withClient } from "./http_client.ts";
import { cpuSeconds } from "./load.ts";
import { residentBytes, type ServerProcess, startSvc } from "./processes.ts";
import { type Figure, figure, percentile } from "./report.ts";
import { SseConnection, type SseFrame } from "./sse_client.ts";
import { followByLongPoll, TickCollector, tickerOnPipe } from "./stages_output.ts";

/** Ticks skipped as warm-up by every reader. */
const WARMUP_TICKS = 5;
/** How often the daemon's RSS is sampled during the fan-out window. */
const RSS_SAMPLE_MS = 50;
/** How often the fan-out stage polls the session record for its end. */
const STATUS_POLL_MS = 50;
/** Connections opened at once when the fan-out readers connect. */
const CONNECT_BATCH = 25;

/** The harness and how to start its output: behind the gate when `flock` exists. */
async function tickerLaunch(ctx: BenchContext): Promise<{ harness: string; start(): void }> {
  if (ctx.flock === null) return { harness: "ticker", start: () => {} };
  const gate = await closeGate(ctx);
  return { harness: "gated-ticker", start: () => gate.open() };
}

/** What one stream reader saw. */
interface StreamTally {
  /** Frames with an id (events). */
  events: number;
  /** Every id was the previous one + 1, starting at 1. */
  inOrder: boolean;
  /** `lastSeq` of the `event: end` frame, or null when none came. */
  endLastSeq: number | null;
  comments: number;
}

/**
 * Reads a session stream to its end: counts events, checks that ids run
 * 1, 2, 3… and feeds each output event's text to `collector` with its read
 * time. `parseRecords` parses each record's JSON (one reader); otherwise the
 * tick lines are found in the frame text directly (cheap enough for hundreds
 * of readers in this process).
 */
async function readStream(
  connection: SseConnection,
  { collector, parseRecords }: { collector: TickCollector; parseRecords: boolean },
): Promise<StreamTally> {
  const tally: StreamTally = { events: 0, inOrder: true, endLastSeq: null, comments: 0 };
  const onFrames = (frames: SseFrame[], receivedAt: number) => {
    for (const frame of frames) {
      if (frame.event === "end") {
        tally.endLastSeq = JSON.parse(frame.data).lastSeq;
        continue;
      }
      if (frame.id === null) continue;
      tally.events++;
      if (Number(frame.id) !== tally.events) tally.inOrder = false;
      if (frame.event !== "output") continue;
      if (parseRecords) {
        const record = JSON.parse(frame.data) as { payload_json: string };
        collector.push(JSON.parse(record.payload_json).data, receivedAt);
      } else {
        for (const [tick] of frame.data.matchAll(/tick \d+ [\d.]+/g)) {
          collector.push(`${tick}\n`, receivedAt);
        }
      }
    }
  };
  const { comments } = await connection.readAll(onFrames);
  tally.comments = comments;
  return tally;
}

/** Opens a session stream; throws unless the daemon answers 200. */
async function openStream(socket: string, sessionId: string): Promise<SseConnection> {
  const connection = await SseConnection.open(
    socket,
    `/api/v1/sessions/${sessionId}/events/stream`,
  );
  if (connection.status !== 200) {
    connection.close();
    throw new Error(`Stream of ${sessionId} answered ${connection.status}`);
  }
  return connection;
}

/** Closes `connections` after `ms` unless cancelled: every read is bounded. */
function closeAfter(connections: readonly SseConnection[], ms: number): { cancel(): void } {
  const timer = setTimeout(() => {
    for (const connection of connections) connection.close();
  }, ms);
  return { cancel: () => clearTimeout(timer) };
}

/**
 * A harness writes a timestamped line every 10 ms. One reader follows it
 * through the SSE stream, then (a new session on the same daemon) through the
 * `waitMs` long-poll; then the same harness runs on a bare pipe.
 */
export async function streamLatency(ctx: BenchContext): Promise<Figure[]> {
  const { streamTicks, streamIntervalMs } = ctx.sizes;
  const prompt = `${streamTicks} ${streamIntervalMs}`;
  const timeoutMs = streamTicks * streamIntervalMs * 3 + 30_000;
  const home = await makeHome(ctx, "stream-latency", harnessConfig(ctx));
  const root = await projectDir(ctx);
  const svc = await startSvc(ctx.registry, home, { cpuProfDir: ctx.cpuProfDir ?? undefined });
  const stream = new TickCollector(WARMUP_TICKS);
  const longPoll = new TickCollector(WARMUP_TICKS);
  let tally: StreamTally | null = null;
  let polls = 0;
  let lastSeq = 0;
  try {
    await withClient(svc.socket, async (client) => {
      const sse = await tickerLaunch(ctx);
      try {
        const id = await launch(client, { projectRoot: root, harness: sse.harness, prompt });
        const connection = await openStream(svc.socket, id);
        const limit = closeAfter([connection], timeoutMs);
        try {
          sse.start();
          tally = await readStream(connection, { collector: stream, parseRecords: true });
        } finally {
          limit.cancel();
          connection.close();
        }
        lastSeq = (await waitForEnd(client, id, { timeoutMs })).last_seq;
      } finally {
        sse.start();
      }
      const poll = await tickerLaunch(ctx);
      try {
        const id = await launch(client, { projectRoot: root, harness: poll.harness, prompt });
        poll.start();
        polls = await followByLongPoll(client, id, { collector: longPoll, timeoutMs });
      } finally {
        poll.start();
      }
    });
  } finally {
    await svc.stop();
  }
  if (tally === null) throw new Error("The stream reader never ran");
  const streamed: StreamTally = tally;
  const pipe = new TickCollector(WARMUP_TICKS);
  await tickerOnPipe(ctx, prompt, { collector: pipe, timeoutMs });

  const expected = streamTicks - WARMUP_TICKS;
  const summary = (values: number[]) => ({
    p50: percentile(values, 50),
    p90: percentile(values, 90),
    p99: percentile(values, 99),
    max: maxOf(values),
    samples: values.length,
  });
  const details = {
    ticks: streamTicks,
    intervalMs: streamIntervalMs,
    warmupTicksSkipped: WARMUP_TICKS,
    gated: ctx.flock !== null,
    streamMs: summary(stream.latencies),
    longPollMs: summary(longPoll.latencies),
    pipeMs: summary(pipe.latencies),
    streamEvents: streamed.events,
    streamInOrder: streamed.inOrder,
    streamEndLastSeq: streamed.endLastSeq,
    sessionLastSeq: lastSeq,
    longPolls: polls,
  };
  const counts = [stream, longPoll, pipe].map((collector) => collector.latencies.length);
  if (counts.some((count) => count !== expected)) {
    throw new Error(`Latency samples missing: ${JSON.stringify(details)} (expected ${expected})`);
  }
  if (!streamed.inOrder || streamed.events !== lastSeq || streamed.endLastSeq !== lastSeq) {
    throw new Error(`The stream reader did not get the whole log: ${JSON.stringify(details)}`);
  }
  ctx.log(
    `stream: p50/p99 ${fmt(details.streamMs)} ms; long-poll ${fmt(details.longPollMs)} ms; ` +
      `pipe ${fmt(details.pipeMs)} ms`,
  );
  const lines = `${expected} lines, every ${streamIntervalMs} ms`;
  return [50, 99].flatMap((p) => [
    figure({
      id: `stream_latency_p${p}_ms`,
      label: `output → visible via SSE stream, p${p} (${lines})`,
      unit: "ms",
      better: "lower",
      svc: percentile(stream.latencies, p),
      baseline: percentile(pipe.latencies, p),
      baselineLabel: "bare pipe read, no svc",
      target: p === 99 ? { on: "svc", op: "<=", value: 50 } : undefined,
      details,
    }),
    figure({
      id: `stream_vs_longpoll_p${p}_ms`,
      label: `output → visible, SSE stream vs waitMs long-poll, p${p} (same daemon)`,
      unit: "ms",
      better: "lower",
      svc: percentile(stream.latencies, p),
      baseline: percentile(longPoll.latencies, p),
      baselineLabel: "waitMs long-poll, same harness",
      details,
    }),
  ]);
}

/** The largest of `values` (a loop: spreading 100 k+ arguments overflows the stack). */
function maxOf(values: readonly number[]): number {
  let max = -Infinity;
  for (const value of values) if (value > max) max = value;
  return max;
}

function fmt(summary: { p50: number; p99: number }): string {
  return `${summary.p50.toFixed(2)}/${summary.p99.toFixed(2)}`;
}

/** What one fan-out run (one daemon, one busy session, `readers` streams) measured. */
interface FanoutRun {
  readers: number;
  /** Daemon CPU (user + system, all threads) from the gate opening to the last reader's end. */
  cpuSeconds: number;
  /** Daemon CPU spent while the readers connected (before the gate opened). */
  connectCpuSeconds: number;
  windowSeconds: number;
  /** VmRSS before the session, once the readers are connected, and the highest sampled in the window. */
  idleRssBytes: number;
  connectedRssBytes: number;
  peakRssBytes: number;
  /** VmHWM at the end: the daemon's lifetime peak. */
  hwmBytes: number;
  endRssBytes: number;
  lastSeq: number;
  /** Tick lines the harness wrote (each reader should see each once). */
  lines: number;
  /** CPU of this bench process (the readers) over the window: it shares the machine. */
  readerCpuSeconds: number;
  /** Readers that got every event, in order, then `end` with the right `lastSeq`. */
  complete: number;
  /** Per incomplete reader: what it got (at most 10 listed). */
  incomplete: Array<StreamTally & { reader: number }>;
  latencies: number[];
}

/** One daemon, one busy ticker session, `readers` SSE readers on it. */
async function fanoutRun(ctx: BenchContext, readers: number): Promise<FanoutRun> {
  const { fanoutTicks, fanoutIntervalMs } = ctx.sizes;
  const prompt = `${fanoutTicks} ${fanoutIntervalMs}`;
  const timeoutMs = fanoutTicks * fanoutIntervalMs * 3 + 30_000;
  const home = await makeHome(ctx, `fanout-${readers}`, harnessConfig(ctx));
  const root = await projectDir(ctx);
  const svc: ServerProcess = await startSvc(ctx.registry, home, {
    cpuProfDir: ctx.cpuProfDir ?? undefined,
  });
  const pid = svc.process.pid;
  const rss = (field: "VmRSS" | "VmHWM" = "VmRSS") => residentBytes(pid, field) ?? NaN;
  const cpu = () => cpuSeconds(pid) ?? NaN;
  const connections: SseConnection[] = [];
  let gate: { harness: string; start(): void } | null = null;
  try {
    gate = await tickerLaunch(ctx);
    const { harness, start } = gate;
    return await withClient(svc.socket, async (client) => {
      const idleRssBytes = rss();
      const id = await launch(client, { projectRoot: root, harness, prompt });
      const connectStart = cpu();
      for (let i = 0; i < readers; i += CONNECT_BATCH) {
        const batch = Math.min(CONNECT_BATCH, readers - i);
        connections.push(
          ...await Promise.all(Array.from({ length: batch }, () => openStream(svc.socket, id))),
        );
      }
      const limit = closeAfter(connections, timeoutMs);
      const collectors = connections.map(() => new TickCollector(WARMUP_TICKS));
      const reading = connections.map((connection, i) =>
        readStream(connection, { collector: collectors[i], parseRecords: false })
      );
      const connectedRssBytes = rss();
      let peakRssBytes = connectedRssBytes;
      const sampler = setInterval(() => {
        peakRssBytes = Math.max(peakRssBytes, rss());
      }, RSS_SAMPLE_MS);
      try {
        const cpuStart = cpu();
        const readerCpuStart = cpuSeconds(Deno.pid) ?? NaN;
        const started = performance.now();
        start();
        const ended = await waitForEnd(client, id, { everyMs: STATUS_POLL_MS, timeoutMs });
        const tallies = await Promise.all(reading);
        const windowSeconds = (performance.now() - started) / 1000;
        const cpuEnd = cpu();
        const readerCpuEnd = cpuSeconds(Deno.pid) ?? NaN;
        clearInterval(sampler);
        peakRssBytes = Math.max(peakRssBytes, rss());
        const isComplete = (tally: StreamTally) =>
          tally.inOrder && tally.events === ended.last_seq && tally.endLastSeq === ended.last_seq;
        const incomplete = tallies
          .map((tally, reader) => ({ ...tally, reader }))
          .filter((tally) => !isComplete(tally));
        return {
          readers,
          cpuSeconds: cpuEnd - cpuStart,
          connectCpuSeconds: cpuStart - connectStart,
          windowSeconds,
          idleRssBytes,
          connectedRssBytes,
          peakRssBytes,
          hwmBytes: rss("VmHWM"),
          endRssBytes: rss(),
          lastSeq: ended.last_seq,
          lines: fanoutTicks,
          readerCpuSeconds: readerCpuEnd - readerCpuStart,
          complete: readers - incomplete.length,
          incomplete: incomplete.slice(0, 10),
          latencies: collectors.flatMap((collector) => collector.latencies),
        };
      } finally {
        clearInterval(sampler);
        limit.cancel();
      }
    });
  } finally {
    gate?.start();
    for (const connection of connections) connection.close();
    await svc.stop();
  }
}

/**
 * N SSE readers on one session that writes a line every 10 ms: the daemon's
 * CPU and RSS during the session, and whether every reader got every event —
 * against the same session with no reader and with one, each on a fresh daemon.
 */
export async function streamFanout(ctx: BenchContext): Promise<Figure[]> {
  const { fanoutReaders, fanoutTicks, fanoutIntervalMs } = ctx.sizes;
  const none = await fanoutRun(ctx, 0);
  ctx.log(`fanout: 0 readers, CPU ${none.cpuSeconds.toFixed(2)} s`);
  const one = await fanoutRun(ctx, 1);
  ctx.log(`fanout: 1 reader, CPU ${one.cpuSeconds.toFixed(2)} s`);
  const many = await fanoutRun(ctx, fanoutReaders);
  ctx.log(
    `fanout: ${fanoutReaders} readers, CPU ${
      many.cpuSeconds.toFixed(2)
    } s, ${many.complete}/${many.readers} complete, peak RSS ${
      (many.peakRssBytes / 1e6).toFixed(1)
    } MB`,
  );
  const MiB = 1024 * 1024;
  const summary = (run: FanoutRun) => {
    const { latencies, incomplete, ...rest } = run;
    return {
      ...rest,
      incomplete,
      /** Daemon CPU ÷ window: near 1 (or above, with helper threads) means CPU-bound. */
      busyShare: run.cpuSeconds / run.windowSeconds,
      latencyMs: latencies.length === 0 ? null : {
        p50: percentile(latencies, 50),
        p99: percentile(latencies, 99),
        max: maxOf(latencies),
        samples: latencies.length,
      },
    };
  };
  const details = {
    ticks: fanoutTicks,
    intervalMs: fanoutIntervalMs,
    readers: fanoutReaders,
    gated: ctx.flock !== null,
    runs: [summary(none), summary(one), summary(many)],
    perStreamCpuMsPerSecond: (many.cpuSeconds - none.cpuSeconds) / fanoutReaders /
      many.windowSeconds * 1000,
    /** A delivery is one event to one reader; under load the daemon puts several lines in one event. */
    cpuMicrosecondsPerDelivery: (many.cpuSeconds - none.cpuSeconds) /
      (fanoutReaders * many.lastSeq) * 1e6,
    oneReaderCpuMicrosecondsPerDelivery: (one.cpuSeconds - none.cpuSeconds) / one.lastSeq * 1e6,
    perConnectionRssKiB: (many.connectedRssBytes - many.idleRssBytes) / fanoutReaders / 1024,
    perStreamPeakRssKiB: (many.peakRssBytes - none.peakRssBytes) / fanoutReaders / 1024,
    rssGrowthMiB: {
      none: (none.peakRssBytes - none.idleRssBytes) / MiB,
      one: (one.peakRssBytes - one.idleRssBytes) / MiB,
      many: (many.peakRssBytes - many.idleRssBytes) / MiB,
    },
  };
  if (one.complete !== 1) {
    throw new Error(`The single reader missed events: ${JSON.stringify(one.incomplete)}`);
  }
  const session = `${fanoutTicks} lines every ${fanoutIntervalMs} ms`;
  return [
    figure({
      id: "fanout_cpu_seconds",
      label: `daemon CPU, one session (${session}) with ${fanoutReaders} SSE readers`,
      unit: "s",
      better: "lower",
      svc: many.cpuSeconds,
      baseline: none.cpuSeconds,
      baselineLabel: "the same session, no reader",
      details,
    }),
    figure({
      id: "fanout_cpu_per_stream_ms",
      label: `daemon CPU per stream over the session, ${fanoutReaders} readers (minus 0 readers)`,
      unit: "ms",
      better: "lower",
      svc: (many.cpuSeconds - none.cpuSeconds) / fanoutReaders * 1000,
      baseline: (one.cpuSeconds - none.cpuSeconds) * 1000,
      baselineLabel: "1 reader, minus 0 readers",
      details,
    }),
    figure({
      id: "fanout_peak_rss_bytes",
      label: `daemon peak RSS during the session, ${fanoutReaders} SSE readers`,
      unit: "MB",
      better: "lower",
      svc: many.peakRssBytes / 1e6,
      baseline: none.peakRssBytes / 1e6,
      baselineLabel: "the same session, no reader",
      details,
    }),
    figure({
      id: "fanout_latency_p99_ms",
      label: `output → visible via SSE, p99 over all ${fanoutReaders} readers' lines`,
      unit: "ms",
      better: "lower",
      svc: percentile(many.latencies, 99),
      baseline: percentile(one.latencies, 99),
      baselineLabel: "1 reader",
      target: { on: "svc", op: "<=", value: 50 },
      details,
    }),
    figure({
      id: "fanout_complete",
      label: `${fanoutReaders} SSE readers: every event, in order, then end`,
      unit: "readers",
      better: "higher",
      svc: many.complete,
      baseline: fanoutReaders,
      baselineLabel: "readers connected",
      target: { on: "ratio", op: "==", value: 1 },
      details,
    }),
  ];
}
