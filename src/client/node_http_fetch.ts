import { type Agent, request } from "node:http";
import { Readable } from "node:stream";

/**
 * `fetch` with `node:http`, over a local path (a Windows named pipe, which
 * Deno's fetch cannot dial, or for tests on Unix a socket path) or through an
 * agent whose connections are dialed streams (a context, D32). Returns a web
 * `Response` whose body streams, so the client's size bound applies.
 */
export function fetchOverNodeHttp(
  via: { socketPath: string } | { agent: Agent },
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string; signal?: AbortSignal },
): Promise<Response> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const outgoing = request({
      ...via,
      method: init.method,
      path: target.pathname + target.search,
      headers: {
        host: "localhost",
        ...init.headers,
        ...(init.body === undefined
          ? {}
          : { "content-length": String(Buffer.byteLength(init.body)) }),
      },
      signal: init.signal,
    }, (incoming) => {
      const headers = new Headers();
      for (let i = 0; i + 1 < incoming.rawHeaders.length; i += 2) {
        headers.append(incoming.rawHeaders[i], incoming.rawHeaders[i + 1]);
      }
      resolve(
        new Response(Readable.toWeb(incoming) as ReadableStream<Uint8Array>, {
          status: incoming.statusCode ?? 500,
          headers,
        }),
      );
    });
    outgoing.on("error", reject);
    outgoing.end(init.body);
  });
}
