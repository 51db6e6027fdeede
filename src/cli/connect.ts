import { SvcClient } from "../client/client.ts";
import { homePaths } from "../config/home.ts";
import { localEndpoint } from "../transport/local_endpoint.ts";
import type { Io } from "./command.ts";
import { resolveCliHome } from "./working_dir.ts";

/**
 * A client for the daemon of `--home` / `$SVC_HOME` / `~/.svc` over its
 * local endpoint, and that endpoint's address (socket path or pipe name).
 */
export async function connect(
  home: string | undefined,
  io: Io,
): Promise<{ client: SvcClient; socket: string }> {
  const local = await localEndpoint(homePaths(resolveCliHome(home, io)));
  return { client: new SvcClient(local.target), socket: local.address };
}

/** Runs `call` with a client for the home's daemon, closing it afterwards. */
export async function withClient(
  home: string | undefined,
  io: Io,
  call: (client: SvcClient) => Promise<number>,
): Promise<number> {
  const { client } = await connect(home, io);
  try {
    return await call(client);
  } finally {
    client.close();
  }
}
