import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { once } from "node:events";
import { Readable } from "node:stream";
import type { Handler } from "../api/app.ts";
import type { Peer } from "../policy/peer.ts";
import type { Listener } from "./listener.ts";
import { internalError } from "./http1_server.ts";

/**
 * The named-pipe path of D15: a `node:http` server that converts each request
 * to a `Request`, calls the same handler as `Deno.serve`, and streams the
 * `Response` back honouring `drain`. `target` is a pipe name on Windows; on
 * Unix it may be a socket path, which is how it is tested.
 */
export async function listenNodeShim(
  target: string,
  handler: Handler,
  peer: Peer,
): Promise<Listener> {
  const server = createServer((req, res) => {
    serveOne(req, res, handler, peer).catch(() => res.destroy());
  });
  server.listen(target);
  await once(server, "listening");
  return {
    address: target,
    shutdown: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}

async function serveOne(
  req: IncomingMessage,
  res: ServerResponse,
  handler: Handler,
  peer: Peer,
): Promise<void> {
  const headers = new Headers();
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    headers.append(req.rawHeaders[i], req.rawHeaders[i + 1]);
  }
  const method = req.method ?? "GET";
  const hasBody = method !== "GET" && method !== "HEAD";
  let response: Response;
  try {
    const request = new Request(new URL(req.url ?? "/", "http://localhost"), {
      method,
      headers,
      body: hasBody ? (Readable.toWeb(req) as ReadableStream<Uint8Array>) : null,
      duplex: "half",
    } as RequestInit);
    response = await handler(request, peer);
  } catch {
    response = internalError();
  }
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (response.body) {
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!res.write(value)) await once(res, "drain");
    }
  }
  res.end();
}
