/**
 * The daemon's HTTP/1.1 server for the Unix socket and the TCP listener
 * (issue 13): svc's own framing (http1_connection.ts, also the Windows pipe's)
 * over accepted connections, because `Deno.serve` bounds
 * neither the number of connections nor the time a request may take to
 * arrive (measured: a head left unfinished was held 70 s and more; ~1000
 * idle connections at a 1024 descriptor limit ended the daemon). Here:
 *
 * - at most `maxConnections` are served; one more is answered 503
 *   `too_many_connections` and closed at once;
 * - a head must arrive within 10 s (a first byte too), a body within 60 s, and a kept-alive
 *   connection idles at most 120 s (a long-poll or a stream that is being
 *   answered is not bounded here);
 * - an accept error (out of descriptors) is logged and retried, never fatal;
 * - every error the HTTP layer produces is the JSON envelope.
 */
import type { Handler } from "../api/app.ts";
import type { Logger } from "../log.ts";
import type { Peer } from "../policy/peer.ts";
import { maxBodyBytes } from "../policy/body.ts";
import { type ByteDuplex, DEFAULT_TIMEOUTS, serveHttp1Connection } from "./http1_connection.ts";
import { DEFAULT_LIMITS, TOO_MANY_CONNECTIONS } from "./http1_errors.ts";
import { framingErrorResponse } from "./http1_response.ts";

/** Connections served at once (docs/operations.md). */
const MAX_CONNECTIONS = 512;

/** Options of `serveHttp1`. */
export interface Http1ServerOptions {
  /**
   * Who the connections' requests come from (the owner on the socket, never
   * on TCP), or how to tell from a connection (its remote address, D30).
   */
  peer: Peer | ((conn: Deno.Conn) => Peer);
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
  const connections = new Set<ConnDuplex>();
  const tasks = new Set<Promise<void>>();
  let stopping = false;

  const serve = async (conn: Deno.Conn) => {
    const duplex = new ConnDuplex(conn);
    connections.add(duplex);
    const peer = typeof options.peer === "function" ? options.peer(conn) : options.peer;
    try {
      if (connections.size > MAX_CONNECTIONS) {
        await duplex.write(
          framingErrorResponse(TOO_MANY_CONNECTIONS, undefined, options.responseHeaders),
        ).catch(() => {});
        return;
      }
      // A handler that throws is answered 500 internal_error by the framing.
      await serveHttp1Connection(duplex, (req) => handler(req, peer), {
        // A body over the peer's bound reaches its route unread: the route refuses it in its
        // own shape.
        limits: {
          ...DEFAULT_LIMITS,
          maxBodyBytes: maxBodyBytes(peer),
          skipOversizedBodies: true,
        },
        beforeBody: handler.beforeBody && ((req) => handler.beforeBody!(req, peer)),
        timeouts: DEFAULT_TIMEOUTS,
        responseHeaders: options.responseHeaders,
        isStopping: () => stopping,
      });
    } finally {
      connections.delete(duplex);
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
      // Connections waiting for a request end now (streams too); busy ones after their
      // current answer (or at the daemon's stop deadline, which exits).
      for (const duplex of connections) duplex.cancelRead();
      await Promise.all([...tasks]);
    },
  };
}

/**
 * A `Deno.Conn` as the framing's byte duplex. Cancelling a pending read
 * closes the connection (the framing cancels only to end it, after any
 * answer is written; a response being written is never cut): cheaper per
 * read than a cancellable wrapper promise.
 */
class ConnDuplex implements ByteDuplex {
  readonly #conn: Deno.Conn;
  #closed = false;
  #reading = false;

  constructor(conn: Deno.Conn) {
    this.#conn = conn;
  }

  read(into: Uint8Array): Promise<number | null> {
    this.#reading = true;
    return this.#conn.read(into).then(
      (count) => (this.#reading = false, count),
      () => (this.#reading = false, null),
    );
  }

  async write(bytes: Uint8Array): Promise<void> {
    for (let written = 0; written < bytes.length;) {
      written += await this.#conn.write(bytes.subarray(written));
    }
  }

  cancelRead(): void {
    if (this.#reading) this.close();
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    try {
      this.#conn.close();
    } catch { /* already closed */ }
  }
}
