/**
 * Claude Code's stream-json protocol (D16): `claude -p --input-format
 * stream-json --output-format stream-json --verbose --permission-prompt-tool
 * stdio`. A user turn is one `user` line; each turn answers with
 * `system/init`, `assistant` and `user` (tool results) lines and ends with a
 * `result` line. Permission requests arrive as `control_request`
 * `can_use_tool` and are answered with a `control_response`.
 */
import {
  type AdapterContext,
  type AdapterStep,
  parseJsonLine,
  type PermissionAnswer,
  type ProtocolAdapter,
  type Usage,
} from "./protocol.ts";
import { type Json, num, obj, str } from "./json_fields.ts";
import { claudeTarget } from "./permission_target.ts";
import { limitFromMessage } from "./limits.ts";

/** The allow/deny choices of a `can_use_tool` request. */
const OPTIONS = [
  { id: "allow", kind: "allow_once", label: "Allow" },
  { id: "deny", kind: "reject_once", label: "Deny" },
] as const;

/** Creates the adapter of one claude session. */
export function createClaudeAdapter(_context: AdapterContext): ProtocolAdapter {
  let ready = false;
  let sessionId: string | null = null;
  let nextControlId = 1;
  /** Inputs of pending `can_use_tool` requests: an allow must echo them as `updatedInput`. */
  const pendingInputs = new Map<string, Json>();
  /** The tool call of each pending request, and the calls svc denied (their error reads `declined`). */
  const toolUseOfRequest = new Map<string, string>();
  const pendingDenied = new Set<string>();
  /** Set by `interrupt()`: the turn's error result is then `interrupted`. */
  let interrupting = false;
  /** `total_cost_usd` is the process's running total: a turn costs the difference. */
  let lastTotalCost = 0;
  /** A `rate_limit_event` `rejected` of this turn: a limit, and its reset when it gave one. */
  let rejected: { resetsAt: number | null } | null = null;

  function onSystem(message: Json): AdapterStep[] {
    if (message.subtype === "api_retry") return [retryNotice(message)];
    if (message.subtype !== "init") return [];
    const id = str(message.session_id);
    if (!ready) {
      ready = true;
      sessionId = id;
      return [{
        type: "ready",
        agentSessionId: id,
        model: str(message.model),
        agentVersion: str(message.claude_code_version),
        resumable: id !== null, // `--resume <session_id>` (D26).
      }];
    }
    if (id !== null && id !== sessionId) {
      sessionId = id;
      return [{ type: "session", agentSessionId: id }];
    }
    return [];
  }

  function onAssistant(message: Json): AdapterStep[] {
    const content = obj(message.message)?.content;
    if (!Array.isArray(content)) return [];
    const steps: AdapterStep[] = [];
    for (const block of content.map(obj)) {
      if (block?.type === "text" && str(block.text)) {
        steps.push({ type: "message", text: block.text as string });
      } else if (block?.type === "tool_use") {
        steps.push({
          type: "tool",
          callId: str(block.id) ?? "",
          name: str(block.name) ?? "tool",
          status: "started",
          input: block.input === undefined ? null : JSON.stringify(block.input),
          output: null,
        });
      }
    }
    return steps;
  }

  function onUser(message: Json): AdapterStep[] {
    const content = obj(message.message)?.content;
    if (!Array.isArray(content)) return [];
    const steps: AdapterStep[] = [];
    for (const block of content.map(obj)) {
      if (block?.type !== "tool_result") continue;
      const output = toolResultText(block.content);
      // A denied permission comes back as an error result that says so.
      const declined = block.is_error === true &&
        pendingDenied.delete(str(block.tool_use_id) ?? "");
      steps.push({
        type: "tool",
        callId: str(block.tool_use_id) ?? "",
        name: "",
        status: declined ? "declined" : block.is_error === true ? "failed" : "completed",
        input: null,
        output,
      });
    }
    return steps;
  }

  function onResult(message: Json): AdapterStep[] {
    const subtype = str(message.subtype) ?? "";
    const failed = message.is_error === true || subtype !== "success";
    // A failed API call ends with subtype "success", `is_error` and the error as `result`.
    const failure = subtype === "success" ? str(message.result) || "error" : subtype || "error";
    const interrupted = interrupting;
    interrupting = false;
    const usage = resultUsage(message, lastTotalCost);
    lastTotalCost = num(message.total_cost_usd) ?? lastTotalCost;
    // D33: a 429 result (after api_retry lines with an API key; after a rejected
    // rate_limit_event, which carries the reset, with a subscription login).
    const limited = failed && !interrupted &&
      (message.api_error_status === 429 || rejected !== null);
    const limit = limited
      ? limitFromMessage(failure, { known: true, resetsAt: rejected?.resetsAt ?? null })
      : null;
    rejected = null;
    return [{
      type: "turn_end",
      status: interrupted ? "interrupted" : failed ? "failed" : "completed",
      reason: interrupted ? "interrupted" : failed ? failure : null,
      result: str(message.result),
      usage,
      ...(limit !== null && { limit }),
    }];
  }

  /** `rate_limit_event` (subscription logins): `rejected` names the limit and, often, its reset. */
  function onRateLimit(message: Json): AdapterStep[] {
    const info = obj(message.rate_limit_info);
    if (info?.status !== "rejected") return [];
    const resetsAt = num(info.resetsAt);
    rejected = { resetsAt: resetsAt === null ? null : resetsAt * 1000 };
    return [];
  }

  function onControlRequest(message: Json): AdapterStep[] {
    const requestId = str(message.request_id);
    const request = obj(message.request);
    if (requestId === null || request === null) return [];
    if (request.subtype !== "can_use_tool") {
      return [{
        type: "write",
        line: JSON.stringify({
          type: "control_response",
          response: {
            subtype: "error",
            request_id: requestId,
            error: `Unsupported control request "${String(request.subtype)}"`,
          },
        }),
      }];
    }
    const input = obj(request.input) ?? {};
    pendingInputs.set(requestId, input);
    const toolUseId = str(request.tool_use_id);
    if (toolUseId !== null) toolUseOfRequest.set(requestId, toolUseId);
    const tool = str(request.tool_name) ?? "tool";
    return [{
      type: "permission",
      requestId,
      tool,
      summary: summarize(tool, input),
      options: OPTIONS.map((option) => ({ ...option })),
      target: claudeTarget(tool, input),
    }];
  }

  return {
    protocol: "claude",
    turnsBeforeReady: true,
    start: () => [],
    // The provider's own stream events: the `assistant` line repeats their content whole.
    streamedPiece: (line) =>
      line.includes("stream_event") && parseJsonLine(line)?.type === "stream_event",
    onLine(line) {
      const message = parseJsonLine(line);
      if (message === null) return [];
      switch (message.type) {
        case "system":
          return onSystem(message);
        case "assistant":
          return onAssistant(message);
        case "user":
          return onUser(message);
        case "result":
          return onResult(message);
        case "rate_limit_event":
          return onRateLimit(message);
        case "stream_event":
          return textDelta(message);
        case "control_request":
          return onControlRequest(message);
        default:
          return [];
      }
    },
    sendTurn: (text) => [
      JSON.stringify({
        type: "user",
        message: { role: "user", content: [{ type: "text", text }] },
      }),
    ],
    interrupt() {
      interrupting = true;
      return [JSON.stringify({
        type: "control_request",
        request_id: `svc-${nextControlId++}`,
        request: { subtype: "interrupt" },
      })];
    },
    answerPermission(requestId: string, answer: PermissionAnswer) {
      const input = pendingInputs.get(requestId) ?? {};
      pendingInputs.delete(requestId);
      const toolUseId = toolUseOfRequest.get(requestId);
      toolUseOfRequest.delete(requestId);
      if (answer.decision === "deny" && toolUseId !== undefined) pendingDenied.add(toolUseId);
      const response = answer.decision === "allow"
        ? { behavior: "allow", updatedInput: input }
        : { behavior: "deny", message: answer.message ?? "Denied by svc" };
      return [JSON.stringify({
        type: "control_response",
        response: { subtype: "success", request_id: requestId, response },
      })];
    },
  };
}

/**
 * A `system` `api_retry` line as a notice (D29): Claude Code retries a
 * failing provider call (`error_status` null: no HTTP answer at all).
 */
function retryNotice(message: Json): AdapterStep {
  const status = num(message.error_status);
  const error = str(message.error) ?? "error";
  const delayMs = num(message.retry_delay_ms);
  const reason = status === null ? `no answer from the API (${error})` : `${status} ${error}`;
  return {
    type: "notice",
    level: "warning",
    message: delayMs === null ? reason : `${reason}, next try in ${(delayMs / 1000).toFixed(1)} s`,
    attempt: num(message.attempt),
    maxAttempts: num(message.max_retries),
  };
}

/**
 * The text of a `stream_event` line (`--include-partial-messages`) as a
 * delta: only the main conversation's `text_delta`s, not a sub-agent's
 * (those carry a `parent_tool_use_id`), nor tool input being written.
 */
function textDelta(message: Json): AdapterStep[] {
  if (message.parent_tool_use_id !== null && message.parent_tool_use_id !== undefined) return [];
  const event = obj(message.event);
  const delta = obj(event?.delta);
  if (event?.type !== "content_block_delta" || delta?.type !== "text_delta") return [];
  const text = str(delta.text);
  return text ? [{ type: "delta", text }] : [];
}

/** The turn's usage from a `result` line (D22): its tokens, and its share of the running cost. */
function resultUsage(message: Json, costBefore: number): Usage | null {
  const usage = obj(message.usage);
  const total = num(message.total_cost_usd);
  const cost = total === null ? null : Math.max(0, total - costBefore);
  if (usage === null && cost === null) return null;
  const cacheRead = num(usage?.cache_read_input_tokens);
  const cacheCreate = num(usage?.cache_creation_input_tokens);
  const input = num(usage?.input_tokens);
  return {
    // Anthropic counts cache reads and writes apart from `input_tokens`; svc's `inputTokens`
    // is every input token, cached ones included (D22), as codex and gemini report it.
    inputTokens: input === null ? null : input + (cacheRead ?? 0) + (cacheCreate ?? 0),
    outputTokens: num(usage?.output_tokens),
    cachedInputTokens: cacheRead,
    costUsd: cost,
  };
}

/** The text of a `tool_result` block's content (a string or text blocks). */
function toolResultText(content: unknown): string | null {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return null;
  const texts = content.map(obj).map((block) => str(block?.text)).filter((text) => text !== null);
  return texts.length > 0 ? texts.join("\n") : null;
}

/** A one-line summary of what a tool wants to do: its command, file or pattern. */
export function summarize(tool: string, input: Json): string {
  for (const key of ["command", "file_path", "path", "url", "pattern", "description"]) {
    const value = str(input[key]);
    if (value) return `${tool}: ${value}`;
  }
  return tool;
}
