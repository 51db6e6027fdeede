/**
 * The fake provider's answers on the wire: one text or tool call, with its
 * usage, in the streaming shape of each API (SSE events as the real
 * providers send them, trimmed to the fields the CLIs read).
 */
import type { JsonObject, RecordedRequest, ToolCall, UsageReport } from "./fake_provider.ts";

/** What the fake model answers (a hang is handled before encoding). */
export type Answer = { readonly text: string } | { readonly toolCall: ToolCall };

/** The response carrying `answer` in the shape of `request`'s API, reporting `usage`. */
export function encodeAnswer(
  request: RecordedRequest,
  answer: Answer,
  usage: UsageReport,
): Response {
  const model = typeof request.body.model === "string"
    ? request.body.model
    : /\/models\/([^/:]+):/.exec(request.path)?.[1] ?? "fake-model";
  switch (request.api) {
    case "anthropic":
      return sse(anthropicEvents(answer, usage, model));
    case "responses":
      return sse(responsesEvents(answer, usage, model));
    case "gemini": {
      const chunk = geminiChunk(answer, usage, model);
      if (!request.path.includes(":streamGenerateContent")) return Response.json(chunk);
      return sse(geminiStream(answer, chunk));
    }
    case "chat":
      return sse(chatEvents(answer, usage, model, request.body), true);
  }
}

type SseEvent = [name: string | null, data: JsonObject];

function sse(events: SseEvent[], done = false): Response {
  let text = "";
  for (const [name, data] of events) {
    text += `${name ? `event: ${name}\n` : ""}data: ${JSON.stringify(data)}\n\n`;
  }
  if (done) text += "data: [DONE]\n\n";
  return new Response(text, {
    headers: { "content-type": "text/event-stream", "cache-control": "no-cache" },
  });
}

function anthropicEvents(answer: Answer, usage: UsageReport, model: string): SseEvent[] {
  const id = usage.request;
  const block = "text" in answer
    ? {
      start: { type: "text", text: "" },
      deltas: textPieces(answer.text).map((text) => ({ type: "text_delta", text })),
    }
    : {
      start: { type: "tool_use", id: `toolu_fake_${id}`, name: answer.toolCall.name, input: {} },
      deltas: [{
        type: "input_json_delta",
        partial_json: JSON.stringify(answer.toolCall.arguments),
      }],
    };
  const message = {
    id: `msg_fake_${id}`,
    type: "message",
    role: "assistant",
    model,
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: {
      input_tokens: usage.inputTokens,
      output_tokens: 0,
      cache_read_input_tokens: usage.cachedInputTokens,
      cache_creation_input_tokens: 0,
    },
  };
  const stopReason = "text" in answer ? "end_turn" : "tool_use";
  return [
    ["message_start", { type: "message_start", message }],
    ["content_block_start", { type: "content_block_start", index: 0, content_block: block.start }],
    ...block.deltas.map((delta): SseEvent => [
      "content_block_delta",
      { type: "content_block_delta", index: 0, delta },
    ]),
    ["content_block_stop", { type: "content_block_stop", index: 0 }],
    ["message_delta", {
      type: "message_delta",
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { output_tokens: usage.outputTokens },
    }],
    ["message_stop", { type: "message_stop" }],
  ];
}

function responsesEvents(answer: Answer, usage: UsageReport, model: string): SseEvent[] {
  const id = usage.request;
  const response = { id: `resp_fake_${id}`, object: "response", model };
  const item = "text" in answer
    ? {
      id: `msg_fake_${id}`,
      type: "message",
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text: answer.text, annotations: [] }],
    }
    : {
      id: `fc_fake_${id}`,
      type: "function_call",
      status: "completed",
      call_id: `call_fake_${id}`,
      name: answer.toolCall.name,
      arguments: JSON.stringify(answer.toolCall.arguments),
    };
  const events: SseEvent[] = [
    ["response.created", {
      type: "response.created",
      response: { ...response, status: "in_progress", output: [] },
    }],
    ["response.output_item.added", {
      type: "response.output_item.added",
      output_index: 0,
      item: "text" in answer ? { ...item, status: "in_progress", content: [] } : item,
    }],
  ];
  if ("text" in answer) {
    for (const delta of textPieces(answer.text)) {
      events.push(["response.output_text.delta", {
        type: "response.output_text.delta",
        item_id: item.id,
        output_index: 0,
        content_index: 0,
        delta,
      }]);
    }
  }
  events.push(
    ["response.output_item.done", { type: "response.output_item.done", output_index: 0, item }],
    ["response.completed", {
      type: "response.completed",
      response: {
        ...response,
        status: "completed",
        output: [item],
        usage: {
          input_tokens: usage.inputTokens,
          input_tokens_details: { cached_tokens: usage.cachedInputTokens },
          output_tokens: usage.outputTokens,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: usage.inputTokens + usage.outputTokens,
        },
      },
    }],
  );
  return events;
}

/** A streamed text answer as several chunks, the last one with the finish reason and usage. */
function geminiStream(answer: Answer, last: JsonObject): SseEvent[] {
  if (!("text" in answer)) return [[null, last]];
  const pieces = textPieces(answer.text);
  const partial = (text: string): JsonObject => ({
    candidates: [{ content: { role: "model", parts: [{ text }] }, index: 0 }],
    modelVersion: last.modelVersion,
    responseId: last.responseId,
  });
  const lastPiece = pieces.pop()!;
  const candidate = (last.candidates as JsonObject[])[0];
  return [
    ...pieces.map((text): SseEvent => [null, partial(text)]),
    [null, {
      ...last,
      candidates: [{ ...candidate, content: { role: "model", parts: [{ text: lastPiece }] } }],
    }],
  ];
}

function geminiChunk(answer: Answer, usage: UsageReport, model: string): JsonObject {
  const part = "text" in answer
    ? { text: answer.text }
    : { functionCall: { name: answer.toolCall.name, args: answer.toolCall.arguments } };
  return {
    candidates: [{ content: { role: "model", parts: [part] }, finishReason: "STOP", index: 0 }],
    usageMetadata: {
      promptTokenCount: usage.inputTokens,
      candidatesTokenCount: usage.outputTokens,
      cachedContentTokenCount: usage.cachedInputTokens,
      totalTokenCount: usage.inputTokens + usage.outputTokens,
    },
    modelVersion: model,
    responseId: `resp_fake_${usage.request}`,
  };
}

function chatEvents(
  answer: Answer,
  usage: UsageReport,
  model: string,
  body: JsonObject,
): SseEvent[] {
  const base = {
    id: `chatcmpl_fake_${usage.request}`,
    object: "chat.completion.chunk",
    created: 1_700_000_000,
    model,
  };
  const deltas = "text" in answer
    ? textPieces(answer.text).map((content) => ({ role: "assistant", content }))
    : [{
      role: "assistant",
      tool_calls: [{
        index: 0,
        id: `call_fake_${usage.request}`,
        type: "function",
        function: {
          name: answer.toolCall.name,
          arguments: JSON.stringify(answer.toolCall.arguments),
        },
      }],
    }];
  const finish = "text" in answer ? "stop" : "tool_calls";
  const events: SseEvent[] = [
    ...deltas.map((delta): SseEvent => [
      null,
      { ...base, choices: [{ index: 0, delta, finish_reason: null }] },
    ]),
    [null, { ...base, choices: [{ index: 0, delta: {}, finish_reason: finish }] }],
  ];
  const options = body.stream_options as JsonObject | undefined;
  if (options?.include_usage === true) {
    events.push([null, {
      ...base,
      choices: [],
      usage: {
        prompt_tokens: usage.inputTokens,
        completion_tokens: usage.outputTokens,
        total_tokens: usage.inputTokens + usage.outputTokens,
        prompt_tokens_details: { cached_tokens: usage.cachedInputTokens },
      },
    }]);
  }
  return events;
}

/**
 * A text as the pieces a model streams it in: each word with the space
 * before it, so a CLI that streams partial text has several deltas to show
 * (D29). Joined, the pieces are the text.
 */
export function textPieces(text: string): string[] {
  const pieces = text.match(/\s*\S+\s*$|\s*\S+/g) ?? [];
  return pieces.length > 0 ? pieces : [text];
}
