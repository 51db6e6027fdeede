import type { Handler } from "../api/app.ts";
import { type ClientTarget, SvcClient } from "../client/client.ts";
import { ConfigError } from "../config/config_error.ts";
import type { HomePaths } from "../config/home.ts";
import type { Logger } from "../log.ts";
import type { Listener } from "./listener.ts";
import { probeSocket } from "./socket_probe.ts";
import { listenUnix } from "./unix_socket.ts";

/** Where the daemon listens, as `/health` reports it (D5). */
export type Endpoint = { transport: "unix"; path: string } | { transport: "pipe"; name: string };

/**
 * The owner-only local endpoint of a home, per platform (C1, D15): the Unix
 * socket `$SVC_HOME/svc.sock`, or on Windows the named pipe derived from the
 * home. The one place the daemon and the CLI decide which.
 */
export interface LocalEndpoint {
  readonly endpoint: Endpoint;
  /** How a client reaches it. */
  readonly target: ClientTarget;
  /** For messages: the socket path or the pipe name. */
  readonly address: string;
  /**
   * Before binding: refuses when a daemon answers (exit 2, naming its pid),
   * removes a stale socket file, never removes something that is not a socket.
   */
  prepare(): Promise<void>;
  /** Serves `handler`; the server's own refusals carry `responseHeaders` (`Svc-Instance`). */
  listen(
    handler: Handler,
    responseHeaders?: Record<string, string>,
    log?: Logger,
  ): Promise<Listener>;
}

/**
 * The local endpoint of a home on `os`. The pipe's module is loaded only on
 * Windows: its `node:crypto`, with the pipe client's `node:http`, cost every
 * start elsewhere about 20 ms and 6 MB (issue 14).
 */
export async function localEndpoint(
  paths: HomePaths,
  os: string = Deno.build.os,
): Promise<LocalEndpoint> {
  if (os === "windows") {
    const { listenNamedPipe, pipeNameFor } = await import("./named_pipe_windows.ts");
    const name = pipeNameFor(paths.root);
    return {
      endpoint: { transport: "pipe", name },
      target: { pipe: name },
      address: name,
      // The first-instance flag refuses a pipe someone else holds; the home lock covers svc.
      prepare: () => Promise.resolve(),
      listen: (handler, responseHeaders) => listenNamedPipe(name, handler, { responseHeaders }),
    };
  }
  const target = { socketPath: paths.socket };
  return {
    endpoint: { transport: "unix", path: paths.socket },
    target,
    address: paths.socket,
    prepare: async () => {
      const state = await probeSocket(paths.socket);
      if (state === "live") throw new ConfigError(await alreadyRunningMessage(target, paths));
      if (state === "not_socket") {
        throw new ConfigError(`"${paths.socket}" exists and is not a socket: remove it by hand`);
      }
      if (state === "stale") await Deno.remove(paths.socket);
    },
    listen: (handler, responseHeaders, log) =>
      Promise.resolve(listenUnix(paths.socket, handler, responseHeaders, log)),
  };
}

/** "svc is already running (pid N)" when a daemon answers at `target`, else a starting one. */
export async function alreadyRunningMessage(
  target: ClientTarget,
  paths: HomePaths,
): Promise<string> {
  const client = new SvcClient(target);
  try {
    const health = await client.health();
    return `svc is already running (pid ${health.pid}) on home "${paths.root}"`;
  } catch {
    return `Another svc is starting on home "${paths.root}"`;
  } finally {
    client.close();
  }
}
