import { UnixHttpClient } from "./http_client.ts";

/**
 * Reads event pages of `limit` at `offsets`, one at a time, on one
 * keep-alive connection; returns each read's milliseconds (the first
 * `warmup` dropped) and the last page's size. With `expectFull`, the first
 * page must hold `limit` events (pages of small events are never cut by the
 * 4 MiB bound).
 */
export async function readPages(
  socket: string,
  sessionId: string,
  offsets: number[],
  limit: number,
  warmup: number,
  { expectFull = false }: { expectFull?: boolean } = {},
): Promise<{ ms: number[]; bytes: number }> {
  const client = await UnixHttpClient.connect(socket);
  const ms: number[] = [];
  let bytes = 0;
  try {
    for (const [index, afterSeq] of offsets.entries()) {
      const started = performance.now();
      const response = await client.request(
        "GET",
        `/api/v1/sessions/${sessionId}/events?afterSeq=${afterSeq}&limit=${limit}`,
      );
      const elapsed = performance.now() - started;
      if (response.status !== 200) throw new Error(`A page answered ${response.status}`);
      if (index === 0 && expectFull) {
        const count = JSON.parse(new TextDecoder().decode(response.body)).events.length;
        if (count !== limit) throw new Error(`A page held ${count} events, not ${limit}`);
      }
      bytes = response.body.length;
      if (index >= warmup) ms.push(elapsed);
    }
  } finally {
    client.close();
  }
  return { ms, bytes };
}
