/**
 * A fake model provider on 127.0.0.1 so tests can drive the real agent CLIs
 * offline. It speaks the streaming dialects the four CLIs use: Anthropic
 * Messages (claude), OpenAI Responses (codex), Gemini generateContent
 * (gemini) and OpenAI chat completions (opencode). Tests queue replies with
 * `script()`, then read back every request and the usage each answer reported.
 */
import { encodeAnswer } from "./provider_answers.ts";

/** Which provider API a request used. */
export type ApiKind = "anthropic" | "responses" | "gemini" | "chat";

/** A parsed JSON object. */
export type JsonObject = Record<string, unknown>;

/** A tool call the fake model makes. */
export interface ToolCall {
  readonly name: string;
  readonly arguments: Record<string, unknown>;
}

/** What the fake model does with one main-conversation request. */
export type Reply =
  | { readonly text: string }
  | { readonly toolCall: ToolCall }
  | { readonly hang: true }
  /** An error answer instead of a reply: a provider's limit (provider_limits.ts). */
  | { readonly limit: LimitAnswer };

/** A provider's error answer, as the recorded samples show it (spec/samples/limits). */
export interface LimitAnswer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: JsonObject;
}

/** One request the provider received (HEAD probes excluded). */
export interface RecordedRequest {
  /** Position in `requests`; also drives the usage reported for it. */
  readonly index: number;
  readonly api: ApiKind;
  /** Path and query, e.g. `/v1/messages?beta=true`. */
  readonly path: string;
  readonly body: JsonObject;
  /** A title or classifier call, answered with fixed text without consuming a scripted reply. */
  readonly side: boolean;
}

/**
 * The usage one answer reported: input 100 + the request's index, output 20,
 * cached 5, so each number names its request. In the API's own terms: for
 * Anthropic `cachedInputTokens` is `cache_read_input_tokens`, counted apart
 * from `input_tokens`; for the other APIs it is the cached part of the input.
 */
export interface UsageReport {
  readonly request: number;
  readonly api: ApiKind;
  readonly side: boolean;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cachedInputTokens: number;
}

/** A running fake provider; `close()` answers hanging requests and stops the server. */
export interface FakeProvider extends AsyncDisposable {
  /** `http://127.0.0.1:PORT`, without any API prefix. */
  readonly url: string;
  readonly port: number;
  readonly requests: readonly RecordedRequest[];
  readonly usageReported: readonly UsageReport[];
  /** Requests no route matched (`METHOD path`), to explain a CLI that got stuck. */
  readonly unhandled: readonly string[];
  /** Queues replies for the coming main-conversation requests. */
  script(replies: Reply[]): void;
  /** Drops the replies still queued (an agent may not use all of a scenario's). */
  clearScript(): void;
  /** The first request (already received or coming) that `matches`; rejects after `timeoutMs`. */
  waitForRequest(
    matches: (request: RecordedRequest) => boolean,
    timeoutMs?: number,
  ): Promise<RecordedRequest>;
  close(): Promise<void>;
}

/** The text answering side requests; `{}` where the request asked for JSON. */
export const SIDE_TEXT = "Fake title";

const ROUTES: readonly { pattern: RegExp; api: ApiKind }[] = [
  { pattern: /^\/v1\/messages$/, api: "anthropic" },
  { pattern: /^\/v1\/responses$/, api: "responses" },
  { pattern: /^\/v1beta\/models\/[^/:]+:(streamGenerateContent|generateContent)$/, api: "gemini" },
  { pattern: /^\/v1\/chat\/completions$/, api: "chat" },
];

/** Starts a provider on an ephemeral port of 127.0.0.1. */
export function startFakeProvider(): Promise<FakeProvider> {
  const requests: RecordedRequest[] = [];
  const usageReported: UsageReport[] = [];
  const unhandled: string[] = [];
  const queue: Reply[] = [];
  const hanging = new Set<() => void>();
  const waiters = new Set<(request: RecordedRequest) => void>();
  let afterToolCall = false;

  function nextReply(): Reply {
    const fallback = afterToolCall ? { text: "done" } : { text: "ok" };
    const reply = queue.shift() ?? fallback;
    afterToolCall = "toolCall" in reply;
    return reply;
  }

  /** Holds the answer back until `close()` (a client that gave up is answered then too). */
  function hang(): Promise<Response> {
    return new Promise((resolve) => {
      hanging.add(() => resolve(new Response(null, { status: 503 })));
    });
  }

  async function handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (request.method === "HEAD" && url.pathname === "/") return new Response(null);
    const route = ROUTES.find((r) => r.pattern.test(url.pathname));
    if (request.method !== "POST" || !route) {
      unhandled.push(`${request.method} ${url.pathname}${url.search}`);
      return Response.json({ error: { message: "Not found" } }, { status: 404 });
    }
    const body = await request.json() as JsonObject;
    const side = isSideRequest(route.api, url.pathname, body);
    const recorded: RecordedRequest = {
      index: requests.length,
      api: route.api,
      path: url.pathname + url.search,
      body,
      side,
    };
    requests.push(recorded);
    for (const waiter of [...waiters]) waiter(recorded);
    const reply: Reply = side ? { text: sideText(body) } : nextReply();
    if ("hang" in reply) return hang();
    if ("limit" in reply) {
      return Response.json(reply.limit.body, {
        status: reply.limit.status,
        headers: reply.limit.headers,
      });
    }
    const usage: UsageReport = {
      request: recorded.index,
      api: route.api,
      side,
      inputTokens: 100 + recorded.index,
      outputTokens: 20,
      cachedInputTokens: 5,
    };
    usageReported.push(usage);
    return encodeAnswer(recorded, reply, usage);
  }

  const { promise: listening, resolve: onListen } = Promise.withResolvers<number>();
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    onListen: ({ port }) => onListen(port),
  }, handle);

  return listening.then((port) => {
    let closing: Promise<void> | null = null;
    const close = () => {
      for (const release of [...hanging]) release();
      hanging.clear();
      return closing ??= server.shutdown();
    };
    return {
      url: `http://127.0.0.1:${port}`,
      port,
      requests,
      usageReported,
      unhandled,
      script: (replies) => void queue.push(...replies),
      clearScript: () => void queue.splice(0),
      waitForRequest: (matches, timeoutMs = 15_000) => {
        const found = requests.find(matches);
        if (found) return Promise.resolve(found);
        return new Promise((resolve, reject) => {
          const timer = setTimeout(() => {
            waiters.delete(waiter);
            reject(new Error(`No matching request after ${timeoutMs} ms`));
          }, timeoutMs);
          const waiter = (request: RecordedRequest) => {
            if (!matches(request)) return;
            clearTimeout(timer);
            waiters.delete(waiter);
            resolve(request);
          };
          waiters.add(waiter);
        });
      },
      close,
      [Symbol.asyncDispose]: close,
    };
  });
}

/**
 * Side requests, told apart from the main conversation:
 * - opencode's title call has a system message starting "You are a title generator";
 * - gemini's classifier (model `auto`), next-speaker and loop checks are
 *   non-streaming `:generateContent` calls in JSON mode
 *   (`responseMimeType: application/json`), while its turns always stream.
 * claude and codex made no side calls in the recorded scenarios.
 */
function isSideRequest(api: ApiKind, path: string, body: JsonObject): boolean {
  if (api === "chat") {
    return messagesOf(body.messages).some((m) =>
      m.role === "system" && textsOf(m.content).some((t) => t.includes("You are a title generator"))
    );
  }
  if (api === "gemini") return path.endsWith(":generateContent") && wantsJson(body);
  return false;
}

function wantsJson(body: JsonObject): boolean {
  const config = body.generationConfig as JsonObject | undefined;
  return config?.responseMimeType === "application/json";
}

function sideText(body: JsonObject): string {
  return wantsJson(body) ? "{}" : SIDE_TEXT;
}

function messagesOf(value: unknown): JsonObject[] {
  return Array.isArray(value)
    ? value.filter((m): m is JsonObject => typeof m === "object" && m !== null)
    : [];
}

/** The texts in a content value: a string, or blocks/parts carrying `text`. */
function textsOf(content: unknown): string[] {
  if (typeof content === "string") return [content];
  if (!Array.isArray(content)) return [];
  return content.flatMap((block) =>
    typeof block?.text === "string" && block.type !== "thinking" ? [block.text] : []
  );
}

/** The names of the tools a recorded request offers the model, whatever its API. */
export function offeredToolNames(request: RecordedRequest): string[] {
  const tools = Array.isArray(request.body.tools) ? request.body.tools as JsonObject[] : [];
  return tools.flatMap((tool): string[] => {
    if (Array.isArray(tool.functionDeclarations)) {
      return (tool.functionDeclarations as JsonObject[]).map((f) => String(f.name));
    }
    const fn = tool.function as JsonObject | undefined;
    const name = fn?.name ?? tool.name ?? tool.type;
    return typeof name === "string" ? [name] : [];
  });
}

/**
 * Every user and assistant text of a recorded request, in order, so a test
 * can check that turn 1 is carried into turn 2. System prompts are left out.
 */
export function conversationTexts(request: RecordedRequest): string[] {
  const body = request.body;
  switch (request.api) {
    case "anthropic":
    case "chat":
      return messagesOf(body.messages)
        .filter((m) => m.role === "user" || m.role === "assistant")
        .flatMap((m) => textsOf(m.content));
    case "responses":
      return messagesOf(body.input)
        .filter((m) => m.role === "user" || m.role === "assistant")
        .flatMap((m) => textsOf(m.content));
    case "gemini":
      return messagesOf(body.contents)
        .filter((m) => m.role === "user" || m.role === "model")
        .flatMap((m) => textsOf(m.parts));
  }
}
