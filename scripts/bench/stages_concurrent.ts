/**
 * 200 concurrent sessions each writing 1 MB (all live at once behind a gate),
 * against 200 plain children whose pipes the bench drains, and against
 * storing the events svc stored with raw node:sqlite (issue 14).
 */
import { join } from "node:path";
import {
  type ApiEvent,
  type BenchContext,
  closeGate,
  dataFile,
  gatePath,
  harnessConfig,
  launch,
  makeHome,
  projectDir,
  readBack,
  settleDisk,
} from "./context.ts";
import { UnixHttpClient } from "./http_client.ts";
import { startSvc } from "./processes.ts";
import { type Figure, figure } from "./report.ts";
import { RAW_BATCH_ROWS, rawInsert } from "./raw_insert.ts";

const MB = 1e6;

/** Polls the running sessions every 25 ms until `done(count)` (bounded by `timeoutMs`). */
async function pollRunning(
  client: UnixHttpClient,
  done: (running: number) => boolean,
  timeoutMs: number,
): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const running = await client.json<unknown[]>(
      "GET",
      "/api/v1/sessions?status=running&limit=1000",
    );
    if (done(running.length)) return running.length;
    if (performance.now() > deadline) {
      throw new Error(`Sessions still running after ${timeoutMs} ms: ${running.length}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * N sessions each writing 1 MB at once: all complete, nothing lost, total
 * time. With util-linux `flock`, each session waits on a gate the bench holds
 * until all N are live, so that all N really write concurrently.
 */
export async function concurrentSessions(ctx: BenchContext): Promise<Figure[]> {
  const { sessions, sessionBytes } = ctx.sizes;
  const file = await dataFile(ctx, sessionBytes, 3);
  const home = await makeHome(ctx, "concurrent", harnessConfig(ctx));
  const root = await projectDir(ctx);
  const harness = ctx.flock === null ? "cat" : "gated-cat";
  const svc = await startSvc(ctx.registry, home, { cpuProfDir: ctx.cpuProfDir ?? undefined });
  const ids: string[] = [];
  /** Every event svc stored, for the raw-storage baseline. */
  const rows: ApiEvent[] = [];
  let seconds: number;
  let launchSeconds: number;
  let liveAtRelease = 0;
  let lossless = 0;
  let completed = 0;
  let lostBytes = 0;
  const gate = ctx.flock === null ? null : await closeGate(ctx);
  try {
    const launchers = await Promise.all(
      Array.from({ length: 8 }, () => UnixHttpClient.connect(svc.socket)),
    );
    try {
      const started = performance.now();
      let next = 0;
      await Promise.all(launchers.map(async (client) => {
        while (next < sessions) {
          next++;
          ids.push(await launch(client, { projectRoot: root, harness, prompt: file.path }));
        }
      }));
      launchSeconds = (performance.now() - started) / 1000;
      const watcher = launchers[0];
      liveAtRelease = await pollRunning(watcher, () => true, 0);
      await settleDisk();
      gate?.open();
      await pollRunning(watcher, (running) => running === 0, 300_000);
      seconds = (performance.now() - started) / 1000;
      ctx.log(
        `concurrent: ${sessions} sessions in ${seconds.toFixed(2)} s (launched in ${
          launchSeconds.toFixed(2)
        } s, ${liveAtRelease} live when the gate opened)`,
      );
      for (const id of ids) {
        const back = await readBack(watcher, id, (event) => rows.push(event));
        if (back.endedStatus === "completed") completed++;
        lostBytes += file.bytes - back.outputBytes;
        if (back.outputSha256 === file.sha256 && back.gapFree) lossless++;
      }
    } finally {
      for (const client of launchers) client.close();
    }
  } finally {
    gate?.open();
    await svc.stop();
  }
  const baseline = await plainChildren(ctx, file.path, file.bytes, sessions);
  // Storing what svc stored, and nothing else: the cost no supervisor can avoid.
  await settleDisk();
  const rawSeconds = rawInsert(join(ctx.root, "raw-concurrent.db"), rows);
  rows.length = 0;
  const details = {
    rawInsertSeconds: rawSeconds,
    rawBatchRows: RAW_BATCH_ROWS,
    gated: gate !== null,
    liveAtRelease,
    svcLaunchSeconds: launchSeconds,
    svcOutputSeconds: seconds - launchSeconds,
    baselineSpawnSeconds: baseline.spawnSeconds,
    baselineOutputSeconds: baseline.seconds - baseline.spawnSeconds,
    completed,
    lossless,
    lostBytes,
  };
  return [
    figure({
      id: "concurrent_seconds",
      label: `${sessions} concurrent sessions × ${sessionBytes / MB} MB, first launch → last ended`,
      unit: "s",
      better: "lower",
      svc: seconds,
      baseline: baseline.seconds,
      baselineLabel: `${sessions} plain children, pipes read by the bench`,
      details,
    }),
    figure({
      id: "concurrent_output_seconds",
      label: `${sessions} concurrent sessions, gate opened → last ended (all live)`,
      unit: "s",
      better: "lower",
      svc: seconds - launchSeconds,
      baseline: baseline.seconds - baseline.spawnSeconds,
      baselineLabel: "the plain children, same gate",
      details,
    }),
    figure({
      id: "concurrent_vs_raw_storage",
      label: `${sessions} concurrent sessions, gate opened → last ended, vs storing their events`,
      unit: "s",
      better: "lower",
      svc: seconds - launchSeconds,
      baseline: rawSeconds,
      baselineLabel: `raw node:sqlite inserts of the same events, ${RAW_BATCH_ROWS}/txn`,
      target: { on: "ratio", op: "<=", value: 2 },
      details,
    }),
    figure({
      id: "concurrent_lossless",
      label: `${sessions} concurrent sessions: completed with every byte, in order`,
      unit: "sessions",
      better: "higher",
      svc: Math.min(completed, lossless),
      baseline: sessions,
      baselineLabel: "sessions launched",
      target: { on: "ratio", op: "==", value: 1 },
      details,
    }),
  ];
}

/**
 * The baseline: `count` plain `cat FILE` children (behind the same gate when
 * there is one), every pipe drained by the bench.
 */
async function plainChildren(
  ctx: BenchContext,
  path: string,
  bytes: number,
  count: number,
): Promise<{ seconds: number; spawnSeconds: number }> {
  const gate = ctx.flock === null ? null : await closeGate(ctx);
  try {
    const started = performance.now();
    const children = Array.from(
      { length: count },
      (_, i) =>
        gate === null
          ? ctx.registry.spawn(`cat ${i}`, ctx.cat, [path], { stdout: "piped" })
          : ctx.registry.spawn(
            `gated cat ${i}`,
            ctx.flock!,
            ["--shared", gatePath(ctx), ctx.cat, path],
            { stdout: "piped" },
          ),
    );
    const reading = children.map(async (child) => {
      let total = 0;
      for await (const chunk of child.child.stdout) total += chunk.length;
      await child.exited;
      return total;
    });
    const spawnSeconds = (performance.now() - started) / 1000;
    gate?.open();
    const totals = await Promise.all(reading);
    const seconds = (performance.now() - started) / 1000;
    const short = totals.filter((total) => total !== bytes).length;
    if (short > 0) throw new Error(`${short} plain children delivered a wrong byte count`);
    return { seconds, spawnSeconds };
  } finally {
    gate?.open();
  }
}
