import { Agent } from "node:http";
import { Duplex } from "node:stream";
import type { StreamDialer } from "./client.ts";

/**
 * Connections of one dialer at once: a stream held open (`/stream`, a
 * session's events) and a few requests beside it. Beyond, requests queue.
 */
const MAX_CONNECTIONS = 4;

/**
 * A keep-alive pool of dialed streams for node:http (D32): a connection is
 * dialed when no idle one is left (up to `MAX_CONNECTIONS`) and reused for
 * the next request once its response has been read, so a client does not
 * start an ssh per request. A connection the other end closed (the daemon
 * drops one idle for 120 s) leaves the pool; the next request dials again.
 */
export function dialedAgent(dialer: StreamDialer): Agent {
  return new DialedAgent(dialer);
}

class DialedAgent extends Agent {
  readonly #dialer: StreamDialer;

  constructor(dialer: StreamDialer) {
    super({ keepAlive: true, maxSockets: MAX_CONNECTIONS });
    this.#dialer = dialer;
  }

  /** Node's hook for a new connection: a dialed stream dressed as the socket node:http expects. */
  override createConnection(): Duplex {
    // Deno's web streams and @types/node's (pulled in by a typed npm package) differ only
    // in whether a done read's `value` is optional: the same objects at run time.
    const socket = Duplex.fromWeb(this.#dialer.dial() as Parameters<typeof Duplex.fromWeb>[0]);
    // node:http tunes TCP sockets; a pipe has nothing to tune.
    return Object.assign(socket, {
      setKeepAlive: () => socket,
      setNoDelay: () => socket,
      setTimeout: () => socket,
      ref: () => socket,
      unref: () => socket,
    });
  }
}
