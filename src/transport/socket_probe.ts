/**
 * What is at the socket path before the daemon binds it (Tailscale's "dial
 * before unlink"): nothing, a daemon that answers, a stale socket file left
 * by a crash, or something that is not a socket and must never be removed.
 */
export type SocketState = "absent" | "live" | "stale" | "not_socket";

/** Probes `path` by lstat and a connect attempt. */
export async function probeSocket(path: string): Promise<SocketState> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.lstat(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return "absent";
    throw error;
  }
  if (!info.isSocket) return "not_socket";
  try {
    const conn = await Deno.connect({ transport: "unix", path });
    conn.close();
    return "live";
  } catch (error) {
    if (error instanceof Deno.errors.ConnectionRefused) return "stale";
    throw error;
  }
}
