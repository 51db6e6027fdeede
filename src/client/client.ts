/**
 * The first-party client of `svc.daemon.v1` (C9.7, D5), used by the CLI and
 * exported from `client.ts` for other Deno programs.
 *
 * It negotiates once with `/health` (apiVersion and required capabilities),
 * binds that negotiation to the daemon instance it talked to (`Svc-Instance`),
 * and when the instance changes it fails the call and forgets the
 * negotiation. Before a mutation it re-checks the instance with a `GET
 * /health`, so a mutation meant for a replaced daemon fails before any of its
 * bytes are sent; it never replays a mutation. Bodies over 4 MiB are refused.
 * Streams (D19) are read by stream_reader.ts through `openStream`; a reader
 * that meets a new instance on reconnect negotiates again and resumes by seq
 * (docs/api.md §4.15 says why that is safe).
 */

import type { Agent } from "node:http";
import type { EventRecord } from "../store/events_store.ts";
import { ClientError } from "./client_error.ts";
import {
  type FeedItem,
  type FeedStreamOptions,
  readFeed,
  readSessionEvents,
  type SessionStreamOptions,
  type StreamOpening,
} from "./stream_reader.ts";

export { ClientError, type ClientErrorCode, StreamRefused } from "./client_error.ts";
export type {
  FeedItem,
  FeedStreamOptions,
  ReconnectOptions,
  SessionStreamOptions,
  StreamOpening,
} from "./stream_reader.ts";

/** The response body bound of first-party clients (C8). */
export const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

/** The contract this client speaks. */
export const CLIENT_API_VERSION = "svc.daemon.v1";

/**
 * Where the daemon is: its Unix socket, its Windows named pipe, a loopback
 * `host:port`, or a dialer of byte streams (a context over ssh, D32).
 */
export type ClientTarget =
  | { socketPath: string }
  | { pipe: string }
  | { tcp: string }
  | { dialer: StreamDialer };

/** One connection's bytes: what the daemon sends, and where to write to it. */
export interface DialedStream {
  /** Ends when the connection closes; errors with a `ClientError` saying why it failed. */
  readonly readable: ReadableStream<Uint8Array>;
  readonly writable: WritableStream<Uint8Array>;
}

/**
 * Opens byte streams to a daemon, one per HTTP/1.1 connection (D32: `ssh
 * host svc dial-stdio`). The client keeps a small pool of them (see
 * dialed_agent.ts), so requests are not one dial each.
 */
export interface StreamDialer {
  /** Names the daemon in messages: `context "devbox"`. */
  readonly label: string;
  dial(): DialedStream;
}

/** An answer of the daemon. */
export interface ClientResponse<T = unknown> {
  readonly status: number;
  readonly ok: boolean;
  readonly body: T;
}

/** The fields of `/health` the client relies on (C2.5, D5). */
export interface Health {
  ok: boolean;
  apiVersion: string;
  svcVersion: string;
  pid: number;
  uptime: number;
  startedAt: string;
  instanceId: string;
  endpoint: { transport: "unix"; path: string } | { transport: "pipe"; name: string };
  tcp: string | null;
  capabilities: Array<{ id: string; status: string; actions: string[] }>;
  liveSessions?: number;
  /** Sessions waiting out a limit (D33), and when the first lifts. */
  parkedSessions?: number;
  nextParkedUntil?: string | null;
  [key: string]: unknown;
}

/** Options of a client. */
export interface ClientOptions {
  /** Capability ids the caller needs; negotiation fails when one is missing. */
  requiredCapabilities?: string[];
  maxResponseBytes?: number;
}

/** A client bound to one daemon endpoint. */
export class SvcClient {
  readonly #baseUrl: string;
  /** The endpoint for messages: the quoted socket path or `host:port`, or a dialer's label. */
  readonly #endpoint: string;
  readonly #httpClient: Deno.HttpClient | undefined;
  /** Set for a named pipe or a dialer: requests go through node:http instead of fetch. */
  readonly #nodeTarget: NodeTarget | undefined;
  readonly #options: ClientOptions;
  #negotiated: Health | null = null;

  constructor(target: ClientTarget, options: ClientOptions = {}) {
    this.#options = options;
    this.#endpoint = "socketPath" in target
      ? `"${target.socketPath}"`
      : "pipe" in target
      ? `"${target.pipe}"`
      : "tcp" in target
      ? `"${target.tcp}"`
      : target.dialer.label;
    this.#nodeTarget = "pipe" in target
      ? { pipe: target.pipe }
      : "dialer" in target
      ? { dialer: target.dialer, agent: null }
      : undefined;
    this.#httpClient = "socketPath" in target
      ? Deno.createHttpClient({ proxy: { transport: "unix", path: target.socketPath } })
      : undefined;
    this.#baseUrl = "tcp" in target ? `http://${target.tcp}/api/v1` : "http://localhost/api/v1";
  }

  /** The negotiated health, or null before negotiation or after an instance change. */
  get negotiated(): Health | null {
    return this.#negotiated;
  }

  /** `GET /health` without negotiating (status commands, probes). */
  async health(): Promise<Health> {
    const response = await this.#send("GET", "/health");
    if (!response.ok) throw new ClientError("bad_response", `Health answered ${response.status}`);
    return response.body as Health;
  }

  /** Negotiates (C1's recommended flow) and binds to the instance that answered. */
  async negotiate(): Promise<Health> {
    const health = await this.health();
    if (health.apiVersion !== CLIENT_API_VERSION) {
      throw new ClientError(
        "api_mismatch",
        `The daemon on ${this.#endpoint} speaks "${health.apiVersion}", this client needs "${CLIENT_API_VERSION}"`,
      );
    }
    for (const id of this.#options.requiredCapabilities ?? []) {
      if (!health.capabilities.some((capability) => capability.id === id)) {
        throw new ClientError("capability_missing", `Daemon lacks capability "${id}"`);
      }
    }
    this.#negotiated = health;
    return health;
  }

  /** GET a route (path relative to `/api/v1`, query included). */
  get<T = unknown>(path: string): Promise<ClientResponse<T>> {
    return this.request<T>("GET", path);
  }

  /** POST a JSON body to a route. */
  post<T = unknown>(path: string, body: unknown): Promise<ClientResponse<T>> {
    return this.request<T>("POST", path, body);
  }

  /** One negotiated call; see the module comment for the instance rules. */
  async request<T = unknown>(
    method: string,
    path: string,
    body?: unknown,
    init: { signal?: AbortSignal } = {},
  ): Promise<ClientResponse<T>> {
    const bound = this.#negotiated ?? await this.negotiate();
    if (method !== "GET" && method !== "HEAD") {
      const current = await this.health();
      if (current.instanceId !== bound.instanceId) throw this.#instanceChanged();
    }
    const response = await this.#send(method, path, body, init.signal);
    if (response.instanceId !== null && response.instanceId !== bound.instanceId) {
      throw this.#instanceChanged();
    }
    return response as ClientResponse<T>;
  }

  /**
   * Opens a streaming GET (D19) under the same instance rules as `request`:
   * on 200 the unread body, else the daemon's JSON refusal. The readers use it.
   */
  async openStream(
    path: string,
    { headers = {}, signal }: { headers?: Record<string, string>; signal?: AbortSignal } = {},
  ): Promise<StreamOpening> {
    const bound = this.#negotiated ?? await this.negotiate();
    const response = await this.#fetch("GET", path, {
      headers: { accept: "text/event-stream", ...headers },
      signal,
    });
    const instanceId = response.headers.get("svc-instance");
    if (instanceId !== null && instanceId !== bound.instanceId) {
      await response.body?.cancel();
      throw this.#instanceChanged();
    }
    if (!response.ok || response.body === null) {
      return { ok: false, status: response.status, body: await this.#json(response) };
    }
    return { ok: true, status: response.status, instanceId, body: response.body };
  }

  /**
   * A session's event records after `afterSeq`, live until the session has
   * ended; a dropped connection resumes after the last seq received.
   */
  streamSessionEvents(
    sessionId: string,
    options: SessionStreamOptions = {},
  ): AsyncIterable<EventRecord> {
    return readSessionEvents(this, sessionId, options);
  }

  /** The daemon-wide feed (`GET /stream`), reconnected; see `FeedItem`. */
  streamFeed(options: FeedStreamOptions = {}): AsyncIterable<FeedItem> {
    return readFeed(this, options);
  }

  /** Releases the connection pool (for a dialer: ends its processes). */
  close(): void {
    this.#httpClient?.close();
    if (this.#nodeTarget !== undefined && "agent" in this.#nodeTarget) {
      this.#nodeTarget.agent?.destroy();
    }
  }

  #instanceChanged(): ClientError {
    this.#negotiated = null;
    return new ClientError(
      "instance_changed",
      "The daemon was replaced since this client negotiated: check health and retry",
    );
  }

  async #send(
    method: string,
    path: string,
    body?: unknown,
    signal?: AbortSignal,
  ): Promise<ClientResponse & { instanceId: string | null }> {
    const response = await this.#fetch(method, path, {
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
    });
    return {
      status: response.status,
      ok: response.ok,
      body: await this.#json(response),
      instanceId: response.headers.get("svc-instance"),
    };
  }

  /** The response (body unread); a transport failure is `unreachable` unless `signal` aborted. */
  async #fetch(
    method: string,
    path: string,
    init: { headers: Record<string, string>; body?: string; signal?: AbortSignal },
  ): Promise<Response> {
    try {
      const request = { method, ...init };
      // node:http only for a pipe or a dialer: see localEndpoint() for what loading it costs.
      return this.#nodeTarget === undefined
        ? await fetch(this.#baseUrl + path, { ...request, client: this.#httpClient })
        : await this.#fetchOverNode(this.#nodeTarget, this.#baseUrl + path, request);
    } catch (error) {
      if (init.signal?.aborted) throw error;
      // The connection to the negotiated peer is gone: that binding is lost too.
      this.#negotiated = null;
      // A dialer's error already says which context failed and why.
      if (error instanceof ClientError) throw error;
      throw new ClientError(
        "unreachable",
        `svc is not running: no daemon answers on ${this.#endpoint} (${(error as Error).message})`,
      );
    }
  }

  async #fetchOverNode(
    target: NodeTarget,
    url: string,
    init: { method: string; headers: Record<string, string>; body?: string; signal?: AbortSignal },
  ): Promise<Response> {
    const { fetchOverNodeHttp } = await import("./node_http_fetch.ts");
    if ("pipe" in target) return await fetchOverNodeHttp({ socketPath: target.pipe }, url, init);
    target.agent ??= (await import("./dialed_agent.ts")).dialedAgent(target.dialer);
    return await fetchOverNodeHttp({ agent: target.agent }, url, init);
  }

  /** The body as JSON, within the response bound. */
  async #json(response: Response): Promise<unknown> {
    const text = await readBounded(response, this.#options.maxResponseBytes ?? MAX_RESPONSE_BYTES);
    try {
      return JSON.parse(text);
    } catch {
      throw new ClientError("bad_response", `Daemon answered ${response.status} with non-JSON`);
    }
  }
}

/** How a pipe or a dialer is reached: node:http, over a path or a pool of dialed streams. */
type NodeTarget = { pipe: string } | { dialer: StreamDialer; agent: Agent | null };

async function readBounded(response: Response, maxBytes: number): Promise<string> {
  const declared = Number(response.headers.get("content-length") ?? "0");
  if (declared > maxBytes) {
    await response.body?.cancel();
    throw tooLarge(maxBytes);
  }
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes);
}

function tooLarge(maxBytes: number): ClientError {
  return new ClientError("response_too_large", `Response exceeds ${maxBytes} bytes`);
}
