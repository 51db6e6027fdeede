import assert, {
  deepStrictEqual as assertDeep,
  strictEqual as assertEquals,
} from "node:assert/strict";
import { createCodexAppServerAdapter } from "../../src/agents/codex_app_server.ts";
import type { AdapterStep, ProtocolAdapter } from "../../src/agents/protocol.ts";
import {
  loadTranscript,
  replayTranscript,
  requestShapes,
  stepsOf,
  type TranscriptLine,
} from "./transcript.ts";

type Json = Record<string, unknown>;

const THREAD = "thread-1";
const ALLOW = { decision: "allow", remember: false, message: null } as const;
const DENY = { decision: "deny", remember: false, message: null } as const;

function feed(adapter: ProtocolAdapter, ...messages: Json[]): AdapterStep[] {
  return messages.flatMap((message) => adapter.onLine(JSON.stringify(message)));
}

const parse = (line: string) => JSON.parse(line) as Json;

/** An adapter past its handshake, with a turn running (turn/start was request 3). */
function startedTurn(model: string | null = null): ProtocolAdapter {
  const adapter = createCodexAppServerAdapter({ cwd: "/work", model });
  adapter.start();
  feed(
    adapter,
    { id: 1, result: { userAgent: "svc/0.169.0 (Linux) xterm" } },
    { id: 2, result: { thread: { id: THREAD, cliVersion: "0.169.0" }, model: "gpt-5" } },
  );
  adapter.sendTurn("hello");
  feed(adapter, { id: 3, result: { turn: { id: "turn-1", status: "inProgress" } } });
  return adapter;
}

const item = (method: string, fields: Json) => ({
  method,
  params: { threadId: THREAD, turnId: "turn-1", item: fields },
});

Deno.test("createCodexAppServerAdapter() handshakes initialize, initialized, thread/start", () => {
  const adapter = createCodexAppServerAdapter({ cwd: "/work", model: "gpt-5" });
  const [initialize] = adapter.start().map(parse);
  assertEquals(initialize.method, "initialize");
  const params = initialize.params as Json;
  assertEquals((params.clientInfo as Json).name, "svc");
  assertEquals("jsonrpc" in initialize, false);
  const steps = feed(adapter, { id: initialize.id, result: { userAgent: "svc/0.169.0 (x)" } });
  assertDeep(steps.map((step) => step.type === "write" && parse(step.line)), [
    { method: "initialized" },
    {
      id: 2,
      method: "thread/start",
      params: {
        cwd: "/work",
        approvalPolicy: "untrusted",
        sandbox: "workspace-write",
        model: "gpt-5",
      },
    },
  ]);
  assertDeep(feed(adapter, { id: 2, result: { thread: { id: THREAD }, model: "gpt-5" } }), [
    {
      type: "ready",
      agentSessionId: THREAD,
      model: "gpt-5",
      agentVersion: "0.169.0",
      resumable: true,
    },
  ]);
});

Deno.test("createCodexAppServerAdapter() resumes a thread with thread/resume (D26)", () => {
  const adapter = createCodexAppServerAdapter({ cwd: "/work", model: null, resume: THREAD });
  const [initialize] = adapter.start().map(parse);
  const steps = feed(adapter, { id: initialize.id, result: { userAgent: "svc/0.169.0 (x)" } });
  assertDeep(steps.map((step) => step.type === "write" && parse(step.line)), [
    { method: "initialized" },
    {
      id: 2,
      method: "thread/resume",
      params: {
        threadId: THREAD,
        cwd: "/work",
        approvalPolicy: "untrusted",
        sandbox: "workspace-write",
        excludeTurns: true,
      },
    },
  ]);
  const [ready] = feed(adapter, { id: 2, result: { thread: { id: THREAD }, model: "gpt-5" } });
  assertDeep(ready, {
    type: "ready",
    agentSessionId: THREAD,
    model: "gpt-5",
    agentVersion: "0.169.0",
    resumable: true,
  });
});

Deno.test("createCodexAppServerAdapter() fails the session when the handshake is refused", () => {
  const adapter = createCodexAppServerAdapter({ cwd: "/work", model: null });
  adapter.start();
  const [step] = feed(adapter, { id: 1, error: { code: -32600, message: "bad client" } });
  assert(step.type === "error" && step.fatal && step.message.includes("bad client"));
});

Deno.test("createCodexAppServerAdapter() sends a turn and ends it with the last message", () => {
  const adapter = startedTurn();
  const [turnStart] = adapter.sendTurn("next").map(parse);
  assertDeep(turnStart.params, {
    threadId: THREAD,
    input: [{ type: "text", text: "next", text_elements: [] }],
  });
  const steps = feed(
    adapter,
    item("item/completed", { type: "agentMessage", id: "m1", text: "first" }),
    item("item/completed", { type: "agentMessage", id: "m2", text: "final" }),
    {
      method: "turn/completed",
      params: { threadId: THREAD, turn: { id: "turn-1", status: "completed", error: null } },
    },
  );
  assertDeep(stepsOf(steps, "message").map((step) => step.text), ["first", "final"]);
  assertDeep(stepsOf(steps, "turn_end"), [
    { type: "turn_end", status: "completed", reason: null, result: "final", usage: null },
  ]);
});

Deno.test("createCodexAppServerAdapter() reports a failed turn with its error", () => {
  const adapter = startedTurn();
  const [end] = feed(adapter, {
    method: "turn/completed",
    params: {
      threadId: THREAD,
      turn: { id: "turn-1", status: "failed", error: { message: "quota" } },
    },
  });
  assert(end.type === "turn_end" && end.status === "failed" && end.reason === "quota");
});

Deno.test("createCodexAppServerAdapter() ends the turn failed when turn/start is refused", () => {
  const adapter = startedTurn();
  adapter.sendTurn("again");
  const [end] = feed(adapter, { id: 4, error: { code: -32600, message: "busy" } });
  assert(end.type === "turn_end" && end.status === "failed" && end.reason === "busy");
});

Deno.test("createCodexAppServerAdapter() interrupts with the turn id, even before it is known", async (t) => {
  await t.step("known id", () => {
    const [line] = startedTurn().interrupt().map(parse);
    assertDeep({ method: line.method, params: line.params }, {
      method: "turn/interrupt",
      params: { threadId: THREAD, turnId: "turn-1" },
    });
  });
  await t.step("id not yet known", () => {
    const adapter = startedTurn();
    adapter.sendTurn("second");
    assertDeep(adapter.interrupt(), []);
    const [write] = feed(adapter, { id: 4, result: { turn: { id: "turn-2" } } });
    assert(write.type === "write");
    assertEquals((parse(write.line).params as Json).turnId, "turn-2");
  });
  await t.step("no turn", () => {
    const adapter = createCodexAppServerAdapter({ cwd: "/work", model: null });
    assertDeep(adapter.interrupt(), []);
  });
});

Deno.test("createCodexAppServerAdapter() maps tool items to started and final statuses", () => {
  const adapter = startedTurn();
  const command = { type: "commandExecution", id: "c1", command: "ls", aggregatedOutput: null };
  const steps = feed(
    adapter,
    item("item/started", { ...command, status: "inProgress" }),
    item("item/completed", { ...command, status: "failed", aggregatedOutput: "boom", exitCode: 1 }),
    item("item/completed", {
      type: "mcpToolCall",
      id: "m1",
      server: "docs",
      tool: "search",
      status: "completed",
      arguments: { q: "x" },
      result: { content: [{ type: "text", text: "found" }] },
    }),
    item("item/completed", { type: "reasoning", id: "r1", summary: [], content: [] }),
  );
  assertDeep(stepsOf(steps, "tool"), [
    { type: "tool", callId: "c1", name: "shell", input: "ls", output: null, status: "started" },
    { type: "tool", callId: "c1", name: "shell", input: "ls", output: "boom", status: "failed" },
    {
      type: "tool",
      callId: "m1",
      name: "docs.search",
      input: '{"q":"x"}',
      output: "found",
      status: "completed",
    },
  ]);
});

Deno.test("createCodexAppServerAdapter() asks for command approval and answers in kind", async (t) => {
  const request = (id: number | string, availableDecisions?: unknown[]) => ({
    method: "item/commandExecution/requestApproval",
    id,
    params: {
      threadId: THREAD,
      turnId: "turn-1",
      itemId: "c1",
      command: "rm -rf x",
      availableDecisions,
    },
  });
  await t.step("allow once keeps the id's JSON type", () => {
    const adapter = startedTurn();
    const [permission] = feed(adapter, request("req-7", ["accept", "cancel"]));
    assertDeep(permission, {
      type: "permission",
      requestId: "req-7",
      tool: "shell",
      summary: "shell: rm -rf x",
      options: [
        { id: "allow", kind: "allow_once", label: "Allow" },
        { id: "deny", kind: "reject_once", label: "Deny" },
      ],
      target: { kind: "shell", command: "rm -rf x", paths: [] },
    });
    // Remember is not offered here, so it is a plain accept.
    assertDeep(adapter.answerPermission("req-7", { ...ALLOW, remember: true }).map(parse), [
      { id: "req-7", result: { decision: "accept" } },
    ]);
  });
  await t.step("remember uses acceptForSession when offered", () => {
    const adapter = startedTurn();
    const [permission] = feed(adapter, request(0, ["accept", "acceptForSession", "decline"]));
    assert(permission.type === "permission");
    assertEquals(
      permission.options.map((option) => option.kind).join(),
      "allow_once,allow_always,reject_once",
    );
    assertDeep(adapter.answerPermission("0", { ...ALLOW, remember: true }).map(parse), [
      { id: 0, result: { decision: "acceptForSession" } },
    ]);
  });
  await t.step("deny declines, once", () => {
    const adapter = startedTurn();
    feed(adapter, request(1));
    assertDeep(adapter.answerPermission("1", DENY).map(parse), [{
      id: 1,
      result: { decision: "decline" },
    }]);
    assertDeep(adapter.answerPermission("1", DENY), []);
  });
  await t.step("a request codex withdrew takes no answer", () => {
    const adapter = startedTurn();
    feed(adapter, request(2), {
      method: "serverRequest/resolved",
      params: { threadId: THREAD, requestId: 2 },
    });
    assertDeep(adapter.answerPermission("2", ALLOW), []);
  });
  await t.step("an interrupt drops pending requests (codex resolves them)", () => {
    const adapter = startedTurn();
    feed(adapter, request(3));
    adapter.interrupt();
    assertDeep(adapter.answerPermission("3", DENY), []);
  });
});

Deno.test("createCodexAppServerAdapter() summarizes file change approvals by path", () => {
  const adapter = startedTurn();
  const steps = feed(
    adapter,
    item("item/started", {
      type: "fileChange",
      id: "p1",
      status: "inProgress",
      changes: [{ path: "a.ts", kind: { type: "add" }, diff: "" }, { path: "b.ts", diff: "" }],
    }),
    {
      method: "item/fileChange/requestApproval",
      id: 5,
      params: { threadId: THREAD, itemId: "p1" },
    },
  );
  const [permission] = stepsOf(steps, "permission");
  assertEquals(permission.tool, "apply_patch");
  assertEquals(permission.summary, "apply_patch: a.ts, b.ts");
  assertDeep(adapter.answerPermission("5", { ...ALLOW, remember: true }).map(parse), [
    { id: 5, result: { decision: "acceptForSession" } },
  ]);
});

Deno.test("createCodexAppServerAdapter() grants or refuses a permissions request", () => {
  const adapter = startedTurn();
  const permissions = { network: { enabled: true }, fileSystem: null };
  feed(
    adapter,
    {
      method: "item/permissions/requestApproval",
      id: 8,
      params: { itemId: "x", reason: "net", permissions },
    },
    { method: "item/permissions/requestApproval", id: 9, params: { itemId: "y", permissions } },
  );
  assertDeep(parse(adapter.answerPermission("8", ALLOW)[0]).result, {
    permissions: { network: { enabled: true } },
    scope: "turn",
  });
  assertDeep(parse(adapter.answerPermission("9", DENY)[0]).result, {
    permissions: {},
    scope: "turn",
  });
});

Deno.test("createCodexAppServerAdapter() shows a permissions request's profile and grants exactly it", () => {
  const adapter = startedTurn();
  // The shape of codex 0.169's `PermissionsRequestApprovalParams` (app-server-protocol v2).
  const granted = [
    { path: { type: "path", path: "/srv/out" }, access: "write" },
    { path: { type: "special", value: { kind: "root" } }, access: "write" },
    { path: { type: "path", path: "/srv/out/keep" }, access: "deny" },
  ];
  const permissions = {
    network: { enabled: true },
    fileSystem: {
      read: ["/opt/data"],
      write: ["/home/me/.cache/tool"],
      entries: [
        ...granted,
        { path: { type: "glob_pattern", pattern: "**/*.env" }, access: "read" },
        { path: { type: "special", value: { kind: "tmpdir" } }, access: "write" },
      ],
    },
  };
  const [permission] = stepsOf(
    feed(adapter, {
      method: "item/permissions/requestApproval",
      id: 12,
      params: {
        threadId: THREAD,
        turnId: "turn-1",
        itemId: "call_1",
        environmentId: null,
        startedAtMs: 1,
        cwd: "/work",
        reason: "cache the index",
        permissions,
      },
    }),
    "permission",
  );
  assertDeep(permission.target, {
    kind: "other",
    command: null,
    paths: [],
    profile: {
      network: true,
      read: ["/opt/data"],
      write: ["/home/me/.cache/tool", "/srv/out", "/"],
    },
  });
  assertEquals(
    permission.summary,
    "permissions: write /home/me/.cache/tool, /srv/out, /; read /opt/data; network (cache the index)",
  );
  // What svc cannot show (a glob, the agent's temp dir) is not granted; a deny entry only narrows.
  assertDeep(parse(adapter.answerPermission("12", ALLOW)[0]).result, {
    permissions: {
      network: { enabled: true },
      fileSystem: {
        read: ["/opt/data"],
        write: ["/home/me/.cache/tool"],
        entries: granted,
      },
    },
    scope: "turn",
  });
  const networkOff = feed(adapter, {
    method: "item/permissions/requestApproval",
    id: 13,
    params: {
      itemId: "call_2",
      reason: null,
      permissions: { network: { enabled: null }, fileSystem: { read: null, write: ["/a"] } },
    },
  });
  const [second] = stepsOf(networkOff, "permission");
  assertDeep(second.target?.profile, { network: false, read: [], write: ["/a"] });
  assertEquals(second.summary, "permissions: write /a");
  assertDeep(parse(adapter.answerPermission("13", ALLOW)[0]).result, {
    permissions: { fileSystem: { read: null, write: ["/a"] } },
    scope: "turn",
  });
});

Deno.test("createCodexAppServerAdapter() answers other server requests with a JSON-RPC error", () => {
  const adapter = startedTurn();
  const [step] = feed(adapter, { method: "item/tool/requestUserInput", id: 11, params: {} });
  assert(step.type === "write");
  const reply = parse(step.line);
  assertEquals(reply.id, 11);
  assertEquals((reply.error as Json).code, -32601);
});

Deno.test("createCodexAppServerAdapter() reports cumulative usage and the turn's growth", () => {
  const adapter = startedTurn();
  const usage = (turnId: string, input: number, output: number) => ({
    method: "thread/tokenUsage/updated",
    params: {
      threadId: THREAD,
      turnId,
      tokenUsage: {
        total: { inputTokens: input, outputTokens: output, cachedInputTokens: 5, totalTokens: 0 },
        last: { inputTokens: 1, outputTokens: 1, cachedInputTokens: 0, totalTokens: 0 },
      },
    },
  });
  const completed = (id: string) => ({
    method: "turn/completed",
    params: { threadId: THREAD, turn: { id, status: "completed" } },
  });
  const first = feed(adapter, usage("turn-1", 100, 20), completed("turn-1"));
  assertDeep(stepsOf(first, "usage")[0], {
    type: "usage",
    usage: { inputTokens: 100, outputTokens: 20, cachedInputTokens: 5, costUsd: null },
    cumulative: true,
  });
  adapter.sendTurn("second");
  const second = feed(
    adapter,
    { id: 4, result: { turn: { id: "turn-2" } } },
    usage("turn-2", 250, 50),
    completed("turn-2"),
  );
  assertDeep(stepsOf(second, "turn_end")[0].usage, {
    inputTokens: 150,
    outputTokens: 30,
    cachedInputTokens: 0,
    costUsd: null,
  });
});

Deno.test("createCodexAppServerAdapter() ignores other threads and malformed lines", () => {
  const adapter = startedTurn();
  const garbage = [
    "",
    "not json",
    "[1,2]",
    "{",
    "null",
    '{"method":42}',
    '{"method":"turn/completed"}',
    '{"method":"item/completed","params":{"item":"x"}}',
    '{"method":"thread/tokenUsage/updated","params":{"tokenUsage":{"total":"x"}}}',
    '{"id":99,"result":{}}',
    '{"id":{"x":1},"method":"item/commandExecution/requestApproval"}',
  ];
  for (const line of garbage) assertDeep(adapter.onLine(line), [], line);
  const other = { threadId: "sub-agent", turn: { id: "turn-1", status: "completed" } };
  assertDeep(feed(adapter, { method: "turn/completed", params: other }), []);
});

// Transcripts recorded from codex 0.169.0 (scripts/record_agent_transcripts.ts).

async function codexReplay(scenario: string) {
  const lines = await loadTranscript("codex", scenario);
  return { lines, replay: replayTranscript(lines, createCodexAppServerAdapter) };
}

/** The `result` of the recorded answer to request `id`. */
function recordedResult(lines: TranscriptLine[], id: number): Json {
  const answer = lines.map((entry) => parse(entry.line)).find((message) =>
    message.id === id && "result" in message
  );
  return answer?.result as Json;
}

Deno.test("codex transcript two_turns: ready, two answers, per-turn usage", async () => {
  const { lines, replay } = await codexReplay("two_turns");
  const thread = (recordedResult(lines, 2).thread as Json).id;
  const [ready] = stepsOf(replay.steps, "ready");
  assertEquals(ready.agentSessionId, thread);
  assertEquals(ready.agentVersion, "0.169.0");
  assertEquals(typeof ready.model, "string");
  assertDeep(stepsOf(replay.steps, "message").map((step) => step.text), [
    "Hi there",
    "Second answer",
  ]);
  assertDeep(stepsOf(replay.steps, "turn_end"), [
    {
      type: "turn_end",
      status: "completed",
      reason: null,
      result: "Hi there",
      usage: { inputTokens: 100, outputTokens: 20, cachedInputTokens: 5, costUsd: null },
    },
    {
      type: "turn_end",
      status: "completed",
      reason: null,
      result: "Second answer",
      usage: { inputTokens: 101, outputTokens: 20, cachedInputTokens: 5, costUsd: null },
    },
  ]);
});

Deno.test("codex transcript tool_allow: approval, command completed, two model calls counted", async () => {
  const { replay } = await codexReplay("tool_allow");
  const tools = stepsOf(replay.steps, "tool");
  assertDeep(tools.map((step) => [step.name, step.status]), [["shell", "started"], [
    "shell",
    "completed",
  ]]);
  assert(tools[0].input?.includes("touch created.txt"));
  const [permission] = stepsOf(replay.steps, "permission");
  assertEquals(permission.requestId, "0");
  assert(
    permission.summary.startsWith("shell: ") && permission.summary.includes("touch created.txt"),
  );
  const [end] = stepsOf(replay.steps, "turn_end");
  assertEquals(end.result, "done");
  assertDeep(end.usage, {
    inputTokens: 201,
    outputTokens: 40,
    cachedInputTokens: 10,
    costUsd: null,
  });
});

Deno.test("codex transcript tool_deny: the declined command is reported declined", async () => {
  const { replay } = await codexReplay("tool_deny");
  const tools = stepsOf(replay.steps, "tool");
  assertDeep(tools.map((step) => step.status), ["started", "declined"]);
  assertEquals(stepsOf(replay.steps, "turn_end")[0].status, "completed");
});

Deno.test("codex transcript interrupt: the turn ends interrupted", async () => {
  const { replay } = await codexReplay("interrupt");
  assertDeep(stepsOf(replay.steps, "turn_end").map((step) => step.status), ["interrupted"]);
});

Deno.test("codex transcripts: svc writes the lines the recorder proved", async () => {
  for (const scenario of ["two_turns", "tool_allow", "tool_deny", "interrupt"]) {
    const { replay } = await codexReplay(scenario);
    assertDeep(requestShapes(replay.written), requestShapes(replay.recorded), scenario);
  }
});

Deno.test("codex transcript two_turns: agentMessage deltas come before each completed message (D29)", async () => {
  const { replay } = await codexReplay("two_turns");
  const shown = replay.steps.filter((step) => step.type === "delta" || step.type === "message")
    .map((step) => `${step.type}:${(step as { text: string }).text}`);
  assertDeep(shown, [
    "delta:Hi there",
    "message:Hi there",
    "delta:Second answer",
    "message:Second answer",
  ]);
});

Deno.test("codex transcript reconnecting: error notifications with willRetry are warnings (D29)", async () => {
  const { replay } = await codexReplay("reconnecting");
  const notices = stepsOf(replay.steps, "notice");
  assertDeep(notices[0], {
    type: "notice",
    level: "warning",
    message:
      "Codex could not find bubblewrap on PATH. Install bubblewrap with your OS package manager. " +
      "See the sandbox prerequisites: https://developers.openai.com/codex/concepts/sandboxing#prerequisites. " +
      "Codex will use the bundled bubblewrap in the meantime.",
    attempt: null,
    maxAttempts: null,
  });
  const retries = notices.slice(1);
  assertEquals(retries.length, 3);
  for (const notice of retries) {
    assertDeep(notice, {
      type: "notice",
      level: "warning",
      message: "Reconnecting... waiting for network: Connection failed: error sending request",
      attempt: null,
      maxAttempts: null,
    });
  }
  assertDeep(stepsOf(replay.steps, "turn_end"), [], "the turn is still being retried");
});

Deno.test("createCodexAppServerAdapter() keeps agentMessage deltas (no opt-out) and maps a final error", () => {
  const adapter = createCodexAppServerAdapter({ cwd: "/w", model: null });
  const [initialize] = adapter.start().map((line) => JSON.parse(line));
  assert.ok(
    !initialize.params.capabilities.optOutNotificationMethods.includes("item/agentMessage/delta"),
  );
  const steps = feed(adapter, {
    method: "error",
    params: {
      error: { message: "stream disconnected", additionalDetails: null },
      willRetry: false,
    },
  });
  assertDeep(steps, [{
    type: "notice",
    level: "error",
    message: "stream disconnected",
    attempt: null,
    maxAttempts: null,
  }]);
});

Deno.test("createCodexAppServerAdapter() calls every delta notification a streamed piece (issue 33)", async () => {
  const { replay } = await codexReplay("two_turns");
  assertDeep(
    [...new Set(replay.streamedPieces.map((line) => JSON.parse(line).method))],
    ["item/agentMessage/delta"],
  );
  const adapter = createCodexAppServerAdapter({ cwd: "/work", model: null });
  const note = (method: string) => JSON.stringify({ jsonrpc: "2.0", method, params: {} });
  assertEquals(adapter.streamedPiece(note("item/commandExecution/outputDelta")), true);
  assertEquals(adapter.streamedPiece(note("item/completed")), false);
  assertEquals(adapter.streamedPiece('{"id":1,"result":{"text":"Delta"}}'), false);
});
