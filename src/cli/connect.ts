import { SvcClient } from "../client/client.ts";
import { ConfigError } from "../config/config_error.ts";
import { homePaths } from "../config/home.ts";
import { LOCAL_CONTEXT } from "../contexts/contexts_file.ts";
import { formatContextEndpoint } from "../contexts/endpoint.ts";
import { type Context, selectContext } from "../contexts/selection.ts";
import { sshDialer } from "../contexts/ssh_dialer.ts";
import { localEndpoint } from "../transport/local_endpoint.ts";
import type { Io } from "./command.ts";
import { resolveCliHome } from "./working_dir.ts";

/** A client for one context's daemon. */
export interface Connection {
  readonly client: SvcClient;
  /** For messages: the local socket path or pipe name, or the context's URL. */
  readonly socket: string;
  /** The context's name (`local` for this machine's daemon). */
  readonly context: string;
}

/**
 * A client for the daemon of the selected context (D32: `--context`,
 * `$SVC_CONTEXT`, `svc context use`), which is by default `local`: the
 * daemon of `--home` / `$SVC_HOME` / `~/.svc` over its local endpoint.
 */
export async function connect(home: string | undefined, io: Io): Promise<Connection> {
  return await connectTo(await selectContext(io.env), home, io);
}

/**
 * A client for `context`'s daemon: the one factory the CLI (and a face that
 * holds one client per context) makes clients with. `--home` names a local
 * daemon, so it is refused with another context.
 */
export async function connectTo(
  context: Context,
  home: string | undefined,
  io: Io,
): Promise<Connection> {
  if (!("endpoint" in context)) {
    const local = await localEndpoint(homePaths(resolveCliHome(home, io)));
    return { client: new SvcClient(local.target), socket: local.address, context: LOCAL_CONTEXT };
  }
  const url = formatContextEndpoint(context.endpoint);
  if (home !== undefined) {
    throw new ConfigError(
      `--home names a daemon on this machine, but the context is "${context.name}" (${url}): ` +
        `leave --home out, or add --context ${LOCAL_CONTEXT}`,
    );
  }
  const endpoint = context.endpoint;
  const client = endpoint.kind === "unix"
    ? new SvcClient({ socketPath: endpoint.path })
    : new SvcClient({ dialer: sshDialer(context.name, endpoint) });
  return { client, socket: url, context: context.name };
}

/** Runs `call` with a client for the selected context's daemon, closing it afterwards. */
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
