import type { DeviceGrant } from "./device_scopes.ts";

/**
 * Who is asking, decided once per connection by the transport (like
 * Tailscale's safesocket): the Unix socket and the named pipe are owner-only
 * endpoints, so their peers act as the owner; a TCP peer never does (C5.4).
 * A TCP request with a paired device's credential carries that device (D30).
 */
export type Peer =
  | { readonly transport: "unix" | "pipe"; readonly owner: true }
  | TcpPeer;

/** A peer of the loopback TCP listener (D14, D23, D30). */
export interface TcpPeer {
  readonly transport: "tcp";
  readonly owner: false;
  /** The listener's own address, for the Host/Origin checks of D14. */
  readonly listener: { readonly hostname: string; readonly port: number };
  /** The web face's origins and proxy trust (D30); none when absent. */
  readonly web?: WebSettings;
  /** The connection's remote address (a loopback address: the listener binds nothing else). */
  readonly remote?: string;
  /** The paired device whose credential this request carries (D30), set per request. */
  readonly device?: DeviceGrant;
}

/** Config `web` (D30): origins a tunnel or proxy serves the listener at, and proxy trust. */
export interface WebSettings {
  /** Allowed origins besides the loopback names, e.g. `https://box.tailnet.ts.net`. */
  readonly origins: readonly string[];
  /** Honour `X-Forwarded-Host`/`-For` from a loopback peer. */
  readonly trustProxy: boolean;
}

/** The peer of every request on the owner-only Unix socket. */
export const UNIX_PEER: Peer = { transport: "unix", owner: true };

/** The peer of every request on the owner-only Windows named pipe. */
export const PIPE_PEER: Peer = { transport: "pipe", owner: true };

/** The peer of a request on the loopback TCP listener at `hostname:port`. */
export function tcpPeer(
  hostname: string,
  port: number,
  options: { web?: WebSettings; remote?: string } = {},
): TcpPeer {
  return { transport: "tcp", owner: false, listener: { hostname, port }, ...options };
}
