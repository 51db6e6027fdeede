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

const NODE_HTTP_SERVER = new URL("./bare_node_http_server.ts", import.meta.url).pathname;
import { type Figure, figure, median } from "./report.ts";

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

/** `/health` requests/s, 32 keep-alive connections, load generator in its own process. */
export async function healthThroughput(ctx: BenchContext): Promise<Figure[]> {
  const home = await makeHome(ctx, "health");
  const svc = await startSvc(ctx.registry, home, { cpuProfDir: ctx.cpuProfDir ?? undefined });
  let bare: ServerProcess | null = null;
  let nodeHttp: ServerProcess | null = null;
  try {
    const bodyFile = join(ctx.root, "health.json");
    await captureHealth(svc.socket, bodyFile);
    bare = await startBareServer(ctx.registry, join(ctx.root, "bare.sock"), bodyFile);
    const nodeSocket = join(ctx.root, "node-http.sock");
    nodeHttp = await startServer(ctx.registry, "bare node:http", nodeSocket, [
      NODE_HTTP_SERVER,
      nodeSocket,
      bodyFile,
    ]);
    const svcRuns: number[] = [];
    const bareRuns: number[] = [];
    const nodeRuns: number[] = [];
    const svcCpu: number[] = [];
    const bareCpu: number[] = [];
    const nodeCpu: number[] = [];
    let errors = 0;
    for (let round = 0; round < ctx.sizes.healthRounds; round++) {
      const base = await runLoadProcess(ctx, serverOf(bare), LOAD_SCRIPT);
      const node = await runLoadProcess(ctx, serverOf(nodeHttp), LOAD_SCRIPT);
      const ours = await runLoadProcess(ctx, serverOf(svc), LOAD_SCRIPT);
      errors += base.errors + node.errors + ours.errors;
      bareRuns.push(base.requestsPerSecond);
      nodeRuns.push(node.requestsPerSecond);
      svcRuns.push(ours.requestsPerSecond);
      bareCpu.push(microsPerRequest(base));
      nodeCpu.push(microsPerRequest(node));
      svcCpu.push(microsPerRequest(ours));
      ctx.log(
        `health round ${round + 1}: svc ${ours.requestsPerSecond.toFixed(0)} req/s ${
          svcCpu.at(-1)!.toFixed(1)
        } µs CPU/req, bare ${base.requestsPerSecond.toFixed(0)} req/s ${
          bareCpu.at(-1)!.toFixed(1)
        } µs CPU/req, node:http ${node.requestsPerSecond.toFixed(0)} req/s ${
          nodeCpu.at(-1)!.toFixed(1)
        } µs CPU/req`,
      );
    }
    const details = {
      svcRounds: svcRuns,
      baselineRounds: bareRuns,
      svcCpuMicrosPerRequest: svcCpu,
      baselineCpuMicrosPerRequest: bareCpu,
      nodeHttpRounds: nodeRuns,
      nodeHttpCpuMicrosPerRequest: nodeCpu,
      non200: errors,
      measureMs: ctx.sizes.healthMeasureMs,
      warmupMs: ctx.sizes.healthWarmupMs,
      daemonPeakRssBytes: residentBytes(svc.process.pid, "VmHWM"),
    };
    return [
      figure({
        id: "health_rps",
        label:
          `/health throughput (${ctx.sizes.connections} keep-alive conns, best of ${ctx.sizes.healthRounds})`,
        unit: "req/s",
        better: "higher",
        svc: Math.max(...svcRuns),
        baseline: Math.max(...bareRuns),
        baselineLabel: "bare Deno.serve, same JSON",
        target: { on: "ratio", op: ">=", value: 0.8 },
        details,
      }),
      figure({
        id: "health_cpu_us_per_request",
        label: "/health server CPU per request (all threads, median of rounds)",
        unit: "µs",
        better: "lower",
        svc: median(svcCpu),
        baseline: median(bareCpu),
        baselineLabel: "bare Deno.serve, same JSON",
        details,
      }),
      figure({
        id: "health_cpu_us_per_request_vs_node_http",
        label: "/health server CPU per request against node:http (median of rounds)",
        unit: "µs",
        better: "lower",
        svc: median(svcCpu),
        baseline: median(nodeCpu),
        baselineLabel: "bare node:http, same JSON",
        details,
      }),
    ];
  } finally {
    await nodeHttp?.stop();
    await bare?.stop();
    await svc.stop();
  }
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
    if (run === 0) continue;
    svcStarts.push(ours.readyMs);
    svcRss.push(ours.rss);
    bareStarts.push(base.readyMs);
    bareRss.push(base.rss);
    ctx.log(
      `start run ${run}: svc ${ours.readyMs.toFixed(0)} ms ${(ours.rss / 1e6).toFixed(1)} MB, ` +
        `bare ${base.readyMs.toFixed(0)} ms ${(base.rss / 1e6).toFixed(1)} MB`,
    );
  }
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
    figure({
      id: "idle_rss_mb",
      label: "idle RSS 1 s after start (median)",
      unit: "MB",
      better: "lower",
      svc: median(svcRss) / 1e6,
      baseline: median(bareRss) / 1e6,
      baselineLabel: "bare Deno.serve program",
      target: { on: "svc", op: "<=", value: 80 },
      details: { svcRunsBytes: svcRss, baselineRunsBytes: bareRss },
    }),
  ];
}
