import { SvcClient } from "../client/client.ts";
import { homePaths, resolveHome } from "../config/home.ts";
import type { Io } from "./command.ts";

/** A client for the daemon of `--home` / `$SVC_HOME` / `~/.svc`, and its socket path. */
export function connect(home: string | undefined, io: Io): { client: SvcClient; socket: string } {
  const socket = homePaths(resolveHome(home, io.env)).socket;
  return { client: new SvcClient({ socketPath: socket }), socket };
}
