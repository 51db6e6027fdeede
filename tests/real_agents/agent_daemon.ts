/**
 * A real `svc serve` process whose sessions run the real agent CLIs against
 * the fake provider: the daemon gets the CLI's offline environment (HOME,
 * keys, base URLs, PATH with the pinned CLIs), so its children inherit it.
 * The project is a fresh temporary directory: not a git repository, never
 * trusted by any CLI.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { SvcClient } from "../../src/client/client.ts";
import { agentsDir } from "../../scripts/agents_install.ts";
import { removeTree, tempHome } from "../helpers/home.ts";
import { startServe } from "../helpers/process.ts";
import type { Harness } from "./agent_bins.ts";
import { AGENT_MODELS, prepareAgentEnv } from "./agent_env.ts";
import { requireAgent } from "./agents_gate.ts";
import { gitRepository } from "../helpers/git.ts";
import { type FakeProvider, startFakeProvider } from "./fake_provider.ts";

type Json = Record<string, unknown>;

/** The tests pass a model only to gemini; the others read theirs from the config agent_env wrote. */
const LAUNCH_MODEL: Partial<Record<Harness, string>> = { gemini: AGENT_MODELS.gemini };

/** A daemon, its fake provider and a project directory, for one harness. */
export interface AgentDaemon extends AsyncDisposable {
  readonly harness: string;
  /** The daemon's home (`svc --home` of CLI commands). */
  readonly home: string;
  readonly provider: FakeProvider;
  readonly client: SvcClient;
  readonly project: string;
  /** `POST /sessions` in the project; returns the session id. */
  launch(body?: Json): Promise<string>;
  /** The payloads of a session's events of `kind`, once there are at least `count`. */
  waitForKind(sessionId: string, kind: string, count: number): Promise<Json[]>;
  /** The session record once it is no longer running. */
  waitForEnd(sessionId: string): Promise<Json>;
  /** `POST /actions`. */
  act(action: string, fields: Json): Promise<Json>;
}

/**
 * Starts the daemon for `cli`. `harness` is the harness id sessions launch
 * with (a configured one may wrap the same CLI); `config` is config.json;
 * `env` replaces variables of the CLI's offline environment (e.g. its
 * provider URL); `serveArgs` are more arguments of `svc serve`.
 */
export async function startAgentDaemon(
  cli: Harness,
  { harness = cli, config = {}, env: adjustEnv, serveArgs = [] }: {
    harness?: string;
    config?: Json;
    /** More `svc serve` arguments (`--tcp 127.0.0.1:PORT` for the web face). */
    serveArgs?: string[];
    /** Changes the CLI's environment before the daemon starts with it. */
    env?: (env: Record<string, string>) => Record<string, string>;
  } = {},
): Promise<AgentDaemon> {
  const provider = await startFakeProvider();
  // Codex refuses a CODEX_HOME under the system temp directory: keep homes in the cache.
  const envDir = join(agentsDir(), "homes", crypto.randomUUID());
  await Deno.mkdir(envDir, { recursive: true });
  const prepared = await prepareAgentEnv(cli, { providerUrl: provider.url, dir: envDir });
  const env = adjustEnv ? adjustEnv(prepared) : prepared;
  const home = await tempHome();
  await Deno.writeTextFile(join(home, "config.json"), JSON.stringify(config));
  const serve = await startServe(home, serveArgs, env);
  const project = await Deno.realPath(await tempHome());
  const client = new SvcClient({ socketPath: join(home, "svc.sock") });
  const deadline = () => Date.now() + 90_000;

  async function poll<T>(what: string, attempt: () => Promise<T | null>): Promise<T> {
    const until = deadline();
    for (;;) {
      const value = await attempt();
      if (value !== null) return value;
      if (Date.now() > until) {
        throw new Error(`Timed out waiting for ${what}\n${serve.stderr().slice(-4000)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  return {
    harness,
    home,
    provider,
    client,
    project,
    async launch(body = {}) {
      const model = LAUNCH_MODEL[cli];
      const response = await client.post<Json>("/sessions", {
        projectRoot: project,
        harness,
        prompt: "hello",
        ...(model ? { model } : {}),
        ...body,
      });
      assert.equal(response.status, 201, JSON.stringify(response.body));
      return response.body.id as string;
    },
    waitForKind: (sessionId, kind, count) =>
      poll(`${count} ${kind} of ${sessionId}`, async () => {
        const page = await client.get<{ events: Json[] }>(
          `/sessions/${sessionId}/events?kinds=${kind}`,
        );
        const events = page.body.events ?? [];
        return events.length >= count
          ? events.map((event) => JSON.parse(event.payload_json as string))
          : null;
      }),
    waitForEnd: (sessionId) =>
      poll(`the end of ${sessionId}`, async () => {
        const record = (await client.get<Json>(`/sessions/${sessionId}`)).body;
        return record.status === "running" ? null : record;
      }),
    async act(action, fields) {
      return (await client.post<Json>("/actions", { action, ...fields })).body;
    },
    async [Symbol.asyncDispose]() {
      client.close();
      const status = await serve.stop();
      await provider.close();
      // Every step runs, and a failure names itself: a disposal error wraps the test's own.
      const failures: string[] = [];
      for (const dir of [home, project, envDir]) {
        await removeTree(dir).catch((error) => failures.push(`removing ${dir}: ${error}`));
      }
      if (status.code !== 0) failures.push(`svc serve exited ${status.code}: ${serve.stderr()}`);
      if (failures.length > 0) {
        const message = `the agent daemon's cleanup failed:\n${failures.join("\n")}`;
        console.error(message);
        throw new Error(message);
      }
    },
  };
}

/**
 * A test body run with a daemon for `cli` (installed, else the test fails
 * loudly) and a fresh git repository (tests/helpers/git.ts), both removed after.
 */
export function withAgentAndRepo(
  cli: Harness,
  body: (d: AgentDaemon, repo: string) => Promise<void>,
): () => Promise<void> {
  return async () => {
    requireAgent(cli);
    await using d = await startAgentDaemon(cli);
    const repo = await gitRepository();
    try {
      await body(d, repo);
    } catch (error) {
      // Shown before the daemon's disposal runs: an error there would wrap (and hide) this one.
      console.error(error);
      throw error;
    } finally {
      await removeTree(repo);
    }
  };
}
