/** A real `svc serve` process with the fixture harnesses, for tests of the client commands. */
import { ContractClient } from "../helpers/contract.ts";
import assert from "node:assert/strict";
import { SvcClient } from "../../src/client/client.ts";
import { fixtureHarnesses } from "../helpers/daemon.ts";
import { removeTree, tempHome } from "../helpers/home.ts";
import { MAIN, runSvc, startServe } from "../helpers/process.ts";

type SvcResult = Awaited<ReturnType<typeof runSvc>>;

/** A daemon process, a project directory to launch in, and the CLI bound to its home. */
export interface CliDaemon {
  readonly home: string;
  readonly project: string;
  /** A client on the daemon's socket, for polling without spawning the CLI. */
  readonly client: SvcClient;
  /** Runs `svc …` with `SVC_HOME` set to this daemon's home. */
  svc(args: string[]): Promise<SvcResult>;
  /** Starts `svc …` (home set, stdin/stdout/stderr piped) without waiting for it. */
  spawn(args: string[], options?: { cwd?: string }): Deno.ChildProcess;
  /** `svc sessions start` in the project; returns the new session id. */
  start(harness: string, prompt: string): Promise<string>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** The scripted stream-json agent (tests/fixtures/stream_json_agent.ts). */
const AGENT_SCRIPT = new URL("../fixtures/stream_json_agent.ts", import.meta.url).pathname;

/**
 * The harnesses of the CLI daemon: the raw fixture ones, and `agent`, a
 * conversation over the claude protocol with the scripted agent (D16).
 */
export function cliHarnesses(): Record<string, unknown> {
  return {
    ...fixtureHarnesses(),
    agent: { command: [Deno.execPath(), "run", "-A", AGENT_SCRIPT], protocol: "claude" },
  };
}

/**
 * Starts `svc serve` on a fresh home whose config holds the fixture
 * harnesses; `env` is added to the daemon's environment.
 */
export async function startCliDaemon(env: Record<string, string> = {}): Promise<CliDaemon> {
  const home = await tempHome();
  await Deno.writeTextFile(
    `${home}/config.json`,
    JSON.stringify({ harnesses: cliHarnesses() }),
  );
  const serve = await startServe(home, [], env);
  const project = await Deno.realPath(await tempHome());
  const client = new ContractClient({ socketPath: `${home}/svc.sock` });
  const svc = (args: string[]) => runSvc(args, { SVC_HOME: home });
  return {
    home,
    project,
    client,
    svc,
    spawn: (args, options = {}) =>
      new Deno.Command(Deno.execPath(), {
        args: ["run", "--allow-all", MAIN, ...args],
        cwd: options.cwd,
        env: { NO_COLOR: "1", SVC_HOME: home },
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
      }).spawn(),
    async start(harness, prompt) {
      const result = await svc([
        "sessions",
        "start",
        "--project-root",
        project,
        "--harness",
        harness,
        prompt,
      ]);
      assert.equal(result.code, 0, result.stderr);
      const sessionId = result.stdout.trim();
      assert.match(sessionId, /^ses_[0-9A-Z]{26}$/);
      return sessionId;
    },
    async [Symbol.asyncDispose]() {
      client.close();
      const status = await serve.stop();
      await removeTree(home);
      await removeTree(project);
      assert.equal(status.code, 0, serve.stderr());
    },
  };
}

/** Runs `svc ARGS` with `stdin` as its whole input (plain mode), killed after 20 s. */
export async function withInput(d: CliDaemon, args: string[], stdin: string): Promise<SvcResult> {
  const child = d.spawn(args);
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(stdin));
  await writer.close();
  const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
  const output = await child.output();
  clearTimeout(timer);
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

/** Incremental reads of a child's output: up to a marker, then the rest. */
export function textReader(stream: ReadableStream<Uint8Array>): {
  until(needle: string): Promise<string>;
  rest(): Promise<string>;
} {
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  return {
    async until(needle) {
      while (!text.includes(needle)) {
        const { done, value } = await reader.read();
        if (done) throw new Error(`Output ended before "${needle}": ${JSON.stringify(text)}`);
        text += value;
      }
      return text;
    },
    async rest() {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return text;
        text += value;
      }
    },
  };
}
