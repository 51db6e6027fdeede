import { join } from "node:path";
import type { BenchContext } from "./context.ts";
import { UnixHttpClient } from "./http_client.ts";
import { startServer, startSvc } from "./processes.ts";

/** The reads of one server: each read's milliseconds, events per page and the last page's size. */
export interface PageRun {
  ms: number[];
  counts: number[];
  bytes: number;
}

/**
 * The same page reads through svc on `home` and then through the bare page
 * server (scripts/bench/bare_page_server.ts) on the same database, one
 * server at a time. With `bareSameEvents`, the bare server is asked for as
 * many events as svc's page of each offset held (svc cuts at 4 MiB, the bare
 * server has no bound): both serve the same events.
 */
export async function readPagesFromBoth(
  ctx: BenchContext,
  home: string,
  sessionId: string,
  reads: {
    offsets: number[];
    limit: number;
    warmup: number;
    expectFull?: boolean;
    bareSameEvents?: boolean;
  },
): Promise<{ svc: PageRun; bare: PageRun }> {
  const { offsets, limit, warmup, expectFull, bareSameEvents } = reads;
  const svcServer = await startSvc(ctx.registry, home, {
    cpuProfDir: ctx.cpuProfDir ?? undefined,
  });
  let svc: PageRun;
  try {
    svc = await readPages(svcServer.socket, sessionId, offsets, limit, warmup, { expectFull });
  } finally {
    await svcServer.stop();
  }
  const bareServer = await startServer(ctx.registry, "bare page server", join(home, "bare.sock"), [
    new URL("./bare_page_server.ts", import.meta.url).pathname,
    join(home, "bare.sock"),
    join(home, "svc.db"),
  ]);
  let bare: PageRun;
  try {
    const bareLimit = bareSameEvents ? svc.counts : limit;
    bare = await readPages(bareServer.socket, sessionId, offsets, bareLimit, warmup, {
      expectFull,
    });
  } finally {
    await bareServer.stop();
  }
  return { svc, bare };
}

/**
 * Reads event pages of `limit` (or `limit[i]` at `offsets[i]`) at `offsets`,
 * one at a time, on one keep-alive connection; returns each read's
 * milliseconds (the first `warmup` dropped), every page's event count and
 * the last page's size. With `expectFull`, the first page must hold `limit`
 * events (pages of small events are never cut by the 4 MiB bound).
 */
export async function readPages(
  socket: string,
  sessionId: string,
  offsets: number[],
  limit: number | number[],
  warmup: number,
  { expectFull = false }: { expectFull?: boolean } = {},
): Promise<PageRun> {
  const client = await UnixHttpClient.connect(socket);
  const ms: number[] = [];
  const counts: number[] = [];
  let bytes = 0;
  try {
    for (const [index, afterSeq] of offsets.entries()) {
      const max = typeof limit === "number" ? limit : limit[index];
      const started = performance.now();
      const response = await client.request(
        "GET",
        `/api/v1/sessions/${sessionId}/events?afterSeq=${afterSeq}&limit=${max}`,
      );
      const elapsed = performance.now() - started;
      if (response.status !== 200) throw new Error(`A page answered ${response.status}`);
      const count = JSON.parse(new TextDecoder().decode(response.body)).events.length;
      if (index === 0 && expectFull && count !== max) {
        throw new Error(`A page held ${count} events, not ${max}`);
      }
      counts.push(count);
      bytes = response.body.length;
      if (index >= warmup) ms.push(elapsed);
    }
  } finally {
    client.close();
  }
  return { ms, counts, bytes };
}
