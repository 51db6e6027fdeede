/**
 * The daemon's HTTP/1.1 server for the TCP listener (issue 13), which every
 * local user can reach: svc's own framing (http1_framing.ts, also the
 * Windows pipe's) over accepted connections, because `Deno.serve` bounds
 * neither the number of connections nor the time a request may take to
 * arrive (measured: a head left unfinished was held 70 s and more; ~1000
 * idle connections at a 1024 descriptor limit ended the daemon). Here:
 *
 * - at most `maxConnections` are served; one more is answered 503
 *   `too_many_connections` and closed at once;
 * - a head must arrive within 10 s, a body within 60 s, and a kept-alive
 *   connection idles at most 120 s (a long-poll or a stream that is being
 *   answered is not bounded here);
 * - an accept error (out of descriptors) is logged and retried, never fatal;
 * - every error the HTTP layer produces is the JSON envelope.
 */
import type { Handler } from "../api/app.ts";
import type { Logger } from "../log.ts";
import type { Peer } from "../policy/peer.ts";
import {
  type ByteDuplex,
  DEFAULT_LIMITS,
  DEFAULT_TIMEOUTS,
  FramingError,
  framingErrorResponse,
  serveHttp1Connection,
} from "./http1_framing.ts";

/** Connections served at once (docs/operations.md). */
const MAX_CONNECTIONS = 512;

const TOO_MANY_CONNECTIONS = new FramingError(
  503,
  "too_many_connections",
  "The daemon is serving as many connections as it allows: retry shortly",
);

/** Options of `serveHttp1`. */
export interface Http1ServerOptions {
  /** Who the connections' requests come from (the owner on the socket, never on TCP). */
  peer: Peer;
  /** Fields every refusal of the server itself carries (`Svc-Instance`, D5). */
  responseHeaders?: Record<string, string>;
  log?: Logger;
}

/** A running server: `shutdown()` stops accepting and ends idle connections. */
export interface Http1Server {
  shutdown(): Promise<void>;
}

/** Serves `handler` on `listener` until shutdown. */
export function serveHttp1(
  listener: Deno.Listener,
  handler: Handler,
  options: Http1ServerOptions,
): Http1Server {
  const connections = new Map<Deno.Conn, { busy: boolean; duplex: ConnDuplex }>();
  const tasks = new Set<Promise<void>>();
  let stopping = false;

  const serve = async (conn: Deno.Conn) => {
    const duplex = new ConnDuplex(conn);
    const state = { busy: false, duplex };
    connections.set(conn, state);
    try {
      if (connections.size > MAX_CONNECTIONS) {
        await duplex.write(
          framingErrorResponse(TOO_MANY_CONNECTIONS, undefined, options.responseHeaders),
        ).catch(() => {});
        return;
      }
      await serveHttp1Connection(duplex, async (req) => {
        state.busy = true;
        try {
          return await handler(req, options.peer);
        } catch {
          return internalError();
        } finally {
          state.busy = false;
        }
      }, {
        // A body over 1 MiB reaches its route unread: the route refuses it in its own shape.
        limits: { ...DEFAULT_LIMITS, skipOversizedBodies: true },
        timeouts: DEFAULT_TIMEOUTS,
        responseHeaders: options.responseHeaders,
        isStopping: () => stopping,
      });
    } finally {
      connections.delete(conn);
      duplex.close();
    }
  };

  const accepting = (async () => {
    for (;;) {
      let conn: Deno.Conn;
      try {
        conn = await listener.accept();
      } catch (error) {
        if (stopping || error instanceof Deno.errors.BadResource) return;
        // Out of descriptors (EMFILE) or a transient error: never fatal, retry shortly.
        options.log?.warn("Cannot accept a connection; retrying", { error });
        await new Promise((resolve) => setTimeout(resolve, 100));
        continue;
      }
      const task = serve(conn).catch(() => {});
      tasks.add(task);
      task.finally(() => tasks.delete(task));
    }
  })();

  return {
    async shutdown() {
      stopping = true;
      try {
        listener.close();
      } catch { /* already closed */ }
      await accepting;
      // Idle connections end now; busy ones after their current answer (or at the daemon's
      // stop deadline, which exits).
      for (const state of connections.values()) if (!state.busy) state.duplex.cancelRead();
      await Promise.all([...tasks]);
    },
  };
}

/** A `Deno.Conn` as the framing's byte duplex; a cancelled read resolves null at once. */
class ConnDuplex implements ByteDuplex {
  readonly #conn: Deno.Conn;
  #cancel: (() => void) | null = null;
  #closed = false;

  constructor(conn: Deno.Conn) {
    this.#conn = conn;
  }

  read(into: Uint8Array): Promise<number | null> {
    return new Promise((resolve) => {
      this.#cancel = () => resolve(null);
      this.#conn.read(into).then(resolve, () => resolve(null));
    }).finally(() => this.#cancel = null) as Promise<number | null>;
  }

  async write(bytes: Uint8Array): Promise<void> {
    for (let written = 0; written < bytes.length;) {
      written += await this.#conn.write(bytes.subarray(written));
    }
  }

  cancelRead(): void {
    this.#cancel?.();
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    try {
      this.#conn.close();
    } catch { /* already closed */ }
  }
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
