import assert from "node:assert/strict";
import {
  conversationTexts,
  type FakeProvider,
  offeredToolNames,
  type RecordedRequest,
  SIDE_TEXT,
  startFakeProvider,
} from "./fake_provider.ts";
import {
  anthropicUsageLimit,
  codexUsageLimit,
  geminiDailyQuota,
  openaiInsufficientQuota,
} from "./provider_limits.ts";

type Json = Record<string, unknown>;

async function post(provider: FakeProvider, path: string, body: Json): Promise<Response> {
  return await fetch(provider.url + path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

/** The `data:` payloads of an SSE body, `[DONE]` excluded. */
async function events(response: Response): Promise<Json[]> {
  assert.deepEqual(response.headers.get("content-type"), "text/event-stream");
  const text = await response.text();
  return text.split("\n")
    .filter((line) => line.startsWith("data: ") && line !== "data: [DONE]")
    .map((line) => JSON.parse(line.slice("data: ".length)));
}

const ANTHROPIC = "/v1/messages?beta=true";
const RESPONSES = "/v1/responses";
const GEMINI_STREAM = "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse";
const GEMINI_JSON = "/v1beta/models/gemini-2.5-flash:generateContent";
const CHAT = "/v1/chat/completions";

const anthropicBody = (text: string) => ({
  model: "claude-x",
  stream: true,
  messages: [{ role: "user", content: [{ type: "text", text }] }],
  tools: [{ name: "Bash", input_schema: {} }],
});
const chatBody = (text: string) => ({
  model: "m",
  stream: true,
  stream_options: { include_usage: true },
  messages: [{ role: "system", content: "You are opencode" }, { role: "user", content: text }],
  tools: [{ type: "function", function: { name: "bash", parameters: {} } }],
});

Deno.test("startFakeProvider() answers every API with text and usage", async (t) => {
  await using provider = await startFakeProvider();
  provider.script([{ text: "one" }, { text: "two" }, { text: "three" }, { text: "four" }]);

  await t.step("anthropic messages", async () => {
    const sent = await events(await post(provider, ANTHROPIC, anthropicBody("hi")));
    assert.deepEqual(sent.map((e) => e.type), [
      "message_start",
      "content_block_start",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    assert.deepEqual((sent[2].delta as Json).text, "one");
    const usage = (sent[0].message as Json).usage as Json;
    assert.deepEqual([usage.input_tokens, usage.cache_read_input_tokens], [100, 5]);
    assert.deepEqual((sent[4].usage as Json).output_tokens, 20);
  });

  await t.step("openai responses", async () => {
    const sent = await events(await post(provider, RESPONSES, { model: "gpt", stream: true }));
    assert.deepEqual(sent.find((e) => e.type === "response.output_text.delta")?.delta, "two");
    const completed = sent.at(-1)!;
    assert.deepEqual(completed.type, "response.completed");
    assert.deepEqual(((completed.response as Json).usage as Json).input_tokens, 101);
  });

  await t.step("gemini streamGenerateContent and generateContent", async () => {
    const body = { contents: [{ role: "user", parts: [{ text: "hi" }] }] };
    const [chunk] = await events(await post(provider, GEMINI_STREAM, body));
    assert.deepEqual(JSON.stringify(chunk.candidates).includes('"text":"three"'), true);
    assert.deepEqual((chunk.usageMetadata as Json).promptTokenCount, 102);
    const json = await (await post(provider, GEMINI_JSON, body)).json();
    assert.deepEqual(json.candidates[0].content.parts[0].text, "four");
  });

  await t.step("chat completions, with a usage chunk when asked", async () => {
    const sent = await events(await post(provider, CHAT, chatBody("hi")));
    assert.deepEqual(((sent[0].choices as Json[])[0].delta as Json).content, "ok");
    assert.deepEqual(sent.at(-1)!.usage, {
      prompt_tokens: 104,
      completion_tokens: 20,
      total_tokens: 124,
      prompt_tokens_details: { cached_tokens: 5 },
    });
    const { stream_options: _, ...withoutUsage } = chatBody("hi");
    const plain = await events(await post(provider, CHAT, withoutUsage));
    assert.ok(plain.every((e) => !("usage" in e)));
  });

  await t.step("records requests and the usage it reported", () => {
    assert.deepEqual(provider.requests.map((r) => r.api), [
      "anthropic",
      "responses",
      "gemini",
      "gemini",
      "chat",
      "chat",
    ]);
    assert.deepEqual(provider.requests[0].path, ANTHROPIC);
    assert.deepEqual(provider.usageReported.map((u) => u.inputTokens), [
      100,
      101,
      102,
      103,
      104,
      105,
    ]);
  });
});

Deno.test("startFakeProvider() answers HEAD / and refuses unknown routes", async () => {
  await using provider = await startFakeProvider();
  assert.deepEqual((await fetch(provider.url, { method: "HEAD" })).status, 200);
  const missing = await fetch(`${provider.url}/v1/models`);
  await missing.body?.cancel();
  assert.deepEqual(missing.status, 404);
  assert.deepEqual(provider.unhandled, ["GET /v1/models"]);
});

Deno.test("startFakeProvider() makes a tool call, then answers done", async (t) => {
  await using provider = await startFakeProvider();
  const call = { name: "bash", arguments: { command: "touch created.txt" } };

  await t.step("anthropic", async () => {
    provider.script([{ toolCall: call }]);
    const sent = await events(await post(provider, ANTHROPIC, anthropicBody("go")));
    assert.deepEqual((sent[1].content_block as Json).name, "bash");
    assert.deepEqual(JSON.parse((sent[2].delta as Json).partial_json as string), call.arguments);
    assert.deepEqual((sent[4].delta as Json).stop_reason, "tool_use");
    const after = await events(await post(provider, ANTHROPIC, anthropicBody("result")));
    assert.deepEqual((after[2].delta as Json).text, "done");
  });

  await t.step("responses", async () => {
    provider.script([{ toolCall: call }]);
    const sent = await events(await post(provider, RESPONSES, { model: "gpt" }));
    const item = sent.find((e) => e.type === "response.output_item.done")!.item as Json;
    assert.deepEqual([item.type, item.name, JSON.parse(item.arguments as string)], [
      "function_call",
      "bash",
      call.arguments,
    ]);
  });

  await t.step("gemini", async () => {
    provider.script([{ toolCall: call }]);
    const [chunk] = await events(await post(provider, GEMINI_STREAM, { contents: [] }));
    const part = ((chunk.candidates as Json[])[0].content as Json).parts as Json[];
    assert.deepEqual(part[0].functionCall, { name: "bash", args: call.arguments });
  });

  await t.step("chat", async () => {
    provider.script([{ toolCall: call }, { text: "after the tool" }]);
    const sent = await events(await post(provider, CHAT, chatBody("go")));
    const delta = (sent[0].choices as Json[])[0].delta as Json;
    const [toolCall] = delta.tool_calls as Json[];
    assert.deepEqual((toolCall.function as Json).name, "bash");
    assert.deepEqual((sent[1].choices as Json[])[0].finish_reason, "tool_calls");
    const after = await events(await post(provider, CHAT, chatBody("result")));
    assert.equal(chatText(after), "after the tool");
  });
});

Deno.test("startFakeProvider() answers side requests without using the script", async () => {
  await using provider = await startFakeProvider();
  provider.script([{ text: "main answer" }]);
  const title = {
    ...chatBody("hello"),
    messages: [{ role: "system", content: "You are a title generator. Output a title." }],
  };
  const sent = await events(await post(provider, CHAT, title));
  assert.equal(chatText(sent), SIDE_TEXT);
  const classifier = { contents: [], generationConfig: { responseMimeType: "application/json" } };
  const json = await (await post(provider, GEMINI_JSON, classifier)).json();
  assert.deepEqual(json.candidates[0].content.parts[0].text, "{}");
  const main = await events(await post(provider, CHAT, chatBody("hello")));
  assert.equal(chatText(main), "main answer");
  assert.deepEqual(provider.requests.map((r) => r.side), [true, true, false]);
});

Deno.test("startFakeProvider() holds a hanging request until close", async () => {
  const provider = await startFakeProvider();
  provider.script([{ hang: true }]);
  const pending = post(provider, RESPONSES, { model: "gpt" });
  const request = await provider.waitForRequest((r) => r.api === "responses");
  assert.deepEqual(request.index, 0);
  assert.deepEqual(provider.usageReported, []);
  await provider.close();
  const response = await pending;
  await response.body?.cancel();
  assert.deepEqual(response.status, 503);
});

Deno.test("startFakeProvider() answers each provider's limit as recorded, reporting no usage", async () => {
  await using provider = await startFakeProvider();
  provider.script([
    anthropicUsageLimit(2_000_000_000),
    codexUsageLimit(2_000_000_000, 1_999_996_400),
    geminiDailyQuota(),
    openaiInsufficientQuota(),
    { text: "after" },
  ]);
  const anthropic = await post(provider, ANTHROPIC, anthropicBody("hi"));
  assert.equal(anthropic.status, 429);
  assert.equal(anthropic.headers.get("anthropic-ratelimit-unified-status"), "rejected");
  assert.equal(anthropic.headers.get("anthropic-ratelimit-unified-reset"), "2000000000");
  assert.equal((await anthropic.json()).error.type, "rate_limit_error");

  const codex = await post(provider, RESPONSES, { model: "gpt", input: [] });
  assert.equal(codex.status, 429);
  assert.equal(codex.headers.get("x-codex-primary-used-percent"), "100");
  assert.equal(codex.headers.get("x-codex-primary-reset-at"), "2000000000");
  assert.equal(codex.headers.get("x-codex-primary-reset-after-seconds"), "3600");
  const codexError = (await codex.json()).error;
  assert.equal(codexError.type, "usage_limit_reached");
  assert.equal(codexError.resets_at, 2_000_000_000);

  const gemini = await post(provider, GEMINI_STREAM, { contents: [] });
  assert.equal(gemini.status, 429);
  const geminiError = (await gemini.json()).error;
  assert.equal(geminiError.status, "RESOURCE_EXHAUSTED");
  assert.match(geminiError.details[0].violations[0].quotaId, /PerDay/);

  const chat = await post(provider, CHAT, chatBody("hi"));
  assert.equal(chat.status, 429);
  assert.equal((await chat.json()).error.code, "insufficient_quota");

  assert.equal(chatText(await events(await post(provider, CHAT, chatBody("hi")))), "after");
  assert.deepEqual(provider.usageReported.map((report) => report.request), [4]);
});

Deno.test("waitForRequest() rejects after its timeout", async () => {
  await using provider = await startFakeProvider();
  await assert.rejects(provider.waitForRequest(() => true, 10), /No matching request/);
});

function recorded(api: RecordedRequest["api"], body: Json): RecordedRequest {
  return { index: 0, api, path: "/", body, side: false };
}

Deno.test("offeredToolNames() reads each API's tool list", () => {
  assert.deepEqual(offeredToolNames(recorded("anthropic", anthropicBody("x"))), ["Bash"]);
  assert.deepEqual(offeredToolNames(recorded("chat", chatBody("x"))), ["bash"]);
  const responses = { tools: [{ type: "function", name: "exec_command" }, { type: "web_search" }] };
  assert.deepEqual(offeredToolNames(recorded("responses", responses)), [
    "exec_command",
    "web_search",
  ]);
  const gemini = { tools: [{ functionDeclarations: [{ name: "run_shell_command" }] }] };
  assert.deepEqual(offeredToolNames(recorded("gemini", gemini)), ["run_shell_command"]);
  assert.deepEqual(offeredToolNames(recorded("gemini", {})), []);
});

Deno.test("conversationTexts() lists user and assistant texts, not system prompts", () => {
  const history = ["hello", "Hi there", "again"];
  assert.deepEqual(
    conversationTexts(recorded("anthropic", {
      system: [{ type: "text", text: "system" }],
      messages: [
        { role: "user", content: [{ type: "text", text: "hello" }] },
        {
          role: "assistant",
          content: [{ type: "thinking", text: "hm" }, { type: "text", text: "Hi there" }],
        },
        { role: "user", content: "again" },
      ],
    })),
    history,
  );
  assert.deepEqual(
    conversationTexts(recorded("chat", {
      messages: [
        { role: "system", content: "system" },
        { role: "user", content: "hello" },
        { role: "assistant", content: "Hi there" },
        { role: "user", content: [{ type: "text", text: "again" }] },
      ],
    })),
    history,
  );
  assert.deepEqual(
    conversationTexts(recorded("responses", {
      input: [
        { type: "message", role: "developer", content: [{ type: "input_text", text: "system" }] },
        { type: "message", role: "user", content: [{ type: "input_text", text: "hello" }] },
        {
          type: "message",
          role: "assistant",
          content: [{ type: "output_text", text: "Hi there" }],
        },
        { type: "function_call_output", call_id: "c", output: "x" },
        { type: "message", role: "user", content: [{ type: "input_text", text: "again" }] },
      ],
    })),
    history,
  );
  assert.deepEqual(
    conversationTexts(recorded("gemini", {
      systemInstruction: { parts: [{ text: "system" }] },
      contents: [
        { role: "user", parts: [{ text: "hello" }] },
        { role: "model", parts: [{ text: "Hi there" }] },
        { role: "user", parts: [{ text: "again" }] },
      ],
    })),
    history,
  );
});

/** The text of a streamed chat completion: its deltas' content joined (D29: word by word). */
function chatText(chunks: Json[]): string {
  return chunks.map((chunk) =>
    ((chunk.choices as Json[] | undefined)?.[0]?.delta as Json | undefined)?.content ?? ""
  ).join("");
}
