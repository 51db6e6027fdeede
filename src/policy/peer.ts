/**
 * Who is asking, decided once per connection by the transport (like
 * Tailscale's safesocket): the Unix socket and the named pipe are owner-only
 * endpoints, so their peers act as the owner; a TCP peer never does (C5.4).
 */
export type Peer =
  | { readonly transport: "unix" | "pipe"; readonly owner: true }
  | {
    readonly transport: "tcp";
    readonly owner: false;
    /** The listener's own address, for the Host/Origin checks of D14. */
    readonly listener: { readonly hostname: string; readonly port: number };
  };

/** The peer of every request on the owner-only Unix socket. */
export const UNIX_PEER: Peer = { transport: "unix", owner: true };

/** The peer of every request on the owner-only Windows named pipe. */
export const PIPE_PEER: Peer = { transport: "pipe", owner: true };

/** The peer of a request on the loopback TCP listener at `hostname:port`. */
export function tcpPeer(hostname: string, port: number): Peer {
  return { transport: "tcp", owner: false, listener: { hostname, port } };
}
