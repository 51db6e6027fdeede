/**
 * Codex's app-server protocol (D16): `codex app-server`, JSON-RPC-shaped
 * lines without `"jsonrpc"`. Handshake: `initialize` → `initialized` →
 * `thread/start`; then one `turn/start` per user turn, answered by
 * `item/*` and `thread/tokenUsage/updated` notifications and ended by
 * `turn/completed`. Approvals arrive as server requests
 * `item/<kind>/requestApproval` and are answered `{decision}` (D18).
 * Shapes: `codex app-server generate-ts` of codex 0.169.0.
 */
import {
  type AdapterContext,
  type AdapterStep,
  parseJsonLine,
  type PermissionAnswer,
  type PermissionOption,
  type ProtocolAdapter,
  type ToolStatus,
  type TurnStatus,
  type Usage,
} from "./protocol.ts";
import { type Json, num, obj, rpcIdOf, str } from "./json_fields.ts";
import { svcVersion } from "../version.ts";
import { codexTarget } from "./permission_target.ts";
import { codexGrant } from "./codex_permissions.ts";
import { codexTurnLimit, exhaustedWindowsReset } from "./codex_limits.ts";
import type { TurnLimit } from "./limits.ts";
import { type PermissionProfile, profileText } from "../policy/permission_profile.ts";

type RpcId = string | number;

/**
 * Streaming notifications svc does not use: opting out keeps the audit log small. The
 * assistant's text deltas stay: they become live `agent.message.delta` events (D29).
 */
const OPT_OUT = [
  "item/reasoning/summaryTextDelta",
  "item/reasoning/summaryPartAdded",
  "item/reasoning/textDelta",
  "item/plan/delta",
  "item/commandExecution/outputDelta",
  "item/fileChange/outputDelta",
];

/** The tool name svc reports for each approval kind. */
const APPROVAL_TOOLS: Readonly<Record<string, string>> = {
  "item/commandExecution/requestApproval": "shell",
  "item/fileChange/requestApproval": "apply_patch",
  "item/permissions/requestApproval": "permissions",
};

interface PendingApproval {
  rpcId: RpcId;
  method: string;
  params: Json;
  offersSession: boolean;
  /** What a permissions request was shown asking: its grant is exactly this. */
  profile: PermissionProfile | null;
}

/** Creates the adapter of one `codex app-server` session. */
export function createCodexAppServerAdapter(context: AdapterContext): ProtocolAdapter {
  let nextId = 1;
  /** What each request svc sent was, to route its response. */
  const sent = new Map<number, string>();
  let threadId: string | null = null;
  let agentVersion: string | null = null;
  let turnId: string | null = null;
  let turnActive = false;
  let interruptWanted = false;
  let lastMessage: string | null = null;
  const pending = new Map<string, PendingApproval>();
  /** File paths of fileChange items, to summarize their approval requests. */
  const changedFiles = new Map<string, string[]>();
  // Token totals are cumulative over the thread: a turn's usage is the growth during it.
  let usageTurnId: string | null = null;
  let usageBase: Usage = ZERO;
  let usageLatest: Usage | null = null;
  /** When the used-up rate-limit windows reset, from `account/rateLimits/updated` (D33). */
  let windowsReset: number | null = null;

  function request(method: string, params: Json): string {
    const id = nextId++;
    sent.set(id, method);
    return JSON.stringify({ id, method, params });
  }

  function interruptLine(): string {
    interruptWanted = false;
    return request("turn/interrupt", { threadId, turnId });
  }

  function onResponse(id: number, message: Json): AdapterStep[] {
    const method = sent.get(id);
    if (method === undefined) return [];
    sent.delete(id);
    const error = obj(message.error);
    const result = obj(message.result) ?? {};
    if (error !== null) {
      const text = str(error.message) ?? "Unknown error";
      if (method === "turn/start") return endTurn("failed", text);
      const fatal = method === "initialize" || method === "thread/start" ||
        method === "thread/resume";
      return [{ type: "error", message: `Codex refused "${method}": ${text}`, fatal }];
    }
    if (method === "initialize") {
      agentVersion = versionOfUserAgent(str(result.userAgent));
      return [
        { type: "write", line: JSON.stringify({ method: "initialized" }) },
        { type: "write", line: context.resume ? threadResume(context.resume) : threadStart() },
      ];
    }
    if (method === "thread/start" || method === "thread/resume") {
      const thread = obj(result.thread);
      threadId = str(thread?.id);
      if (threadId === null) {
        return [{ type: "error", message: "Codex started a thread without an id", fatal: true }];
      }
      return [{
        type: "ready",
        agentSessionId: threadId,
        model: str(result.model) ?? str(thread?.model) ?? context.model,
        agentVersion: str(thread?.cliVersion) ?? agentVersion,
        resumable: true, // `thread/resume {threadId}` (D26).
      }];
    }
    if (method === "turn/start") return onTurnId(str(obj(result.turn)?.id));
    return [];
  }

  /** `untrusted` so commands ask (D18); the sandbox keeps writes in the workspace. */
  const threadStart = () =>
    request("thread/start", {
      cwd: context.cwd,
      approvalPolicy: "untrusted",
      sandbox: "workspace-write",
      ...(context.model !== null ? { model: context.model } : {}),
    });

  /**
   * Continues a recorded thread in this new process (D26), with the same
   * approval policy and sandbox as `thread/start`; its turns are not replayed.
   */
  const threadResume = (id: string) =>
    request("thread/resume", {
      threadId: id,
      cwd: context.cwd,
      approvalPolicy: "untrusted",
      sandbox: "workspace-write",
      excludeTurns: true,
      ...(context.model !== null ? { model: context.model } : {}),
    });

  /** The turn id became known; an interrupt asked for before that is sent now. */
  function onTurnId(id: string | null): AdapterStep[] {
    if (id === null || !turnActive) return [];
    turnId = id;
    return interruptWanted ? [{ type: "write", line: interruptLine() }] : [];
  }

  function endTurn(
    status: TurnStatus,
    reason: string | null,
    limit: TurnLimit | null = null,
  ): AdapterStep[] {
    if (!turnActive) return [];
    const usage = usageTurnId !== null && usageTurnId === turnId && usageLatest !== null
      ? subtract(usageLatest, usageBase)
      : null;
    turnActive = false;
    turnId = null;
    interruptWanted = false;
    const turnEnd = { type: "turn_end" as const, status, reason, result: lastMessage, usage };
    return [limit === null ? turnEnd : { ...turnEnd, limit }];
  }

  function onTurnCompleted(params: Json): AdapterStep[] {
    const turn = obj(params.turn);
    const id = str(turn?.id);
    if (turn === null || id === null || (turnId !== null && id !== turnId)) return [];
    turnId = id;
    const error = str(obj(turn.error)?.message);
    switch (turn.status) {
      case "completed":
        return endTurn("completed", null);
      case "interrupted":
        return endTurn("interrupted", error ?? "interrupted");
      default:
        return endTurn("failed", error ?? "failed", codexTurnLimit(obj(turn.error), windowsReset));
    }
  }

  function onTokenUsage(params: Json): AdapterStep[] {
    const total = breakdownUsage(obj(obj(params.tokenUsage)?.total));
    if (total === null) return [];
    const id = str(params.turnId);
    if (id !== usageTurnId) {
      usageTurnId = id;
      usageBase = usageLatest ?? ZERO;
    }
    usageLatest = total;
    return [{ type: "usage", usage: total, cumulative: true }];
  }

  function onItem(params: Json, completed: boolean): AdapterStep[] {
    const item = obj(params.item);
    if (item === null) return [];
    if (item.type === "agentMessage") {
      const text = str(item.text);
      if (!completed || !text) return [];
      lastMessage = text;
      return [{ type: "message", text }];
    }
    if (item.type === "fileChange" && str(item.id) !== null) {
      changedFiles.set(item.id as string, filePaths(item.changes));
    }
    const tool = toolOfItem(item);
    if (tool === null) return [];
    const status: ToolStatus = completed ? finalStatus(item.status) : "started";
    return [{ type: "tool", ...tool, status, output: completed ? tool.output : null }];
  }

  function onServerRequest(rpcId: RpcId, method: string, params: Json): AdapterStep[] {
    const tool = APPROVAL_TOOLS[method] ??
      (method.endsWith("/requestApproval") ? method.split("/").at(-2) ?? "tool" : null);
    if (tool === null) {
      return [{
        type: "write",
        line: JSON.stringify({
          id: rpcId,
          error: { code: -32601, message: `svc does not support "${method}"` },
        }),
      }];
    }
    const requestId = String(rpcId);
    const decisions = Array.isArray(params.availableDecisions) ? params.availableDecisions : null;
    // Without a list every decision of the schema is allowed; permission grants take a scope.
    const offersSession = decisions === null || decisions.includes("acceptForSession");
    const files = changedFiles.get(str(params.itemId) ?? "") ?? [];
    const target = codexTarget(method, params, files);
    pending.set(requestId, {
      rpcId,
      method,
      params,
      offersSession,
      profile: target.profile ?? null,
    });
    const options: PermissionOption[] = [
      { id: "allow", kind: "allow_once", label: "Allow" },
      ...(offersSession
        ? [{ id: "allow_session", kind: "allow_always" as const, label: "Allow for this session" }]
        : []),
      { id: "deny", kind: "reject_once", label: "Deny" },
    ];
    return [{
      type: "permission",
      requestId,
      tool,
      summary: summarize(tool, params, target.profile),
      options,
      target,
    }];
  }

  function summarize(tool: string, params: Json, profile?: PermissionProfile): string {
    if (profile !== undefined) {
      const reason = str(params.reason);
      return `${tool}: ${profileText(profile)}${reason ? ` (${reason})` : ""}`;
    }
    const command = str(params.command);
    if (command) return `${tool}: ${command}`;
    const files = changedFiles.get(str(params.itemId) ?? "") ?? [];
    if (files.length > 0) return `${tool}: ${files.join(", ")}`;
    const reason = str(params.reason);
    return reason ? `${tool}: ${reason}` : tool;
  }

  function onNotification(method: string, params: Json): AdapterStep[] {
    // Sub-agent threads report on the same connection; only this thread's events count.
    const from = str(params.threadId);
    if (from !== null && threadId !== null && from !== threadId) return [];
    switch (method) {
      case "turn/started":
        return onTurnId(str(obj(params.turn)?.id));
      case "turn/completed":
        return onTurnCompleted(params);
      case "item/started":
        return onItem(params, false);
      case "item/completed":
        return onItem(params, true);
      case "thread/tokenUsage/updated":
        return onTokenUsage(params);
      case "item/agentMessage/delta": {
        const text = str(params.delta);
        return text ? [{ type: "delta", text }] : [];
      }
      case "error":
        return [errorNotice(params)];
      case "account/rateLimits/updated":
        windowsReset = exhaustedWindowsReset(params);
        return [];
      case "configWarning":
      case "deprecationNotice": {
        const summary = str(params.summary);
        if (!summary) return [];
        const level = method === "configWarning" ? "warning" : "info";
        return [{ type: "notice", level, message: summary, attempt: null, maxAttempts: null }];
      }
      case "serverRequest/resolved":
        // Codex withdrew the request itself (e.g. on interrupt): it takes no answer now.
        pending.delete(String(params.requestId));
        return [];
      default:
        return [];
    }
  }

  return {
    protocol: "codex-app-server",
    start: () => [
      request("initialize", {
        clientInfo: { name: "svc", title: "svc", version: svcVersion() },
        capabilities: {
          experimentalApi: false,
          requestAttestation: false,
          optOutNotificationMethods: OPT_OUT,
        },
      }),
    ],
    // Every `…Delta` or `…/delta` notification: the completed item carries its text whole.
    streamedPiece(line) {
      const method = line.includes("elta") ? str(parseJsonLine(line)?.method) : null;
      return method !== null && /(?:\/d|D)elta$/.test(method);
    },
    onLine(line) {
      const message = parseJsonLine(line);
      if (message === null) return [];
      const method = str(message.method);
      const params = obj(message.params) ?? {};
      const id = message.id;
      const rpcId = rpcIdOf(id);
      if (method !== null && rpcId !== null) return onServerRequest(rpcId, method, params);
      if (method !== null) return onNotification(method, params);
      if (typeof id === "number") return onResponse(id, message);
      return [];
    },
    sendTurn(text) {
      turnActive = true;
      turnId = null;
      interruptWanted = false;
      lastMessage = null;
      return [request("turn/start", {
        threadId,
        input: [{ type: "text", text, text_elements: [] }],
      })];
    },
    interrupt() {
      if (!turnActive) return [];
      // Codex withdraws the turn's pending approvals itself (`serverRequest/resolved`).
      pending.clear();
      if (turnId === null) {
        interruptWanted = true; // Sent once `turn/start` answers with the turn id.
        return [];
      }
      return [interruptLine()];
    },
    answerPermission(requestId: string, answer: PermissionAnswer) {
      const approval = pending.get(requestId);
      if (approval === undefined) return [];
      pending.delete(requestId);
      return [JSON.stringify({ id: approval.rpcId, result: approvalResult(approval, answer) })];
    },
  };
}

/**
 * An `error` notification as a notice (D29): with `willRetry` codex is
 * retrying (e.g. "Reconnecting... waiting for network"); without, the turn
 * fails with it and `turn/completed` says so.
 */
function errorNotice(params: Json): AdapterStep {
  const error = obj(params.error);
  const message = str(error?.message) ?? "error";
  const details = str(error?.additionalDetails);
  return {
    type: "notice",
    level: params.willRetry === true ? "warning" : "error",
    message: details ? `${message}: ${details}` : message,
    attempt: null,
    maxAttempts: null,
  };
}

const ZERO: Usage = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, costUsd: null };

/** The response body of an approval request (its shape depends on the request's kind). */
function approvalResult(approval: PendingApproval, answer: PermissionAnswer): Json {
  const remember = answer.remember && approval.offersSession;
  if (approval.profile !== null) {
    // Granting answers the profile shown, never more; denying grants nothing.
    return answer.decision === "allow"
      ? {
        permissions: codexGrant(approval.params.permissions, approval.profile),
        scope: remember ? "session" : "turn",
      }
      : { permissions: {}, scope: "turn" };
  }
  if (answer.decision === "deny") return { decision: "decline" };
  return { decision: remember ? "acceptForSession" : "accept" };
}

/** The tool fields of a thread item, or null for items that are not tool calls. */
function toolOfItem(
  item: Json,
): { callId: string; name: string; input: string | null; output: string | null } | null {
  const callId = str(item.id) ?? "";
  switch (item.type) {
    case "commandExecution":
      return {
        callId,
        name: "shell",
        input: str(item.command),
        output: str(item.aggregatedOutput),
      };
    case "fileChange":
      return {
        callId,
        name: "apply_patch",
        input: filePaths(item.changes).join("\n") || null,
        output: null,
      };
    case "mcpToolCall":
      return {
        callId,
        name: `${str(item.server) ?? "mcp"}.${str(item.tool) ?? "tool"}`,
        input: jsonText(item.arguments),
        output: str(obj(item.error)?.message) ?? contentText(obj(item.result)?.content),
      };
    case "dynamicToolCall":
      return {
        callId,
        name: str(item.tool) ?? "tool",
        input: jsonText(item.arguments),
        output: contentText(item.contentItems),
      };
    case "webSearch":
      return { callId, name: "web_search", input: str(item.query), output: null };
    default:
      return null;
  }
}

function finalStatus(status: unknown): ToolStatus {
  return status === "failed" || status === "declined" ? status : "completed";
}

function filePaths(changes: unknown): string[] {
  if (!Array.isArray(changes)) return [];
  return changes.map((change) => str(obj(change)?.path)).filter((path) => path !== null);
}

function contentText(content: unknown): string | null {
  if (!Array.isArray(content)) return null;
  const texts = content.map((block) => str(obj(block)?.text)).filter((text) => text !== null);
  return texts.length > 0 ? texts.join("\n") : null;
}

const jsonText = (value: unknown) =>
  value === undefined || value === null ? null : JSON.stringify(value);

/** Codex's version from its user agent, `<client>/<codex version> (<os>) ...`. */
function versionOfUserAgent(userAgent: string | null): string | null {
  return userAgent?.match(/^[^/\s]+\/(\S+)/)?.[1] ?? null;
}

/** A `TokenUsageBreakdown` as usage; cached input is part of `inputTokens` in codex. */
function breakdownUsage(breakdown: Json | null): Usage | null {
  if (breakdown === null) return null;
  const usage = {
    inputTokens: num(breakdown.inputTokens),
    outputTokens: num(breakdown.outputTokens),
    cachedInputTokens: num(breakdown.cachedInputTokens),
    costUsd: null,
  };
  return usage.inputTokens === null && usage.outputTokens === null ? null : usage;
}

function subtract(total: Usage, base: Usage): Usage {
  const minus = (key: "inputTokens" | "outputTokens" | "cachedInputTokens") =>
    total[key] === null ? null : Math.max(0, total[key] - (base[key] ?? 0));
  return {
    inputTokens: minus("inputTokens"),
    outputTokens: minus("outputTokens"),
    cachedInputTokens: minus("cachedInputTokens"),
    costUsd: null,
  };
}
