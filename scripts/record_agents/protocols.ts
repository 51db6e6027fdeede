/**
 * The three protocol modes the recorder drives (see agents-notes.md
 * "Protocol modes"): claude stream-json, codex app-server, and ACP (gemini,
 * opencode). Each turns recorder intents into stdin lines and tells which
 * stdout lines end a turn or ask something.
 */
import type { Harness } from "../agents_install.ts";
import { buildArgv, BUILTIN_HARNESSES } from "../../src/sessions/harnesses.ts";
import { AGENT_MODELS } from "../../tests/real_agents/agent_env.ts";
import type { AgentProcess, Message } from "./agent_process.ts";

/** How long the handshake's requests may take (gemini starts in ≈ 4 s). */
const OPEN_MS = 60_000;

/** What a stdout line means to the recorder. */
export type MessageKind = "turn_end" | "permission" | "request" | "other";

/** One protocol mode, for one process. */
export interface Protocol {
  /** The CLI's arguments. */
  readonly args: string[];
  /** The handshake, up to a session ready for prompts. */
  open(agent: AgentProcess): Promise<void>;
  /** Sends a user prompt (does not wait for the turn). */
  prompt(agent: AgentProcess, text: string): Promise<void>;
  /** Asks the agent to stop the running turn. */
  cancel(agent: AgentProcess): Promise<void>;
  classify(message: Message): MessageKind;
  answerPermission(agent: AgentProcess, request: Message, allow: boolean): Promise<void>;
  /** Answers a request the recorder does not support with an error. */
  refuse(agent: AgentProcess, request: Message): Promise<void>;
}

/** The protocol driver of `harness`, for a session working in `cwd`. */
export function createProtocol(harness: Harness, cwd: string): Protocol {
  switch (harness) {
    case "claude":
      return claudeProtocol();
    case "codex":
      return codexProtocol(cwd);
    case "gemini":
      return acpProtocol(["--acp", "--model", AGENT_MODELS.gemini], cwd);
    case "opencode":
      return acpProtocol(["acp"], cwd);
  }
}

type Json = Record<string, unknown>;

function field(value: unknown, ...path: string[]): unknown {
  let current = value;
  for (const key of path) current = (current as Json | undefined)?.[key];
  return current;
}

function builtinClaude() {
  return BUILTIN_HARNESSES.find((spec) => spec.id === "claude")!;
}

function claudeProtocol(): Protocol {
  return {
    // The built-in's own argv (without its model), so the recording drives what svc runs.
    args: buildArgv(builtinClaude(), { prompt: "" }).argv.slice(1),
    open: async () => {},
    prompt: (agent, text) =>
      agent.send({ type: "user", message: { role: "user", content: [{ type: "text", text }] } }),
    cancel: (agent) =>
      agent.send({
        type: "control_request",
        request_id: "interrupt-1",
        request: { subtype: "interrupt" },
      }),
    classify: ({ json }) => {
      if (json.type === "result") return "turn_end";
      if (json.type !== "control_request") return "other";
      return field(json, "request", "subtype") === "can_use_tool" ? "permission" : "request";
    },
    answerPermission: (agent, { json }, allow) =>
      agent.send({
        type: "control_response",
        response: {
          subtype: "success",
          request_id: json.request_id,
          response: allow
            ? { behavior: "allow", updatedInput: field(json, "request", "input") }
            : { behavior: "deny", message: "Denied by the recorder" },
        },
      }),
    refuse: (agent, { json }) =>
      agent.send({
        type: "control_response",
        response: { subtype: "error", request_id: json.request_id, error: "Not supported" },
      }),
  };
}

/** JSON-RPC requests over an agent's stdin; `jsonrpc` is false for codex's dialect without it. */
function rpcClient(jsonrpc: boolean) {
  let nextId = 1;
  const envelope = (message: Json): Json => jsonrpc ? { jsonrpc: "2.0", ...message } : message;
  /** The `result` of the response to request `id`; throws on an error response. */
  const result = async (agent: AgentProcess, id: number, method: string): Promise<Json> => {
    const { json, line } = await agent.waitFor(
      (m) => m.json.id === id && !("method" in m.json),
      { timeoutMs: OPEN_MS, what: `the answer to ${method}` },
    );
    if (!json.result) throw new Error(`${method} failed: ${line}`);
    return json.result as Json;
  };
  return {
    envelope,
    /** Sends a request and returns its id. */
    send: async (agent: AgentProcess, method: string, params: Json): Promise<number> => {
      const id = nextId++;
      await agent.send(envelope({ id, method, params }));
      return id;
    },
    result,
    /** Sends a request and returns the `result` of its response. */
    call: async (agent: AgentProcess, method: string, params: Json): Promise<Json> => {
      const id = nextId++;
      await agent.send(envelope({ id, method, params }));
      return await result(agent, id, method);
    },
    refuse: (agent: AgentProcess, { json }: Message) =>
      agent.send(envelope({ id: json.id, error: { code: -32601, message: "Not supported" } })),
  };
}

function isRequest(json: Json): boolean {
  return "id" in json && typeof json.method === "string";
}

function codexProtocol(cwd: string): Protocol {
  const rpc = rpcClient(false);
  let threadId = "";
  let turnStart = 0;
  return {
    args: ["app-server"],
    open: async (agent) => {
      await rpc.call(agent, "initialize", {
        clientInfo: { name: "svc-recorder", version: "0.1.0" },
      });
      await agent.send({ method: "initialized" });
      const started = await rpc.call(agent, "thread/start", {
        cwd,
        approvalPolicy: "untrusted",
        sandbox: "workspace-write",
      });
      threadId = String(field(started, "thread", "id"));
    },
    prompt: async (agent, text) => {
      turnStart = await rpc.send(agent, "turn/start", {
        threadId,
        input: [{ type: "text", text, text_elements: [] }],
      });
    },
    cancel: async (agent) => {
      const started = await rpc.result(agent, turnStart, "turn/start");
      await rpc.send(agent, "turn/interrupt", { threadId, turnId: field(started, "turn", "id") });
    },
    classify: ({ json }) => {
      if (json.method === "turn/completed") return "turn_end";
      if (!isRequest(json)) return "other";
      return String(json.method).endsWith("/requestApproval") ? "permission" : "request";
    },
    // availableDecisions lists accept, acceptWithExecpolicyAmendment and cancel, yet
    // "decline" is taken: the command item ends "declined" and the turn goes on.
    answerPermission: (agent, { json }, allow) =>
      agent.send({ id: json.id, result: { decision: allow ? "accept" : "decline" } }),
    refuse: rpc.refuse,
  };
}

function acpProtocol(args: string[], cwd: string): Protocol {
  const rpc = rpcClient(true);
  let sessionId = "";
  let promptId = 0;
  return {
    args,
    open: async (agent) => {
      await rpc.call(agent, "initialize", {
        protocolVersion: 1,
        // With fs advertised, gemini's write_file fails on new files.
        clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
      });
      const session = await rpc.call(agent, "session/new", { cwd, mcpServers: [] });
      sessionId = String(session.sessionId);
    },
    prompt: async (agent, text) => {
      promptId = await rpc.send(agent, "session/prompt", {
        sessionId,
        prompt: [{ type: "text", text }],
      });
    },
    cancel: (agent) =>
      agent.send(rpc.envelope({ method: "session/cancel", params: { sessionId } })),
    classify: ({ json }) => {
      if (json.id === promptId && !("method" in json)) return "turn_end";
      if (!isRequest(json)) return "other";
      return json.method === "session/request_permission" ? "permission" : "request";
    },
    answerPermission: async (agent, { json }, allow) => {
      const options = field(json, "params", "options") as { optionId: string; kind: string }[];
      const wanted = allow ? "allow_once" : "reject_once";
      const option = options.find((o) => o.kind === wanted);
      if (!option) throw new Error(`No "${wanted}" option in ${JSON.stringify(options)}`);
      await agent.send(rpc.envelope({
        id: json.id,
        result: { outcome: { outcome: "selected", optionId: option.optionId } },
      }));
    },
    refuse: rpc.refuse,
  };
}
