import { ContractClient } from "./contract.ts";
import { type Daemon, type DaemonOptions, startDaemon } from "../../src/daemon.ts";
import { SvcClient } from "../../src/client/client.ts";
import { ConfigError } from "../../src/config/config_error.ts";
import type { ProgramProber } from "../../src/sessions/harness_probe.ts";
import { removeTree, tempHome } from "./home.ts";

/** A prober that finds no harness program: keeps tests independent of the machine. */
export const NO_PROGRAMS: ProgramProber = {
  find: () => Promise.resolve(null),
  runVersion: () => Promise.resolve(false),
};

/** Finds programs given by absolute path only: built-ins stay disabled whatever is on PATH. */
export const ABSOLUTE_ONLY: ProgramProber = {
  find: async (program) => {
    if (!program.startsWith("/")) return null;
    try {
      return (await Deno.stat(program)).isFile ? program : null;
    } catch {
      return null;
    }
  },
  runVersion: () => Promise.resolve(true),
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
  const ownsHome = options.home === undefined;
  const home = options.home ?? await tempHome();
  if (options.configJson !== undefined) {
    await Deno.writeTextFile(`${home}/config.json`, JSON.stringify(options.configJson));
  }
  const daemon = await startDaemon({ prober: ABSOLUTE_ONLY, ...options, home });
  const socket = daemon.paths.socket;
  const client = new ContractClient({ socketPath: socket });
  return {
    daemon,
    home,
    client,
    socket,
    async [Symbol.asyncDispose]() {
      client.close();
      await daemon.stop();
      if (ownsHome) await removeTree(home);
    },
  };
}

/**
 * Starts a daemon on the home a stopped one just released. The home lock is
 * an flock: a process another test forks at that moment shares the lock
 * until it execs, so a refusal ("Another svc is starting") is retried
 * briefly; a lock never released still fails.
 */
export async function restartTestDaemon(
  options: Partial<DaemonOptions> & { home: string; configJson?: unknown },
): Promise<TestDaemon> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    try {
      return await startTestDaemon(options);
    } catch (error) {
      const locked = error instanceof ConfigError && error.message.startsWith("Another svc is");
      if (!locked || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

/** The fixture harness (tests/fixtures/harness.ts) as configured harnesses (D3). */
export function fixtureHarnesses(): Record<string, { command: string[]; prompt: string }> {
  const script = new URL("../fixtures/harness.ts", import.meta.url).pathname;
  return {
    fixture: { command: [Deno.execPath(), "run", "-A", script, "{prompt}"], prompt: "arg" },
    "fixture-stdin": { command: [Deno.execPath(), "run", "-A", script, "echo"], prompt: "none" },
  };
}

/** Waits for a session to leave `running`, polling its record. */
export async function waitForEnd(
  client: SvcClient,
  sessionId: string,
  timeoutMs = 20_000,
): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await client.get<Record<string, unknown>>(`/sessions/${sessionId}`);
    if (response.body.status !== "running") return response.body;
    if (Date.now() > deadline) throw new Error(`Session ${sessionId} still running`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Reads a session's whole log. */
export async function allEvents(
  client: SvcClient,
  sessionId: string,
): Promise<Array<{ seq: number; id: string; kind: string; payload: Record<string, unknown> }>> {
  const response = await client.get<{ events: Array<Record<string, unknown>> }>(
    `/sessions/${sessionId}/events`,
  );
  return response.body.events.map((event) => ({
    seq: event.seq as number,
    id: event.id as string,
    kind: event.kind as string,
    payload: JSON.parse(event.payload_json as string),
  }));
}
