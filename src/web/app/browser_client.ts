/**
 * The web app's client of the daemon (D30): `svc ui`'s `UiClient` over the
 * page's own origin, so the same sync loop, store and actions run in the
 * browser. Calls are `fetch` with the device's cookie (sent by the browser,
 * never readable here); streams are read with `fetch` too and parsed by the
 * CLI's stream readers (stream_reader.ts), which resume a session's stream
 * by `Last-Event-ID` and tell live-only deltas (frames without `id`) apart.
 * `EventSource` can do neither: it sends no `Last-Event-ID` on its first
 * open and carries the last id over to frames that have none.
 */
import type { ClientResponse, FeedItem } from "../../client/client.ts";
import { ClientError } from "../../client/client_error.ts";
import {
  readFeed,
  readSessionEvents,
  type SessionStreamOptions,
  type StreamOpener,
  type StreamOpening,
} from "../../client/stream_reader.ts";
import type { UiClient } from "../../ui/sync.ts";

/** What the daemon said of this device's credential. */
export type CredentialRefusal = "device_revoked" | "not_paired";

/** `fetch` as the page has it (tests hand in a fake). */
export type Fetch = (input: string, init?: RequestInit) => Promise<Response>;

export class BrowserClient implements UiClient, StreamOpener {
  readonly #fetch: Fetch;
  readonly #onRefused: (refusal: CredentialRefusal) => void;

  /** `onRefused`: called when an answer is 401 `device_revoked` or `not_paired`. */
  constructor(options: { fetch: Fetch; onRefused: (refusal: CredentialRefusal) => void }) {
    this.#fetch = options.fetch;
    this.#onRefused = options.onRefused;
  }

  get<T = unknown>(path: string): Promise<ClientResponse<T>> {
    return this.#call<T>("GET", path);
  }

  post<T = unknown>(path: string, body: unknown): Promise<ClientResponse<T>> {
    return this.#call<T>("POST", path, body);
  }

  streamFeed(options: Parameters<UiClient["streamFeed"]>[0]): AsyncIterable<FeedItem> {
    return readFeed(this, options);
  }

  streamSessionEvents(
    sessionId: string,
    options: SessionStreamOptions,
  ): AsyncIterable<{ seq: number; kind: string; payload_json: string }> {
    return readSessionEvents(this, sessionId, options);
  }

  async openStream(
    path: string,
    init: { headers?: Record<string, string>; signal?: AbortSignal },
  ): Promise<StreamOpening> {
    const response = await this.#send("GET", path, {
      headers: { accept: "text/event-stream", ...init.headers },
      signal: init.signal,
    });
    if (!response.ok || response.body === null) {
      return { ok: false, status: response.status, body: await this.#json(response) };
    }
    return {
      ok: true,
      status: response.status,
      instanceId: response.headers.get("svc-instance"),
      body: response.body,
    };
  }

  async #call<T>(method: string, path: string, body?: unknown): Promise<ClientResponse<T>> {
    const response = await this.#send(method, path, {
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, ok: response.ok, body: await this.#json(response) as T };
  }

  /** The answer; a transport failure is `unreachable` (the readers retry it). */
  async #send(method: string, path: string, init: RequestInit): Promise<Response> {
    let response: Response;
    try {
      response = await this.#fetch(`/api/v1${path}`, {
        method,
        credentials: "same-origin",
        ...init,
      });
    } catch (error) {
      if (init.signal?.aborted) throw error;
      throw new ClientError("unreachable", `The daemon does not answer (${String(error)})`);
    }
    if (response.status === 401) {
      const code = await refusalCode(response.clone());
      if (code === "device_revoked" || code === "not_paired") this.#onRefused(code);
    }
    return response;
  }

  async #json(response: Response): Promise<unknown> {
    const text = await response.text();
    try {
      return text === "" ? null : JSON.parse(text);
    } catch {
      throw new ClientError("bad_response", `Daemon answered ${response.status} with non-JSON`);
    }
  }
}

async function refusalCode(response: Response): Promise<string | null> {
  try {
    const body = await response.json() as { error?: { code?: unknown } };
    return typeof body.error?.code === "string" ? body.error.code : null;
  } catch {
    return null;
  }
}
