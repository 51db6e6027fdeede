/**
 * `/health` latency on the owner's socket while 200 other connections
 * trickle 1 MiB request bodies a byte at a time (issue 28 item 1: each byte
 * re-copied everything buffered, and `/health` took 2–10 s). They trickle
 * on the socket because TCP bodies are now bounded at 64 KiB and refused
 * from the head beyond; the buffering is the same code on every listener.
 * The baseline is the same daemon's `/health` latency with no trickling.
 */
import { fileURLToPath } from "node:url";
import { type BenchContext, makeHome } from "./context.ts";
import { withClient } from "./http_client.ts";
import { startSvc } from "./processes.ts";
import { type Figure, figure, percentile } from "./report.ts";

const TRICKLE_SCRIPT = fileURLToPath(new URL("./trickle_load.ts", import.meta.url));
const CONNECTIONS = 200;
const TRICKLE_INTERVAL_MS = 1;
const BODY_BYTES = 1024 * 1024;

/** Milliseconds of each sequential `/health` request on the socket for `durationMs`. */
async function healthLatencies(socket: string, durationMs: number): Promise<number[]> {
  return await withClient(socket, async (client) => {
    const latencies: number[] = [];
    const until = performance.now() + durationMs;
    while (performance.now() < until) {
      const started = performance.now();
      const response = await client.request("GET", "/api/v1/health");
      if (response.status !== 200) throw new Error(`/health answered ${response.status}`);
      latencies.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    return latencies;
  });
}

export async function trickleLatency(ctx: BenchContext): Promise<Figure[]> {
  const home = await makeHome(ctx, "trickle");
  const svc = await startSvc(ctx.registry, home, { cpuProfDir: ctx.cpuProfDir ?? undefined });
  const measureMs = ctx.quick ? 3000 : 10_000;
  try {
    const quiet = await healthLatencies(svc.socket, measureMs);
    const load = ctx.registry.spawn("trickling clients", Deno.execPath(), [
      "run",
      "--allow-all",
      TRICKLE_SCRIPT,
      svc.socket,
      String(BODY_BYTES),
      String(CONNECTIONS),
      String(measureMs + 5000),
      String(TRICKLE_INTERVAL_MS),
    ], { stdout: "piped" });
    const output = new Response(load.child.stdout).text();
    // Let every connection send its bulk and start trickling before measuring.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const loaded = await healthLatencies(svc.socket, measureMs);
    await load.exited;
    const trickled = JSON.parse(await output) as { bytesSent: number; refused: number };
    ctx.log(
      `trickle: /health p99 ${percentile(loaded, 99).toFixed(1)} ms under ${CONNECTIONS} ` +
        `trickling connections (quiet ${percentile(quiet, 99).toFixed(1)} ms), ` +
        `${trickled.bytesSent} bytes trickled, ${trickled.refused} connections refused`,
    );
    return [
      figure({
        id: "trickle_health_p99_ms",
        label: `/health p99 on the socket while ${CONNECTIONS} connections trickle 1 MiB bodies`,
        unit: "ms",
        better: "lower",
        svc: percentile(loaded, 99),
        baseline: percentile(quiet, 99),
        baselineLabel: "the same daemon's /health p99 with no trickling",
        target: { on: "svc", op: "<=", value: 100 },
        details: {
          requestsUnderLoad: loaded.length,
          requestsQuiet: quiet.length,
          p50UnderLoad: percentile(loaded, 50),
          p50Quiet: percentile(quiet, 50),
          ...trickled,
        },
      }),
    ];
  } finally {
    await svc.stop();
  }
}
