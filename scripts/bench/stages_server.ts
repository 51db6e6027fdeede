/**
 * Server-side figures: `/health` throughput against a bare `Deno.serve`, and
 * daemon start time and idle RSS against a bare `Deno.serve` program.
 */
import { join } from "node:path";
import { type BenchContext, makeHome, runLoadProcess } from "./context.ts";
import { withClient } from "./http_client.ts";
import type { LoadResult } from "./load.ts";
import {
  LOAD_SCRIPT,
  residentBytes,
  type ServerProcess,
  startBareServer,
  startServer,
  startSvc,
} from "./processes.ts";

import { type Figure, figure, median, type Target } from "./report.ts";

const NODE_HTTP_SERVER = new URL("./bare_node_http_server.ts", import.meta.url).pathname;
const CONN_SERVER = new URL("./bare_conn_server.ts", import.meta.url).pathname;
const FRAMING_SERVER = new URL("./bare_framing_server.ts", import.meta.url).pathname;
const STACK_FLOOR_SERVER = new URL("./stack_floor_server.ts", import.meta.url).pathname;

function serverOf(server: ServerProcess): { socket: string; pid: number } {
  return { socket: server.socket, pid: server.process.pid };
}

/** Server CPU microseconds per request of one load run (NaN without a CPU reading). */
function microsPerRequest(result: LoadResult): number {
  return result.serverCpuSeconds === null || result.requests === 0
    ? NaN
    : (result.serverCpuSeconds * 1e6) / result.requests;
}

/** Captures the daemon's `/health` JSON into `file` (the bare server answers the same). */
async function captureHealth(socket: string, file: string): Promise<void> {
  const body = await withClient(socket, async (client) => {
    const response = await client.request("GET", "/api/v1/health");
    return new TextDecoder().decode(response.body);
  });
  await Deno.writeTextFile(file, body);
}

/** The `/health` yardsticks: each answers the daemon's own `/health` JSON on a socket of its own. */
const YARDSTICKS = [
  { key: "bare", name: "bare Deno.serve", script: null },
  { key: "nodeHttp", name: "bare node:http", script: NODE_HTTP_SERVER },
  { key: "framing", name: "svc's framing, one fixed answer", script: FRAMING_SERVER },
  { key: "conn", name: "Deno.Conn read/write loop", script: CONN_SERVER },
] as const;
type Yardstick = (typeof YARDSTICKS)[number]["key"];

/**
 * `/health` requests/s and server CPU per request, 32 keep-alive connections,
 * the load generator in its own process, svc against four yardsticks in the
 * same rounds: bare `Deno.serve`, `node:http`, svc's own framing with the
 * handler shape and nothing behind it, and the bare socket loop under any
 * JavaScript server (issue 26: where the handler shape's floor is).
 */
export async function healthThroughput(ctx: BenchContext): Promise<Figure[]> {
  const home = await makeHome(ctx, "health");
  const svc = await startSvc(ctx.registry, home, { cpuProfDir: ctx.cpuProfDir ?? undefined });
  const servers = new Map<Yardstick, ServerProcess>();
  try {
    const bodyFile = join(ctx.root, "health.json");
    await captureHealth(svc.socket, bodyFile);
    for (const { key, name, script } of YARDSTICKS) {
      const socket = join(ctx.root, `health-${key}.sock`);
      servers.set(
        key,
        script === null
          ? await startBareServer(ctx.registry, socket, bodyFile)
          : await startServer(ctx.registry, name, socket, [script, socket, bodyFile]),
      );
    }
    const rps = { svc: [] as number[], ...emptyRounds() };
    const cpu = { svc: [] as number[], ...emptyRounds() };
    let errors = 0;
    for (let round = 0; round < ctx.sizes.healthRounds; round++) {
      const line: string[] = [];
      for (const [key, server] of [...servers, ["svc", svc] as const]) {
        const result = await runLoadProcess(ctx, serverOf(server), LOAD_SCRIPT);
        errors += result.errors;
        rps[key].push(result.requestsPerSecond);
        cpu[key].push(microsPerRequest(result));
        line.push(
          `${key} ${result.requestsPerSecond.toFixed(0)} req/s ${cpu[key].at(-1)!.toFixed(1)} µs`,
        );
      }
      ctx.log(`health round ${round + 1} (CPU/req): ${line.join(", ")}`);
    }
    const details = {
      svcRounds: rps.svc,
      baselineRounds: rps.bare,
      svcCpuMicrosPerRequest: cpu.svc,
      baselineCpuMicrosPerRequest: cpu.bare,
      nodeHttpRounds: rps.nodeHttp,
      nodeHttpCpuMicrosPerRequest: cpu.nodeHttp,
      framingRounds: rps.framing,
      framingCpuMicrosPerRequest: cpu.framing,
      connLoopRounds: rps.conn,
      connLoopCpuMicrosPerRequest: cpu.conn,
      non200: errors,
      measureMs: ctx.sizes.healthMeasureMs,
      warmupMs: ctx.sizes.healthWarmupMs,
      daemonPeakRssBytes: residentBytes(svc.process.pid, "VmHWM"),
    };
    const cpuFigure = (
      id: string,
      key: Yardstick,
      label: string,
      baselineLabel: string,
      target?: Target,
    ) =>
      figure({
        id,
        label,
        unit: "µs",
        better: "lower",
        svc: median(cpu.svc),
        baseline: median(cpu[key]),
        baselineLabel,
        target,
        details,
      });
    return [
      figure({
        id: "health_rps",
        label:
          `/health throughput (${ctx.sizes.connections} keep-alive conns, best of ${ctx.sizes.healthRounds})`,
        unit: "req/s",
        better: "higher",
        svc: Math.max(...rps.svc),
        baseline: Math.max(...rps.bare),
        baselineLabel: "bare Deno.serve, same JSON",
        target: { on: "ratio", op: ">=", value: 0.8 },
        details,
      }),
      cpuFigure(
        "health_cpu_us_per_request",
        "bare",
        "/health server CPU per request (all threads, median of rounds)",
        "bare Deno.serve, same JSON",
      ),
      cpuFigure(
        "health_cpu_us_per_request_vs_node_http",
        "nodeHttp",
        "/health server CPU per request against node:http (median of rounds)",
        "bare node:http, same JSON",
        // Issue 26: per-request speed ≥ 0.8× node:http's, so CPU per request ≤ 1.25×.
        { on: "ratio", op: "<=", value: 1.25 },
      ),
      cpuFigure(
        "health_cpu_us_per_request_vs_framing",
        "framing",
        "/health server CPU per request against svc's framing alone (median of rounds)",
        "svc's framing and handler shape, one fixed answer",
      ),
      cpuFigure(
        "health_cpu_us_per_request_vs_conn_loop",
        "conn",
        "/health server CPU per request against the bare socket loop (median of rounds)",
        "Deno.Conn read/write loop, no parsing",
      ),
    ];
  } finally {
    for (const server of servers.values()) await server.stop();
    await svc.stop();
  }
}

function emptyRounds(): Record<Yardstick, number[]> {
  return { bare: [], nodeHttp: [], framing: [], conn: [] };
}

/** One start: spawn → first `/health` 200, then idle 1 s and read VmRSS, then stop. */
async function measureStart(start: () => Promise<ServerProcess>) {
  const server = await start();
  try {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    return { readyMs: server.readyMs, rss: residentBytes(server.process.pid) ?? NaN };
  } finally {
    await server.stop();
  }
}

/** Daemon start → socket answering, and idle RSS, against a bare `Deno.serve` program. */
export async function startAndMemory(ctx: BenchContext): Promise<Figure[]> {
  const bodyFile = join(ctx.root, "start-health.json");
  const svcStarts: number[] = [];
  const svcRss: number[] = [];
  const bareStarts: number[] = [];
  const bareRss: number[] = [];
  const floorRss: number[] = [];
  // Run 0 of each warms Deno's module cache and is not counted.
  for (let run = 0; run <= ctx.sizes.startRuns; run++) {
    const home = await makeHome(ctx, `start-${run}`);
    const ours = await measureStart(async () => {
      const server = await startSvc(ctx.registry, home);
      if (run === 0) await captureHealth(server.socket, bodyFile);
      return server;
    });
    await Deno.remove(home, { recursive: true });
    const socket = join(ctx.root, `start-bare-${run}.sock`);
    const base = await measureStart(() => startBareServer(ctx.registry, socket, bodyFile));
    const floorDir = await makeHome(ctx, `start-floor-${run}`);
    const floor = await measureStart(() =>
      startServer(ctx.registry, "stack floor", join(floorDir, "floor.sock"), [
        STACK_FLOOR_SERVER,
        join(floorDir, "floor.sock"),
        bodyFile,
        floorDir,
      ])
    );
    await Deno.remove(floorDir, { recursive: true });
    if (run === 0) continue;
    svcStarts.push(ours.readyMs);
    svcRss.push(ours.rss);
    bareStarts.push(base.readyMs);
    bareRss.push(base.rss);
    floorRss.push(floor.rss);
    ctx.log(
      `start run ${run}: svc ${ours.readyMs.toFixed(0)} ms ${(ours.rss / 1e6).toFixed(1)} MB, ` +
        `bare ${base.readyMs.toFixed(0)} ms ${(base.rss / 1e6).toFixed(1)} MB, ` +
        `stack floor ${(floor.rss / 1e6).toFixed(1)} MB (${
          (floor.rss / base.rss).toFixed(2)
        }× bare)`,
    );
  }
  const idleRssFigure = (
    id: string,
    against: string,
    baselineRss: number[],
    baselineLabel: string,
    extra: { target?: Target; details: Record<string, unknown> },
  ) =>
    figure({
      id,
      label: `idle RSS 1 s after start${against} (median)`,
      unit: "MB",
      better: "lower",
      svc: median(svcRss) / 1e6,
      baseline: median(baselineRss) / 1e6,
      baselineLabel,
      ...extra,
    });
  return [
    figure({
      id: "start_ms",
      label: `daemon start → socket answering (median of ${ctx.sizes.startRuns})`,
      unit: "ms",
      better: "lower",
      svc: median(svcStarts),
      baseline: median(bareStarts),
      baselineLabel: "bare Deno.serve program",
      target: { on: "svc", op: "<=", value: 200 },
      details: { svcRuns: svcStarts, baselineRuns: bareStarts },
    }),
    idleRssFigure("idle_rss_mb", "", bareRss, "bare Deno.serve program", {
      target: { on: "ratio", op: "<=", value: 1.6 },
      details: { svcRunsBytes: svcRss, baselineRunsBytes: bareRss },
    }),
    // The measured floor of the figure above (issue 26): the stack alone, in the same runs.
    idleRssFigure(
      "idle_rss_mb_vs_stack_floor",
      " against svc's stack alone",
      floorRss,
      "zod, smol-toml, node:sqlite, Temporal and Deno.serve, no svc code",
      {
        details: { floorRunsBytes: floorRss, floorAgainstBare: median(floorRss) / median(bareRss) },
      },
    ),
  ];
}
