import type { Handler } from "../api/app.ts";
import type { Logger } from "../log.ts";
import { tcpPeer, type WebSettings } from "../policy/peer.ts";
import { isLoopbackHost, splitHostPort } from "../policy/loopback.ts";
import { ConfigError } from "../config/config_error.ts";
import type { Listener } from "./listener.ts";
import { serveHttp1 } from "./http1_server.ts";

/** A validated `--tcp` address. */
export interface TcpAddress {
  readonly hostname: string;
  readonly port: number;
}

/** Parses `--tcp ADDR:PORT`, accepting only loopback addresses (D1); anything else is exit 2. */
export function parseTcpAddress(value: string): TcpAddress {
  const parsed = splitHostPort(value);
  if (!parsed) {
    throw new ConfigError(`--tcp "${value}" is not ADDR:PORT (for example 127.0.0.1:3000)`);
  }
  if (!isLoopbackHost(parsed.hostname)) {
    throw new ConfigError(
      `--tcp "${value}" is not a loopback address: use 127.0.0.0/8, ::1 or localhost`,
    );
  }
  return parsed;
}

/** `127.0.0.1:3000` or `[::1]:3000`. */
export function formatTcpAddress(address: TcpAddress): string {
  const host = address.hostname.includes(":") ? `[${address.hostname}]` : address.hostname;
  return `${host}:${address.port}`;
}

/**
 * Serves `handler` on a loopback TCP address with svc's own HTTP/1.1 framing
 * (http1_server.ts); its peers never act as the owner (C5.4, D23). Each
 * peer carries its remote address and the web face's settings (D30).
 */
export function listenTcp(
  address: TcpAddress,
  handler: Handler,
  responseHeaders: Record<string, string> = {},
  log?: Logger,
  web?: WebSettings,
): Listener {
  const listener = Deno.listen({ hostname: address.hostname, port: address.port });
  const server = serveHttp1(listener, handler, {
    peer: (conn) =>
      tcpPeer(address.hostname, address.port, {
        web,
        remote: (conn.remoteAddr as Deno.NetAddr).hostname,
      }),
    responseHeaders,
    log,
  });
  return {
    address: formatTcpAddress(address),
    shutdown: () => server.shutdown(),
  };
}
