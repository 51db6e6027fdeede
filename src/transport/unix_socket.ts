import type { Handler } from "../api/app.ts";
import { UNIX_PEER } from "../policy/peer.ts";
import type { Listener } from "./listener.ts";
import { internalError } from "./http1_server.ts";

/**
 * Serves `handler` on a Unix socket at `path`, owner-only from the first
 * instant: the socket is bound under umask 077 (so it is born 0600, never
 * 0755 even briefly) and then chmod'ed 0600 explicitly (deno-notes).
 *
 * Served by `Deno.serve`, not svc's own framing as TCP is: only the owner
 * can connect here, and the framing costs ~3× the CPU per request (measured
 * in docs/benchmarks.md, issue 13), so the owner's path stays the fast one.
 */
export function listenUnix(path: string, handler: Handler): Listener {
  const previousUmask = Deno.umask(0o077);
  let server: Deno.HttpServer;
  try {
    server = Deno.serve(
      { path, onListen: () => {}, onError: internalError },
      (req) => handler(req, UNIX_PEER),
    );
  } finally {
    Deno.umask(previousUmask);
  }
  Deno.chmodSync(path, 0o600);
  return {
    address: path,
    shutdown: async () => {
      await server.shutdown();
      await server.finished;
    },
  };
}
