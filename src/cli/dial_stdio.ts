import { homePaths } from "../config/home.ts";
import { parseCommandArgs } from "./args.ts";
import { type Command, EXIT, type Io } from "./command.ts";
import { resolveCliHome } from "./working_dir.ts";

/**
 * `svc dial-stdio`: the remote end of a context (D32). `ssh host svc
 * dial-stdio` runs it; the client's HTTP/1.1 and SSE then flow through it,
 * so the SSH login is the only authority and svc adds no listener.
 */
export const dialStdioCommand: Command = {
  name: "dial-stdio",
  summary: "Join stdin and stdout to the daemon's socket (the remote end of a context)",
  usage: `Usage: svc dial-stdio [--home DIR]

Joins stdin and stdout to the local daemon's socket, byte for byte, both ways,
and exits when either side closes (as "docker system dial-stdio"). A context
over ssh runs it on the remote machine ("svc context", docs/contexts.md); it
is not meant to be typed. Exits 3 when no daemon answers on the socket.`,
  localOnly: true,
  run: dialStdio,
};

/** Joins the process's stdin and stdout to the socket of the home's daemon. */
async function dialStdio(args: string[], io: Io): Promise<number> {
  const { values } = parseCommandArgs(args, { home: { type: "string" } });
  const socket = homePaths(resolveCliHome(values.home, io)).socket;
  let conn: Deno.UnixConn;
  try {
    conn = await Deno.connect({ transport: "unix", path: socket });
  } catch (error) {
    io.err(
      `svc is not running: no daemon answers on "${socket}" (${(error as Error).message})`,
    );
    return EXIT.unreachable;
  }
  // Either direction ending ends both: the peer that is left has nobody to talk to.
  await Promise.race([
    Deno.stdin.readable.pipeTo(conn.writable, { preventClose: true }).catch(() => {}),
    conn.readable.pipeTo(Deno.stdout.writable, { preventClose: true }).catch(() => {}),
  ]);
  try {
    conn.close();
  } catch { /* already closed by a pipe */ }
  return EXIT.ok;
}
