/**
 * The `/health` load generator, run as its own process so that it never shares
 * an event loop with the server it measures. N keep-alive connections, one
 * request in flight each, for a warm-up then a measured window; prints one JSON
 * line: `{ requests, errors, seconds, requestsPerSecond, serverCpuSeconds }`. With
 * SERVER_PID, the server's CPU time (all threads, /proc/<pid>/stat) over the
 * measured window is reported too: CPU per request is steadier than req/s on a
 * machine shared with other work.
 *
 *   deno run -A scripts/bench/load.ts SOCKET PATH CONNECTIONS WARMUP_MS MEASURE_MS [SERVER_PID]
 */
import { UnixHttpClient } from "./http_client.ts";

/** The measured outcome of one load run. */
export interface LoadResult {
  requests: number;
  errors: number;
  seconds: number;
  requestsPerSecond: number;
  /** CPU seconds the server used during the window, or null without a pid. */
  serverCpuSeconds: number | null;
}

/** Upper bound on requests per connection, whatever the duration (a bounded loop). */
const MAX_REQUESTS_PER_CONNECTION = 10_000_000;

/** Drives `connections` keep-alive connections at `path` on `socket`. */
export async function runLoad(
  socket: string,
  path: string,
  options: { connections: number; warmupMs: number; measureMs: number; serverPid?: number },
): Promise<LoadResult> {
  const request = new TextEncoder().encode(`GET ${path} HTTP/1.1\r\nhost: localhost\r\n\r\n`);
  const clients = await Promise.all(
    Array.from({ length: options.connections }, () => UnixHttpClient.connect(socket)),
  );
  let completed = 0;
  let errors = 0;
  let stop = false;
  const loops = clients.map(async (client) => {
    for (let i = 0; i < MAX_REQUESTS_PER_CONNECTION && !stop; i++) {
      await client.writeRaw(request);
      const status = await client.skipResponse();
      if (status === 200) completed++;
      else errors++;
    }
  });
  const failed = Promise.all(loops).then(() => null, (error: Error) => error);
  await sleep(options.warmupMs);
  const startCount = completed;
  const startErrors = errors;
  const startCpu = options.serverPid ? cpuSeconds(options.serverPid) : null;
  const started = performance.now();
  await sleep(options.measureMs);
  const endCount = completed;
  const endErrors = errors;
  const seconds = (performance.now() - started) / 1000;
  const endCpu = options.serverPid ? cpuSeconds(options.serverPid) : null;
  stop = true;
  const error = await failed;
  for (const client of clients) client.close();
  if (error) throw error;
  return {
    requests: endCount - startCount,
    errors: endErrors - startErrors,
    seconds,
    requestsPerSecond: (endCount - startCount) / seconds,
    serverCpuSeconds: startCpu === null || endCpu === null ? null : endCpu - startCpu,
  };
}

/** User + system CPU seconds of process `pid` (clock ticks of 10 ms, Linux). */
export function cpuSeconds(pid: number): number | null {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

if (import.meta.main) {
  const [socket, path, connections, warmupMs, measureMs, serverPid] = Deno.args;
  const result = await runLoad(socket, path, {
    connections: Number(connections),
    warmupMs: Number(warmupMs),
    measureMs: Number(measureMs),
    serverPid: serverPid === undefined ? undefined : Number(serverPid),
  });
  console.log(JSON.stringify(result));
}
