import type { Handler } from "../api/app.ts";
import { UNIX_PEER } from "../policy/peer.ts";
import type { Listener } from "./listener.ts";

/**
 * Serves `handler` on a Unix socket at `path`, owner-only from the first
 * instant: the socket is bound under umask 077 (so it is born 0600, never
 * 0755 even briefly) and then chmod'ed 0600 explicitly (deno-notes).
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

/** Last-resort response when the handler itself throws (it maps its own errors). */
export function internalError(): Response {
  return new Response(
    JSON.stringify({
      error: { code: "internal_error", message: "The daemon hit an unexpected error", details: {} },
    }),
    { status: 500, headers: { "content-type": "application/json; charset=utf-8" } },
  );
}
