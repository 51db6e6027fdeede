import { type Daemon, type DaemonOptions, startDaemon } from "../../src/daemon.ts";
import { SvcClient } from "../../src/client/client.ts";
import type { ProgramProber } from "../../src/sessions/harness_probe.ts";
import { removeTree, tempHome } from "./home.ts";

/** A prober that finds no harness program: keeps tests independent of the machine. */
export const NO_PROGRAMS: ProgramProber = {
  find: () => Promise.resolve(null),
  runVersion: () => Promise.resolve(false),
};

/** A free loopback TCP port (bound once, then released). */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/** An in-process daemon on a temporary home, with a client on its socket. */
export interface TestDaemon {
  readonly daemon: Daemon;
  readonly home: string;
  readonly client: SvcClient;
  readonly socket: string;
  [Symbol.asyncDispose](): Promise<void>;
}

/** Starts a daemon in this process (real socket, real store) for one test. */
export async function startTestDaemon(
  options: Partial<DaemonOptions> & { configJson?: unknown } = {},
): Promise<TestDaemon> {
  const home = options.home ?? await tempHome();
  if (options.configJson !== undefined) {
    await Deno.writeTextFile(`${home}/config.json`, JSON.stringify(options.configJson));
  }
  const daemon = await startDaemon({ prober: NO_PROGRAMS, ...options, home });
  const socket = daemon.paths.socket;
  const client = new SvcClient({ socketPath: socket });
  return {
    daemon,
    home,
    client,
    socket,
    async [Symbol.asyncDispose]() {
      client.close();
      await daemon.stop();
      await removeTree(home);
    },
  };
}
