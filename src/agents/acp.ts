/**
 * The Agent Client Protocol (D16): JSON-RPC 2.0 lines, spoken by `gemini
 * --acp`, `opencode acp` and any configured ACP agent. Handshake:
 * `initialize` → `session/new`; then one `session/prompt` per user turn,
 * whose response ends the turn. Progress arrives as `session/update`
 * notifications; permissions as agent requests `session/request_permission`
 * answered with one of the offered options (D18). Shapes: the schema of
 * `@agentclientprotocol/sdk` 2.4.0 and transcripts of gemini 0.61.0 and
 * opencode 1.18.33.
 */
import {
  type AdapterContext,
  type AdapterStep,
  parseJsonLine,
  type PermissionAnswer,
  type PermissionOption,
  type ProtocolAdapter,
  type TurnStatus,
  type Usage,
} from "./protocol.ts";
import { type Json, num, obj, rpcIdOf, str } from "./json_fields.ts";
import { acpTarget } from "./permission_target.ts";
import { limitFromMessage, type TurnLimit } from "./limits.ts";

type RpcId = string | number;

/** Silence after a `session/load` answer before the conversation goes on (D26). */
const REPLAY_SETTLE_MS = 500;

const OPTION_KINDS = new Set<string>([
  "allow_once",
  "allow_always",
  "reject_once",
  "reject_always",
]);

/** What svc knows of one tool call; updates only carry the fields that changed. */
interface ToolCall {
  name: string;
  rawInput: unknown;
  output: string | null;
  started: boolean;
  done: boolean;
}

interface PendingPermission {
  rpcId: RpcId;
  toolCallId: string | null;
  options: PermissionOption[];
}

/** Creates the adapter of one ACP session. */
export function createAcpAdapter(context: AdapterContext): ProtocolAdapter {
  let nextId = 1;
  const sent = new Map<number, string>();
  let sessionId: string | null = null;
  let agentVersion: string | null = null;
  let promptId: number | null = null;
  const tools = new Map<string, ToolCall>();
  const pending = new Map<string, PendingPermission>();
  /** Tool calls svc denied: some agents (gemini) never report them again. */
  const declined = new Set<string>();
  let chunks: string[] = [];
  let messageId: string | null = null;
  let lastMessage: string | null = null;
  // usage_update carries the session's cumulative cost: a turn costs the growth during it.
  let cost: number | null = null;
  let costAtTurnStart: number | null = null;
  /** `initialize` advertised `loadSession` (D26). */
  let canLoad = false;
  /** Between `session/load` and its answer: the replayed history is not new (D26). */
  let loading = false;

  function request(method: string, params: Json): { id: number; line: string } {
    const id = nextId++;
    sent.set(id, method);
    return { id, line: JSON.stringify({ jsonrpc: "2.0", id, method, params }) };
  }

  const reply = (rpcId: RpcId, result: Json) =>
    JSON.stringify({ jsonrpc: "2.0", id: rpcId, result });

  /** The streamed message so far, as one complete message step. */
  function flushMessage(): AdapterStep[] {
    const text = chunks.join("");
    chunks = [];
    if (text === "") return [];
    lastMessage = text;
    return [{ type: "message", text }];
  }

  /** Declined calls the agent did not report again end here, as `declined`. */
  function flushDeclined(except: string | null): AdapterStep[] {
    const steps: AdapterStep[] = [];
    for (const callId of declined) {
      if (callId === except) continue;
      declined.delete(callId);
      const call = tools.get(callId);
      if (call && !call.done) steps.push(...finish(callId, call, "declined"));
    }
    return steps;
  }

  function finish(callId: string, call: ToolCall, status: "completed" | "failed" | "declined") {
    call.done = true;
    return [toolStep(callId, call, status)];
  }

  /** Merges a ToolCall or ToolCallUpdate and reports what changed: started once, then done. */
  function onToolCall(fields: Json, permission: boolean): AdapterStep[] {
    const callId = str(fields.toolCallId);
    if (callId === null) return [];
    let call = tools.get(callId);
    if (call === undefined) {
      // A permission's title describes the action (it becomes the summary), not the tool.
      const title = permission ? null : str(fields.title);
      const name = str(fields.name) ?? title ?? str(fields.kind) ?? str(fields.title) ?? "tool";
      call = { name, rawInput: undefined, output: null, started: false, done: false };
      tools.set(callId, call);
    }
    if (fields.rawInput !== undefined && fields.rawInput !== null) call.rawInput = fields.rawInput;
    if (call.done) return [];
    const status = permission ? "pending" : fields.status;
    if (status === "completed" || status === "failed") {
      // Only a final update's content is output: before that it describes the call (gemini).
      call.output = toolOutput(fields);
      const denied = declined.delete(callId) && status === "failed";
      return finish(callId, call, denied ? "declined" : status);
    }
    // Started once it runs or asks: a pending call's input may still be partial (opencode).
    if (call.started || (status !== "in_progress" && !permission)) return [];
    call.started = true;
    return [toolStep(callId, call, "started")];
  }

  function onUpdate(update: Json): AdapterStep[] {
    switch (update.sessionUpdate) {
      case "agent_message_chunk": {
        const content = obj(update.content);
        const text = content?.type === "text" ? str(content.text) : null;
        if (text === null) return [];
        // A new messageId starts a new message (opencode sends one per message).
        const id = str(update.messageId);
        const steps = id !== null && messageId !== null && id !== messageId ? flushMessage() : [];
        if (id !== null) messageId = id;
        chunks.push(text);
        return [...steps, { type: "delta", text }];
      }
      case "tool_call":
      case "tool_call_update":
        return [...flushMessage(), ...onToolCall(update, false)];
      case "usage_update": {
        const amount = costOf(update.cost);
        if (amount === null) return [];
        cost = amount;
        const usage = { inputTokens: null, outputTokens: null, cachedInputTokens: null };
        return [{ type: "usage", usage: { ...usage, costUsd: amount }, cumulative: true }];
      }
      default:
        return [];
    }
  }

  function onAgentRequest(rpcId: RpcId, method: string, params: Json): AdapterStep[] {
    if (method !== "session/request_permission") {
      const error = { code: -32601, message: `Method not found: ${method}` };
      return [{ type: "write", line: JSON.stringify({ jsonrpc: "2.0", id: rpcId, error }) }];
    }
    const toolCall = obj(params.toolCall) ?? {};
    const toolCallId = str(toolCall.toolCallId);
    const steps = [...flushMessage(), ...onToolCall(toolCall, true)];
    const options = permissionOptions(params.options);
    const requestId = String(rpcId);
    pending.set(requestId, { rpcId, toolCallId, options });
    const call = toolCallId !== null ? tools.get(toolCallId) : undefined;
    const tool = call?.name ?? str(toolCall.kind) ?? "tool";
    return [...steps, {
      type: "permission",
      requestId,
      tool,
      summary: summarize(toolCall) ?? tool,
      options,
      target: acpTarget(toolCall, call?.rawInput ?? toolCall.rawInput),
    }];
  }

  function onResponse(id: number, message: Json): AdapterStep[] {
    const method = sent.get(id);
    if (method === undefined) return [];
    sent.delete(id);
    const error = obj(message.error);
    const result = obj(message.result) ?? {};
    if (method === "session/prompt") return endTurn(result, error);
    if (error !== null) {
      const text = str(error.message) ?? "Unknown error";
      // A session that cannot start, or cannot use the model asked for, is not worth keeping.
      const fatal = method !== "session/prompt";
      const message = `Agent refused "${method}": ${text}`;
      return [{ type: "error", message, fatal, ...(method === "session/load" && { lost: true }) }];
    }
    if (method === "initialize") {
      agentVersion = str(obj(result.agentInfo)?.version);
      canLoad = obj(result.agentCapabilities)?.loadSession === true;
      if (context.resume) {
        if (!canLoad) {
          const message =
            "Agent cannot load a session: its initialize did not advertise loadSession";
          return [{ type: "error", message, fatal: true }];
        }
        // D26: the agent replays the conversation as session/update before it answers.
        loading = true;
        sessionId = context.resume;
        const load = { sessionId, cwd: context.cwd, mcpServers: [] };
        return [{ type: "write", line: request("session/load", load).line }];
      }
      const next = request("session/new", { cwd: context.cwd, mcpServers: [] });
      return [{ type: "write", line: next.line }];
    }
    if (method === "session/new" || method === "session/load") {
      // A loaded session's replay may still come (gemini sends it after this answer): it is
      // not new until svc sends the next turn.
      if (method === "session/new") sessionId = str(result.sessionId);
      if (sessionId === null) {
        return [{ type: "error", message: "Agent created a session without an id", fatal: true }];
      }
      const current = sessionModel(result);
      const configId = modelConfigId(result);
      if (context.model !== null && current !== context.model && configId !== null) {
        // The agent takes its model as a session config option (opencode): set it first.
        const next = request("session/set_config_option", {
          sessionId,
          configId,
          value: context.model,
        });
        return [{ type: "write", line: next.line }];
      }
      return [ready(current ?? context.model)];
    }
    if (method === "session/set_config_option") return [ready(context.model)];
    return [];
  }

  function ready(model: string | null): AdapterStep {
    const settle = loading ? { settleMs: REPLAY_SETTLE_MS } : {};
    return {
      type: "ready",
      agentSessionId: sessionId,
      model,
      agentVersion,
      resumable: canLoad,
      ...settle,
    };
  }

  function endTurn(result: Json, error: Json | null): AdapterStep[] {
    promptId = null;
    const steps = [...flushMessage(), ...flushDeclined(null)];
    const { status, reason } = turnOutcome(str(result.stopReason), error);
    const usage = turnUsage(result, cost === null ? null : cost - (costAtTurnStart ?? 0));
    const text = lastMessage;
    lastMessage = null;
    const limit = error === null ? null : acpLimit(error);
    const turnEnd = { type: "turn_end" as const, status, reason, result: text, usage };
    return [...steps, limit === null ? turnEnd : { ...turnEnd, limit }];
  }

  return {
    protocol: "acp",
    start: () => [
      request("initialize", {
        protocolVersion: 1,
        // No fs: with it advertised, gemini's write_file fails on new files.
        clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
      }).line,
    ],
    // `agent_message_chunk` and the other `…_chunk` updates: the message is recorded joined.
    streamedPiece(line) {
      if (!line.includes("_chunk")) return false;
      const message = parseJsonLine(line);
      const kind = str(obj(obj(message?.params)?.update)?.sessionUpdate);
      return message?.method === "session/update" && kind !== null && kind.endsWith("_chunk");
    },
    onLine(line) {
      const message = parseJsonLine(line);
      if (message === null) return [];
      const method = str(message.method);
      const params = obj(message.params) ?? {};
      const id = message.id;
      const rpcId = rpcIdOf(id);
      const callId = str(obj(params.update)?.toolCallId);
      const steps = flushDeclined(method === "session/update" ? callId : null);
      if (method !== null && rpcId !== null) {
        return [...steps, ...onAgentRequest(rpcId, method, params)];
      }
      if (method === "session/update") {
        const update = obj(params.update);
        if (update === null) return steps;
        // A replayed history is not recorded again; its running cost is the base of the next turn.
        if (loading && update.sessionUpdate !== "usage_update") return steps;
        return [...steps, ...onUpdate(update)];
      }
      if (method === null && typeof id === "number") return [...steps, ...onResponse(id, message)];
      return steps;
    },
    sendTurn(text) {
      loading = false;
      costAtTurnStart = cost;
      // Text that trailed the previous turn's end is not part of this turn's answer.
      [chunks, messageId, lastMessage] = [[], null, null];
      const prompt = request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
      promptId = prompt.id;
      return [prompt.line];
    },
    interrupt() {
      if (promptId === null || sessionId === null) return [];
      // ACP requires every pending permission request to be answered `cancelled`.
      const lines = [
        JSON.stringify({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId } }),
      ];
      for (const permission of pending.values()) {
        lines.push(reply(permission.rpcId, { outcome: { outcome: "cancelled" } }));
      }
      pending.clear();
      return lines;
    },
    answerPermission(requestId: string, answer: PermissionAnswer) {
      const permission = pending.get(requestId);
      if (permission === undefined) return [];
      pending.delete(requestId);
      const option = chooseOption(permission.options, answer);
      if (answer.decision === "deny" && permission.toolCallId !== null) {
        declined.add(permission.toolCallId);
      }
      const outcome = option === null
        ? { outcome: "cancelled" }
        : { outcome: "selected", optionId: option.id };
      return [reply(permission.rpcId, { outcome })];
    },
  };
}

/** How a `session/prompt` response ends the turn: max_tokens, refusal… fail with that reason. */
function turnOutcome(
  stopReason: string | null,
  error: Json | null,
): { status: TurnStatus; reason: string | null } {
  if (error !== null) return { status: "failed", reason: str(error.message) ?? "error" };
  if (stopReason === "end_turn") return { status: "completed", reason: null };
  if (stopReason === "cancelled") return { status: "interrupted", reason: "interrupted" };
  return { status: "failed", reason: stopReason ?? "error" };
}

/**
 * The limit a failed `session/prompt` names (D33): gemini answers JSON-RPC
 * code 429 ("Suggested retry after 2s", "exhausted your daily quota");
 * opencode -32603 with `data.errorName` "APIError" and the provider's
 * message ("Rate limit reached … Please try again in 20s").
 */
function acpLimit(error: Json): TurnLimit | null {
  const message = str(error.message) ?? "";
  if (num(error.code) === 429) return limitFromMessage(message, { known: true });
  if (str(obj(error.data)?.errorName) === "APIError") return limitFromMessage(message);
  return null;
}

/** The offered option that carries `answer`: remember picks the "always" kind when offered. */
function chooseOption(
  options: PermissionOption[],
  answer: PermissionAnswer,
): PermissionOption | null {
  const kinds = answer.decision === "allow"
    ? answer.remember ? ["allow_always", "allow_once"] : ["allow_once", "allow_always"]
    : ["reject_once", "reject_always"];
  for (const kind of kinds) {
    const option = options.find((candidate) => candidate.kind === kind);
    if (option) return option;
  }
  return null;
}

function permissionOptions(value: unknown): PermissionOption[] {
  if (!Array.isArray(value)) return [];
  return value.map(obj).flatMap((option): PermissionOption[] => {
    const id = str(option?.optionId);
    const kind = str(option?.kind);
    if (id === null || kind === null || !OPTION_KINDS.has(kind)) return [];
    return [{ id, kind: kind as PermissionOption["kind"], label: str(option?.name) ?? id }];
  });
}

function toolStep(
  callId: string,
  call: ToolCall,
  status: "started" | "completed" | "failed" | "declined",
): AdapterStep {
  const input = call.rawInput === undefined ? null : JSON.stringify(call.rawInput);
  return { type: "tool", callId, name: call.name, status, input, output: call.output };
}

/** A tool's output: the text of its content, else its raw output. */
function toolOutput(fields: Json): string | null {
  const texts = Array.isArray(fields.content)
    ? fields.content.map(obj).flatMap((block) => {
      if (block?.type === "diff") return [`diff: ${str(block.path) ?? ""}`];
      const text = str(obj(block?.content)?.text);
      return text === null ? [] : [text];
    })
    : [];
  if (texts.length > 0) return texts.join("\n");
  const raw = fields.rawOutput;
  if (raw === undefined || raw === null) return null;
  return typeof raw === "string" ? raw : JSON.stringify(raw);
}

/**
 * What a permission request is about: its title (for opencode's write outside
 * the project, the file), else the command or path of its input.
 */
function summarize(toolCall: Json): string | null {
  const title = str(toolCall.title);
  const input = obj(toolCall.rawInput) ?? {};
  // opencode titles a request to reach outside the project (`external_directory`) by the
  // directory; what the owner answers for is the file, in the raw input.
  const file = str(input.filepath);
  if (file && (!title || title === str(input.parentDir))) return file;
  if (title) return title;
  for (const key of ["command", "filePath", "file_path", "path", "url", "pattern"]) {
    const value = str(input[key]);
    if (value) return value;
  }
  return null;
}

/** The model of a new session: `models.currentModelId` (gemini) or the model config option (opencode). */
function sessionModel(result: Json): string | null {
  return str(obj(result.models)?.currentModelId) ?? str(modelOption(result)?.currentValue);
}

/** The id of the session's model config option, when the agent offers one. */
function modelConfigId(result: Json): string | null {
  return str(modelOption(result)?.id);
}

function modelOption(result: Json): Json | null {
  const options = Array.isArray(result.configOptions) ? result.configOptions.map(obj) : [];
  return options.find((option) => option?.category === "model" || option?.id === "model") ?? null;
}

function costOf(value: unknown): number | null {
  const cost = obj(value);
  return cost !== null && cost.currency === "USD" ? num(cost.amount) : null;
}

/**
 * The turn's usage: the prompt response's `usage` (ACP; opencode), else
 * gemini's `_meta.quota.token_count`; both are per turn. Cost comes from
 * usage_update. Null when the agent reports nothing.
 */
function turnUsage(result: Json, costUsd: number | null): Usage | null {
  const usage = obj(result.usage);
  const quota = obj(obj(obj(result._meta)?.quota)?.token_count);
  const tokens: Omit<Usage, "costUsd"> = usage !== null
    ? {
      // ACP counts cache reads and writes apart from `inputTokens` (totalTokens = all three +
      // output); svc's `inputTokens` is every input token, cached ones included (D22).
      inputTokens: sumOrNull(usage.inputTokens, usage.cachedReadTokens, usage.cachedWriteTokens),
      outputTokens: num(usage.outputTokens),
      cachedInputTokens: num(usage.cachedReadTokens),
    }
    : {
      inputTokens: num(quota?.input_tokens),
      outputTokens: num(quota?.output_tokens),
      cachedInputTokens: null,
    };
  const all = { ...tokens, costUsd };
  return Object.values(all).every((value) => value === null) ? null : all;
}

/** The sum of the numbers among `values`, or null when the first is not a number. */
function sumOrNull(first: unknown, ...rest: unknown[]): number | null {
  const base = num(first);
  return base === null ? null : rest.reduce<number>((sum, value) => sum + (num(value) ?? 0), base);
}
