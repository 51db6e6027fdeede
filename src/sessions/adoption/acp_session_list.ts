/**
 * An ACP agent's own list of its sessions (D33): svc starts the agent,
 * `initialize`s, and when the agent advertises
 * `agentCapabilities.sessionCapabilities.list` (opencode 1.18 does, Gemini
 * CLI 0.61 does not) pages through `session/list {cwd?, cursor?}`, then ends
 * the agent's process group. Bounded: one deadline for the whole exchange,
 * a few pages, lines of at most 1 MiB.
 */
import { ServiceError } from "../../errors.ts";
import { LineSplitter } from "../../agents/line_splitter.ts";
import { buildArgv, type HarnessSpec, launchEnv } from "../harnesses.ts";
import type { SpawnedProcess, Spawner } from "../spawner.ts";
import {
  type DiscoveredSession,
  type DiscoverFilter,
  instant,
  record,
  text,
  titleText,
} from "./agent_store.ts";

/** The whole exchange (start, initialize, every page) ends within this. */
export const ACP_LIST_TIMEOUT_MS = 20_000;
/** At most this many `session/list` pages are asked for. */
const MAX_PAGES = 10;
/** How far down its list an agent's session is looked for. */
const FIND_LIMIT = 1000;
/** A line longer than this is the agent misbehaving: the listing fails. */
const MAX_LINE_BYTES = 1024 * 1024;

/** What the listing needs. */
export interface AcpSessionListOptions {
  harness: HarnessSpec;
  spawner: Spawner;
  /** Where to start the agent when the filter names no directory (it must exist). */
  defaultCwd: string;
  timeoutMs?: number;
}

/** Lists the sessions of one ACP harness through the agent itself. */
export class AcpSessionList {
  readonly #options: AcpSessionListOptions;

  constructor(options: AcpSessionListOptions) {
    this.#options = options;
  }

  /** The session `agentSessionId` among the agent's list (of `cwd`, when given). */
  async find(agentSessionId: string, cwd?: string): Promise<DiscoveredSession | null> {
    const sessions = await this.list({ ...(cwd !== undefined && { cwd }), limit: FIND_LIMIT });
    return sessions.find((s) => s.agentSessionId === agentSessionId) ?? null;
  }

  /**
   * The agent's sessions, newest first as it orders them; 409
   * `discover_unsupported` when it does not advertise `session/list`, 502
   * `agent_list_failed` when it fails, ends or takes longer than the deadline.
   */
  async list(filter: DiscoverFilter): Promise<DiscoveredSession[]> {
    const { harness, spawner } = this.#options;
    const { argv } = buildArgv(harness, { prompt: "", model: null });
    let child: SpawnedProcess;
    try {
      child = spawner.spawn({
        argv,
        cwd: filter.cwd ?? this.#options.defaultCwd,
        env: launchEnv(harness, null),
      });
    } catch (error) {
      throw listFailed(harness.id, (error as Error).message);
    }
    const rpc = new LineRpc(child);
    const deadline = setTimeout(
      () => rpc.fail(`no answer within ${this.#options.timeoutMs ?? ACP_LIST_TIMEOUT_MS} ms`),
      this.#options.timeoutMs ?? ACP_LIST_TIMEOUT_MS,
    );
    try {
      const init = await rpc.call("initialize", {
        protocolVersion: 1,
        clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
      });
      const capabilities = record(record(init)?.agentCapabilities);
      if (record(record(capabilities?.sessionCapabilities)?.list) === null) {
        throw new ServiceError(
          "discover_unsupported",
          409,
          `Harness "${harness.id}" cannot list its sessions: its agent does not advertise ACP session/list`,
          { harness: harness.id },
        );
      }
      const found: DiscoveredSession[] = [];
      let cursor: string | null = null;
      for (let page = 0; page < MAX_PAGES && found.length < filter.limit; page++) {
        const params: Record<string, unknown> = {};
        if (filter.cwd !== undefined) params.cwd = filter.cwd;
        if (cursor !== null) params.cursor = cursor;
        const result = record(await rpc.call("session/list", params));
        const sessions = Array.isArray(result?.sessions) ? result.sessions : [];
        for (const item of sessions) {
          const session = acpSession(harness.id, item);
          if (session !== null) found.push(session);
        }
        cursor = text(result?.nextCursor);
        if (cursor === null) break;
      }
      return found.slice(0, filter.limit);
    } catch (error) {
      if (error instanceof ServiceError) throw error;
      throw listFailed(harness.id, (error as Error).message);
    } finally {
      clearTimeout(deadline);
      rpc.stop();
      child.killGroup("SIGKILL");
      await child.status.catch(() => {});
    }
  }
}

function listFailed(harness: string, reason: string): ServiceError {
  return new ServiceError(
    "agent_list_failed",
    502,
    `Harness "${harness}" could not list its sessions: ${reason}`,
    { harness },
  );
}

/** One `SessionInfo` of `session/list` (`sessionId`, `cwd`, `title?`, `updatedAt?`). */
function acpSession(harness: string, item: unknown): DiscoveredSession | null {
  const info = record(item);
  const id = text(info?.sessionId);
  if (info === null || id === null || id === "" || id.length > 200) return null;
  const cwd = text(info.cwd);
  return {
    agentSessionId: id,
    harness,
    cwd: cwd !== null && cwd.startsWith("/") ? cwd : null,
    title: titleText(text(info.title) ?? ""),
    lastActivityAt: instant(info.updatedAt),
  };
}

/** JSON-RPC 2.0 requests over a child's stdio; every other message is ignored. */
class LineRpc {
  readonly #child: SpawnedProcess;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #pending = new Map<
    number,
    { resolve: (v: unknown) => void; reject: (e: Error) => void }
  >();
  #nextId = 1;
  #failure: Error | null = null;
  readonly #reading: Promise<void>;
  readonly #stopRead = new AbortController();

  constructor(child: SpawnedProcess) {
    this.#child = child;
    this.#writer = child.stdin.getWriter();
    this.#reading = this.#read();
    void child.stderr.cancel().catch(() => {});
  }

  call(method: string, params: unknown): Promise<unknown> {
    if (this.#failure) return Promise.reject(this.#failure);
    const id = this.#nextId++;
    const line = JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n";
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#writer.write(new TextEncoder().encode(line)).catch(() =>
        this.fail("the agent closed its input")
      );
    });
  }

  fail(reason: string): void {
    this.#failure ??= new Error(reason);
    for (const { reject } of this.#pending.values()) reject(this.#failure);
    this.#pending.clear();
  }

  stop(): void {
    this.#stopRead.abort();
    this.#writer.close().catch(() => {});
    void this.#reading;
  }

  async #read(): Promise<void> {
    const splitter = new LineSplitter(MAX_LINE_BYTES);
    const decoder = new TextDecoder();
    const reader = this.#child.stdout.getReader();
    this.#stopRead.signal.addEventListener("abort", () => reader.cancel().catch(() => {}));
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        const { lines, dropped } = splitter.push(decoder.decode(value, { stream: true }));
        if (dropped > 0) this.fail("the agent wrote a line longer than 1 MiB");
        for (const line of lines) this.#answer(line);
      }
    } catch {
      // Cancelled at the end.
    }
    this.fail("the agent exited");
  }

  #answer(line: string): void {
    let message: Record<string, unknown> | null;
    try {
      message = record(JSON.parse(line));
    } catch {
      return; // Not JSON: a log line.
    }
    if (message === null || typeof message.id !== "number" || "method" in message) return;
    const waiting = this.#pending.get(message.id);
    if (!waiting) return;
    this.#pending.delete(message.id);
    const error = record(message.error);
    if (error !== null) {
      waiting.reject(new Error(`${text(error.message) ?? "error"} (code ${String(error.code)})`));
    } else waiting.resolve(message.result);
  }
}
