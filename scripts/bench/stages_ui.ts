/**
 * `svc ui`'s budgets (D25), measured on the real App in its own process
 * (scripts/bench/ui_probe.tsx) against a real daemon:
 *
 * - first full frame with 1,000 sessions in the store (goal ≤ 300 ms), against
 *   a bare Ink app's first frame (the floor: Deno, Ink and React starting);
 * - an event committed for the session in focus on screen, p99 (goal ≤ 100 ms),
 *   against a bare SSE reader of the same session in the same run;
 * - CPU and RSS with 50 live sessions writing 1,000 lines/s in total (goals
 *   ≤ 25 % of one core, ≤ 150 MiB), against the bare Ink app;
 * - CPU over 60 s idle (goal ≈ 0: under 1 % of one core);
 * - issue 38 item 2: the session view of a 10 × 300k-character conversation,
 *   its CPU idle (goal ≤ 5 % of one core) and key → next frame for PgUp, k, j
 *   and PgDn (goal p99 ≤ 100 ms), against the bare Ink app;
 * - issue 38 item 7: with 50 busy agents, an approval from its `requestedAt`
 *   in the daemon's broker to its row in the approvals view, p99 (goal ≤ 100
 *   ms), against a bare reader of the daemon's feed in the same run.
 */
import { type BenchContext, harnessConfig, launch, makeHome, projectDir } from "./context.ts";
import { UnixHttpClient } from "./http_client.ts";
import { cpuSeconds } from "./load.ts";
import { residentBytes, startSvc } from "./processes.ts";
import { type Figure, figure, median, percentile } from "./report.ts";
import { seedSessions } from "./seed_rows.ts";
import { SseConnection } from "./sse_client.ts";

const PROBE = new URL("./ui_probe.tsx", import.meta.url).pathname;
const AGENT = new URL("./conversation_agent.ts", import.meta.url).pathname;
const SEEDED_SESSIONS = 1000;
const MIB = 1024 * 1024;
/** Issue 38 item 2's conversation: 10 lines of 300k characters. */
const BIG_LINES = 10;
const BIG_CHARS = 300_000;

/** Runs the probe and parses its JSON line; `watch` sees its pid while it runs. */
async function probe<T>(
  ctx: BenchContext,
  args: string[],
  watch?: (pid: number) => Promise<void>,
): Promise<T> {
  // With `--cpu-prof`, the probe (the App's process) is profiled as the daemons are.
  const profile = ctx.cpuProfDir
    ? [
      "--cpu-prof",
      `--cpu-prof-dir=${ctx.cpuProfDir}`,
      `--cpu-prof-name=ui-probe-${args[0]}-${Date.now()}.cpuprofile`,
    ]
    : [];
  const process = ctx.registry.spawn("ui probe", Deno.execPath(), [
    "run",
    "--allow-all",
    ...profile,
    PROBE,
    ...args,
    // As `svc ui` runs React: its production build (src/cli/ui.ts).
  ], { stdout: "piped", env: { NO_COLOR: "", NODE_ENV: "production" } });
  const output = new Response(process.child.stdout).text();
  const watching = watch?.(process.child.pid);
  const status = await process.exited;
  await watching;
  if (!status.success) throw new Error(`ui probe ${args[0]} failed:\n${process.stderr()}`);
  return JSON.parse((await output).trim().split("\n").at(-1)!) as T;
}

/** CPU share of one core and peak RSS of `pid` over `ms`, sampled after `settleMs`. */
async function usage(pid: number, settleMs: number, ms: number) {
  await new Promise((resolve) => setTimeout(resolve, settleMs));
  const before = cpuSeconds(pid) ?? NaN;
  const started = performance.now();
  let peak = 0;
  while (performance.now() - started < ms) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    peak = Math.max(peak, residentBytes(pid) ?? 0);
  }
  const cpu = (cpuSeconds(pid) ?? NaN) - before;
  return { coreShare: cpu / ((performance.now() - started) / 1000), peakRss: peak };
}

export async function uiBudgets(ctx: BenchContext): Promise<Figure[]> {
  const base = harnessConfig(ctx) as { harnesses: Record<string, unknown> };
  const home = await makeHome(ctx, "ui", {
    ...base,
    harnesses: {
      ...base.harnesses,
      convo: { command: [Deno.execPath(), "run", AGENT], protocol: "claude" },
    },
  });
  seedSessions(home, SEEDED_SESSIONS);
  const svc = await startSvc(ctx.registry, home, { cpuProfDir: ctx.cpuProfDir ?? undefined });
  const client = await UnixHttpClient.connect(svc.socket);
  const project = await projectDir(ctx);
  const runs = ctx.quick ? 1 : 3;
  const loadMs = ctx.quick ? 5_000 : 20_000;
  const idleMs = ctx.quick ? 10_000 : 60_000;
  try {
    // 1. First full frame.
    const frames: number[] = [];
    const bareFrames: number[] = [];
    for (let run = 0; run < runs; run++) {
      frames.push((await probe<{ firstFrameMs: number }>(ctx, ["frame", svc.socket])).firstFrameMs);
      bareFrames.push((await probe<{ firstFrameMs: number }>(ctx, ["bare", "200"])).firstFrameMs);
    }
    ctx.log(`ui: first frame ${frames.map((ms) => ms.toFixed(0)).join(", ")} ms`);

    // 2. Commit → on screen for the session in focus, beside a bare SSE reader.
    const ticks = ctx.quick ? 150 : 400;
    const sessionId = await launch(client, {
      projectRoot: project,
      harness: "ticker",
      prompt: `${ticks} 20`,
    });
    const sse = await SseConnection.open(svc.socket, `/api/v1/sessions/${sessionId}/events/stream`);
    const sseLatencies: number[] = [];
    const reading = sse.readAll((received, at) => {
      for (const frame of received) {
        for (const match of frame.data.matchAll(/tick (\d+) (\d+\.\d+)/g)) {
          sseLatencies.push(at - Number(match[2]));
        }
      }
    });
    const shown = await probe<{ latencies: number[] }>(ctx, [
      "latency",
      svc.socket,
      sessionId,
      String(ticks * 20 + 1500),
    ]);
    await reading.catch(() => {});
    const uiLatencies = shown.latencies.slice(5);

    // 3. 50 live sessions, 1,000 lines/s in total, with the fleet on screen.
    const lines = Math.ceil((loadMs + 10_000) / 50);
    for (let i = 0; i < 50; i++) {
      await launch(client, { projectRoot: project, harness: "ticker", prompt: `${lines} 50` });
    }
    let loaded = { coreShare: NaN, peakRss: NaN };
    await probe(ctx, ["run", svc.socket, String(loadMs + 3000)], async (pid) => {
      loaded = await usage(pid, 2500, loadMs);
    });
    let bareLoad = { coreShare: NaN, peakRss: NaN };
    await probe(ctx, ["bare", String(loadMs + 3000)], async (pid) => {
      bareLoad = await usage(pid, 2500, loadMs);
    });
    await waitForQuiet(client);

    // 4. Idle: nothing runs, the fleet is on screen.
    let idle = { coreShare: NaN, peakRss: NaN };
    await probe(ctx, ["run", svc.socket, String(idleMs + 3000)], async (pid) => {
      idle = await usage(pid, 2500, idleMs);
    });
    // 5. Issue 38 item 2: a 10 × 300k-character conversation in the session view.
    const bigId = await launch(client, {
      projectRoot: project,
      harness: "convo",
      prompt: `big ${BIG_LINES} ${BIG_CHARS}`,
    });
    const bigIdleMs = ctx.quick ? 3000 : 5000;
    const big = await probe<{
      idleCoreShare: number;
      idleWrites: number;
      latencies: number[];
    }>(ctx, ["big", svc.socket, bigId, String(bigIdleMs)]);
    await client.json("POST", `/api/v1/sessions/${bigId}/close`, {}).catch(() => {});
    const keyLatencies = big.latencies.filter((ms) => !Number.isNaN(ms));
    const bareKeys = (await probe<{ latencies: number[] }>(ctx, ["barekeys"])).latencies
      .filter((ms) => !Number.isNaN(ms));

    // 6. Issue 38 item 7: approvals while 50 agents are busy.
    const asks = ctx.quick ? 20 : 60;
    const chatterMs = 50;
    const chatter = Math.ceil((asks * 400 + 20_000) / chatterMs);
    for (let i = 0; i < 50; i++) {
      await launch(client, {
        projectRoot: project,
        harness: "convo",
        prompt: `chatter ${chatter} ${chatterMs}`,
      });
    }
    const feed = await SseConnection.open(svc.socket, "/api/v1/stream");
    const feedSeen = new Map<string, number>();
    const feedReading = feed.readAll((received, at) => {
      for (const frame of received) {
        if (frame.event !== "approval.requested") continue;
        const requestId = (JSON.parse(frame.data) as { requestId: string }).requestId;
        if (!feedSeen.has(requestId)) feedSeen.set(requestId, at);
      }
    });
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const askerId = await launch(client, {
      projectRoot: project,
      harness: "convo",
      prompt: `asks ${asks} 200`,
    });
    const approvals = await probe<{
      shown: { requestId: string; requestedAt: number; latency: number }[];
      early: number;
    }>(ctx, ["approvals", svc.socket, String(asks), String(asks * 1000 + 10_000)]);
    feed.close();
    await feedReading.catch(() => {});
    const approvalLatencies = approvals.shown.map((a) => a.latency);
    const feedLatencies = approvals.shown.flatMap((a) => {
      const at = feedSeen.get(a.requestId);
      return at === undefined ? [] : [at - a.requestedAt];
    });
    await client.json("POST", `/api/v1/sessions/${askerId}/close`, {}).catch(() => {});

    ctx.log(
      `ui: 10 × 300k idle ${(big.idleCoreShare * 100).toFixed(2)} % (${big.idleWrites} frames), ` +
        `key → screen p50 ${percentile(keyLatencies, 50).toFixed(1)} p99 ${
          percentile(keyLatencies, 99).toFixed(1)
        } ms; approval → screen p99 ${percentile(approvalLatencies, 99).toFixed(1)} ms (feed ${
          percentile(feedLatencies, 99).toFixed(1)
        }, ${approvalLatencies.length} of ${asks} counted)`,
    );
    ctx.log(
      `ui: commit → screen p99 ${percentile(uiLatencies, 99).toFixed(1)} ms (SSE ${
        percentile(sseLatencies, 99).toFixed(1)
      }), load ${(loaded.coreShare * 100).toFixed(1)} % ${
        (loaded.peakRss / MIB).toFixed(0)
      } MiB, ` +
        `idle ${(idle.coreShare * 100).toFixed(2)} %`,
    );
    return [
      figure({
        id: "ui_first_frame_ms",
        label: `svc ui first full frame, ${SEEDED_SESSIONS} sessions in the store (median)`,
        unit: "ms",
        better: "lower",
        svc: median(frames),
        baseline: median(bareFrames),
        baselineLabel: "a bare Ink app's first frame",
        target: { on: "svc", op: "<=", value: 300 },
        details: { runs: frames, baselineRuns: bareFrames },
      }),
      figure({
        id: "ui_commit_to_screen_p99_ms",
        label: "svc ui: an event of the session in focus on screen, p99",
        unit: "ms",
        better: "lower",
        svc: percentile(uiLatencies, 99),
        baseline: percentile(sseLatencies, 99),
        baselineLabel: "a bare SSE reader of the same session",
        target: { on: "svc", op: "<=", value: 100 },
        details: {
          ticks: uiLatencies.length,
          p50: percentile(uiLatencies, 50),
          baselineP50: percentile(sseLatencies, 50),
        },
      }),
      cpuFigure(
        "ui_load_cpu_percent",
        "svc ui CPU, 50 live sessions writing 1,000 lines/s in total",
        [loaded.coreShare, bareLoad.coreShare],
        25,
      ),
      figure({
        id: "ui_load_rss_mib",
        label: "svc ui peak RSS under that load",
        unit: "MiB",
        better: "lower",
        svc: loaded.peakRss / MIB,
        baseline: bareLoad.peakRss / MIB,
        baselineLabel: "a bare Ink app",
        target: { on: "svc", op: "<=", value: 150 },
      }),
      cpuFigure(
        "ui_idle_cpu_percent",
        `svc ui CPU over ${idleMs / 1000} s idle`,
        [idle.coreShare, bareLoad.coreShare],
        1,
      ),
      cpuFigure(
        "ui_big_conversation_idle_cpu_percent",
        `svc ui CPU over ${
          bigIdleMs / 1000
        } s idle in a ${BIG_LINES} × 300k-character conversation`,
        [big.idleCoreShare, bareLoad.coreShare],
        5,
        { framesWhileIdle: big.idleWrites },
      ),
      figure({
        id: "ui_big_conversation_key_p99_ms",
        label: `svc ui key → screen in that conversation (PgUp, k, j, PgDn ×5 each), p99`,
        unit: "ms",
        better: "lower",
        svc: percentile(keyLatencies, 99),
        baseline: percentile(bareKeys, 99),
        baselineLabel: "a bare Ink app counting the same keys",
        target: { on: "svc", op: "<=", value: 100 },
        details: {
          keys: big.latencies.length,
          shown: keyLatencies.length,
          p50: percentile(keyLatencies, 50),
          baselineP50: percentile(bareKeys, 50),
          runs: big.latencies,
        },
      }),
      figure({
        id: "ui_approval_to_screen_p99_ms",
        label: "svc ui: an approval asked (broker's requestedAt) on screen, 50 busy agents, p99",
        unit: "ms",
        better: "lower",
        svc: percentile(approvalLatencies, 99),
        baseline: percentile(feedLatencies, 99),
        baselineLabel: "a bare reader of the daemon's feed (GET /stream)",
        target: { on: "svc", op: "<=", value: 100 },
        details: {
          asked: asks,
          shown: approvalLatencies.length,
          askedBeforeTheViewOpened: approvals.early,
          p50: percentile(approvalLatencies, 50),
          latencies: approvalLatencies,
          baselineP50: percentile(feedLatencies, 50),
        },
      }),
    ];
  } finally {
    client.close();
    await svc.stop();
  }
}

/** A CPU share of one core against the bare Ink app's (`bareShare`), with its goal in %. */
function cpuFigure(
  id: string,
  label: string,
  [coreShare, bareShare]: [number, number],
  goal: number,
  details?: Record<string, unknown>,
): Figure {
  return figure({
    id,
    label: `${label} (% of one core)`,
    unit: "%",
    better: "lower",
    svc: coreShare * 100,
    baseline: bareShare * 100,
    baselineLabel: "a bare Ink app",
    target: { on: "svc", op: "<=", value: goal },
    details,
  });
}

/** Waits (at most 60 s) until no session runs. */
async function waitForQuiet(client: UnixHttpClient): Promise<void> {
  const deadline = performance.now() + 60_000;
  while (performance.now() < deadline) {
    const live = await client.json<unknown[]>("GET", "/api/v1/sessions?status=running&limit=1000");
    if (live.length === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
