import type { Handler } from "../api/app.ts";
import type { Logger } from "../log.ts";
import { UNIX_PEER } from "../policy/peer.ts";
import type { Listener } from "./listener.ts";
import { serveHttp1 } from "./http1_server.ts";

/**
 * Serves `handler` on a Unix socket at `path`, owner-only from the first
 * instant: the socket is bound under umask 077 (so it is born 0600, never
 * 0755 even briefly) and then chmod'ed 0600 explicitly (deno-notes).
 *
 * Served by svc's own HTTP/1.1 framing, as TCP is (issue 13): a connection
 * cap, head/body/idle timeouts and the JSON envelope on every refusal hold
 * for the owner's socket too.
 */
export function listenUnix(
  path: string,
  handler: Handler,
  responseHeaders: Record<string, string> = {},
  log?: Logger,
): Listener {
  const previousUmask = Deno.umask(0o077);
  let listener: Deno.Listener;
  try {
    listener = Deno.listen({ transport: "unix", path });
  } finally {
    Deno.umask(previousUmask);
  }
  Deno.chmodSync(path, 0o600);
  const server = serveHttp1(listener, handler, { peer: UNIX_PEER, responseHeaders, log });
  return {
    address: path,
    shutdown: async () => {
      await server.shutdown();
      await Deno.remove(path).catch(() => {});
    },
  };
}
