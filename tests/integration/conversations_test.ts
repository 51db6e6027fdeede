/**
 * Conversations end to end through the real socket (D16, D17, D22), with a
 * configured `claude`-protocol harness: a scripted stream-json agent
 * (tests/fixtures/stream_json_agent.ts). The real CLIs are proven in
 * tests/real_agents (deno task test:agents).
 */
import assert from "node:assert/strict";
import { allEvents, startTestDaemon, type TestDaemon, waitForEnd } from "../helpers/daemon.ts";
import { removeTree, tempHome } from "../helpers/home.ts";
import { openSse, type SseMessage } from "../helpers/sse.ts";

type Json = Record<string, unknown>;
const errorOf = (body: unknown) => (body as { error: { code: string; details: Json } }).error;
const agentScript = new URL("../fixtures/stream_json_agent.ts", import.meta.url).pathname;

function agentConfig(extra: Json = {}): Json {
  return {
    harnesses: {
      agent: { command: [Deno.execPath(), "run", "-A", agentScript], protocol: "claude" },
      "agent-dies": {
        command: [Deno.execPath(), "run", "-A", agentScript, "--exit-before-init"],
        protocol: "claude",
      },
    },
    ...extra,
  };
}

async function withConversation(
  config: Json,
  fn: (t: TestDaemon, project: string) => Promise<void>,
): Promise<void> {
  await using t = await startTestDaemon({ configJson: config });
  const project = await Deno.realPath(await tempHome());
  try {
    await fn(t, project);
  } finally {
    await removeTree(project);
  }
}

async function launch(t: TestDaemon, project: string, body: Json = {}): Promise<string> {
  const response = await t.client.post<Json>("/sessions", {
    projectRoot: project,
    harness: "agent",
    prompt: "hello",
    ...body,
  });
  assert.equal(response.status, 201, JSON.stringify(response.body));
  return response.body.id as string;
}

/** Waits until the session has `count` events of `kind` (long-polling the filtered read). */
async function waitForKind(
  t: TestDaemon,
  sessionId: string,
  kind: string,
  count: number,
): Promise<Json[]> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const page = await t.client.get<{ events: Json[] }>(
      `/sessions/${sessionId}/events?kinds=${kind}`,
    );
    if (page.body.events.length >= count) {
      return page.body.events.map((event) => JSON.parse(event.payload_json as string));
    }
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${count} ${kind}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

Deno.test("a protocol session holds a two-turn conversation and closes completed (D16, D17)", async () => {
  await withConversation(agentConfig(), async (t, project) => {
    const id = await launch(t, project);
    await waitForKind(t, id, "agent.turn", 1);
    const input = await t.client.post<Json>(`/sessions/${id}/input`, { data: "second" });
    assert.deepEqual(input.body, { ok: true, accepted: true, queued: false });
    await waitForKind(t, id, "agent.turn", 2);

    const record = (await t.client.get<Json>(`/sessions/${id}`)).body;
    assert.equal(record.protocol, "claude");
    assert.equal(record.activity, "idle");
    assert.equal(record.agent_session_id, "fixture-session-1");
    assert.equal(record.turns, 2);
    assert.deepEqual(record.usage, {
      inputTokens: 24, // 10 + 2 cache reads per turn: cached input counts as input (D22).
      outputTokens: 10,
      cachedInputTokens: 4,
      costUsd: 0.02,
    });

    const conversation = await t.client.get<{ events: Json[] }>(
      `/sessions/${id}/events?kinds=agent.message,agent.turn`,
    );
    const typed = conversation.body.events.map((event) => [
      event.kind,
      JSON.parse(event.payload_json as string),
    ]);
    assert.deepEqual(typed.map(([kind, payload]) => [kind, payload.role ?? payload.status]), [
      ["agent.message", "user"],
      ["agent.message", "assistant"],
      ["agent.turn", "completed"],
      ["agent.message", "user"],
      ["agent.message", "assistant"],
      ["agent.turn", "completed"],
    ]);
    assert.equal(typed[1][1].text, "echo: hello");
    assert.equal(typed[4][1].text, "echo: second");
    const lastTurn = typed[5][1];
    assert.equal(lastTurn.turn, 2);
    assert.equal(lastTurn.result, "echo: second");
    assert.deepEqual(lastTurn.usage, {
      inputTokens: 12,
      outputTokens: 5,
      cachedInputTokens: 2,
      costUsd: 0.01,
    });

    assert.deepEqual((await t.client.post<Json>(`/sessions/${id}/close`, {})).body, {
      ok: true,
      accepted: true,
    });
    const ended = await waitForEnd(t.client, id);
    assert.equal(ended.status, "completed");
    assert.equal(ended.activity, null);

    // Raw and typed events share one gap-free seq space; started comes first.
    const events = await allEvents(t.client, id);
    assert.deepEqual(events.map((e) => e.seq), events.map((_, i) => i + 1));
    const started = events.find((e) => e.kind === "agent.started")!;
    assert.deepEqual(started.payload, {
      protocol: "claude",
      agentSessionId: "fixture-session-1",
      model: "fixture-model",
      agentVersion: null,
    });
    assert.ok(events.some((e) => e.kind === "input"), "what svc wrote is recorded");
    assert.ok(events.some((e) => e.kind === "output"), "what the agent wrote is recorded");
    assert.equal(events.at(-1)!.kind, "session.ended");
  });
});

Deno.test("input while the agent works is queued and delivered in order (D16)", async () => {
  await withConversation(agentConfig(), async (t, project) => {
    const id = await launch(t, project, { prompt: "hang" });
    await waitForKind(t, id, "agent.message", 1);
    const first = await t.client.post<Json>(`/sessions/${id}/input`, { data: "one" });
    const second = await t.client.post<Json>(`/sessions/${id}/input`, { data: "two" });
    assert.equal(first.body.queued, true);
    assert.equal(second.body.queued, true);
    assert.equal((await t.client.get<Json>(`/sessions/${id}`)).body.activity, "working");

    const interrupted = await t.client.post<Json>(`/sessions/${id}/interrupt`, {});
    assert.equal(interrupted.status, 200);
    const turns = await waitForKind(t, id, "agent.turn", 3);
    assert.deepEqual(turns.map((turn) => [turn.turn, turn.status]), [
      [1, "interrupted"],
      [2, "completed"],
      [3, "completed"],
    ]);
    assert.equal(turns[0].reason, "interrupted");
    const users = (await waitForKind(t, id, "agent.message", 5))
      .filter((message) => message.role === "user").map((message) => message.text);
    assert.deepEqual(users, ["hang", "one", "two"]);
    assert.equal((await t.client.get<Json>(`/sessions/${id}`)).body.turns, 2);
  });
});

Deno.test("a turn with no answer is interrupted after turnTimeoutMinutes (D16)", async () => {
  await withConversation(agentConfig({ turnTimeoutMinutes: 0.005 }), async (t, project) => {
    const id = await launch(t, project, { prompt: "hang" });
    const [turn] = await waitForKind(t, id, "agent.turn", 1);
    assert.equal(turn.status, "interrupted");
    assert.equal(turn.reason, "timeout");
    assert.equal((await t.client.get<Json>(`/sessions/${id}`)).body.status, "running");
  });
});

Deno.test("a one-shot session closes after its first turn; a failed turn fails it (D16)", async () => {
  await withConversation(agentConfig(), async (t, project) => {
    const ok = await launch(t, project, { oneShot: true });
    assert.equal((await waitForEnd(t.client, ok)).status, "completed");
    const refused = await launch(t, project, { oneShot: true, prompt: "hang" });
    const input = await t.client.post<Json>(`/sessions/${refused}/input`, { data: "more" });
    assert.equal(input.status, 409);
    assert.equal(errorOf(input.body).code, "session_input_closed");
    await t.client.post(`/sessions/${refused}/kill`, {});
    await waitForEnd(t.client, refused);

    const failing = await launch(t, project, { oneShot: true, prompt: "fail" });
    const ended = await waitForEnd(t.client, failing);
    assert.equal(ended.status, "failed");
    assert.equal(ended.exit_code, 0);
    const events = await allEvents(t.client, failing);
    assert.match(events.at(-1)!.payload.error as string, /turn ended failed/);
  });
});

Deno.test("an idle conversation is closed after idleTimeoutMinutes (D16)", async () => {
  await withConversation(agentConfig({ idleTimeoutMinutes: 0.005 }), async (t, project) => {
    const id = await launch(t, project);
    const ended = await waitForEnd(t.client, id);
    assert.equal(ended.status, "completed");
    assert.equal(ended.turns, 1);
  });
});

Deno.test("an agent that exits before its handshake fails the session with agent.error (D16)", async () => {
  await withConversation(agentConfig(), async (t, project) => {
    const id = await launch(t, project, { harness: "agent-dies" } as Json);
    const ended = await waitForEnd(t.client, id);
    assert.equal(ended.status, "failed");
    const events = await allEvents(t.client, id);
    const error = events.find((e) => e.kind === "agent.error");
    assert.match(error?.payload.message as string, /before its protocol handshake/);
  });
});

Deno.test("permission requests are denied by policy and recorded (D17, D18)", async () => {
  await withConversation(agentConfig(), async (t, project) => {
    const id = await launch(t, project, { prompt: "ask Bash touch x", approvals: "deny" });
    const [turn] = await waitForKind(t, id, "agent.turn", 1);
    assert.equal(turn.status, "completed");
    assert.match(turn.result as string, /^denied: /);
    const [request] = await waitForKind(t, id, "agent.permission", 1);
    assert.deepEqual(request, {
      requestId: "req_1",
      tool: "Bash",
      summary: "Bash: touch x",
      options: [
        { id: "allow", kind: "allow_once", label: "Allow" },
        { id: "deny", kind: "reject_once", label: "Deny" },
      ],
      command: "touch x",
    });
    const [resolved] = await waitForKind(t, id, "agent.permission.resolved", 1);
    assert.deepEqual(resolved, { requestId: "req_1", decision: "deny", by: "policy" });
    const tools = await waitForKind(t, id, "agent.tool", 2);
    assert.deepEqual(tools.map((tool) => tool.status), ["started", "declined"]);
  });
});

Deno.test("typed payloads are redacted like output (D9, D17)", async () => {
  await withConversation(agentConfig(), async (t, project) => {
    const secret = "sk-proj-" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0";
    const id = await launch(t, project, { prompt: `remember ${secret}` });
    await waitForKind(t, id, "agent.turn", 1);
    const page = await t.client.get<Json>(`/sessions/${id}/events`);
    const text = JSON.stringify(page.body);
    assert.ok(!text.includes(secret), "the key never reaches the log");
    assert.match(text, /REDACTED/);
  });
});

Deno.test("interrupt and close answer 409 on ended sessions and 404 on unknown ones (D16)", async () => {
  await withConversation(agentConfig(), async (t, project) => {
    const id = await launch(t, project, { oneShot: true });
    await waitForEnd(t.client, id);
    for (const route of ["interrupt", "close"]) {
      const ended = await t.client.post<Json>(`/sessions/${id}/${route}`, {});
      assert.equal(ended.status, 409);
      assert.equal(errorOf(ended.body).code, "session_not_live");
      const unknown = await t.client.post<Json>(`/sessions/ses_missing/${route}`, {});
      assert.equal(unknown.status, 404);
      const badBody = await t.client.post<Json>(`/sessions/${id}/${route}`, { force: true });
      assert.equal(badBody.status, 400);
    }
  });
});

Deno.test("kinds filters event reads and pages without stalling (D17)", async () => {
  await withConversation(agentConfig(), async (t, project) => {
    const id = await launch(t, project, { oneShot: true });
    await waitForEnd(t.client, id);
    const all = await allEvents(t.client, id);
    const first = await t.client.get<Json>(`/events?sessionId=${id}&kinds=agent.turn&limit=1`);
    const events = first.body.events as Json[];
    assert.equal(events.length, 1);
    const turnSeq = all.find((e) => e.kind === "agent.turn")!.seq;
    assert.deepEqual(first.body.nextCursor, { afterSeq: turnSeq });
    const rest = await t.client.get<Json>(
      `/events?sessionId=${id}&kinds=agent.turn&afterSeq=${turnSeq}`,
    );
    assert.deepEqual(rest.body.events, []);
    assert.deepEqual(rest.body.nextCursor, { afterSeq: all.length }, "the cursor moves on");
    for (const bad of ["", "a,,b", "Agent.Turn", "a b"]) {
      const response = await t.client.get<Json>(
        `/events?sessionId=${id}&kinds=${encodeURIComponent(bad)}`,
      );
      assert.equal(response.status, 400, bad);
      assert.equal(errorOf(response.body).details.field, "kinds");
    }
  });
});

Deno.test("a raw session's close ends its input and interrupt sends SIGINT (D16)", async () => {
  const script = new URL("../fixtures/harness.ts", import.meta.url).pathname;
  const config = {
    harnesses: {
      echo: { command: [Deno.execPath(), "run", "-A", script, "echo"], prompt: "none" },
    },
  };
  await withConversation(config, async (t, project) => {
    const response = await t.client.post<Json>("/sessions", {
      projectRoot: project,
      harness: "echo",
      prompt: "x",
    });
    const id = response.body.id as string;
    assert.equal(response.body.protocol, "raw");
    assert.equal(response.body.usage, null);
    await t.client.post(`/sessions/${id}/input`, { data: "line\n" });
    await t.client.post(`/sessions/${id}/close`, {});
    const ended = await waitForEnd(t.client, id);
    assert.equal(ended.status, "completed");
    const output = (await allEvents(t.client, id)).filter((e) => e.kind === "output");
    assert.match(output.map((e) => e.payload.data).join(""), /got: line/);
  });
});

/** Reads a stream's messages until `stop` matches one (included). */
async function readUntil(
  next: () => Promise<SseMessage | null>,
  stop: (message: SseMessage) => boolean,
): Promise<SseMessage[]> {
  const messages: SseMessage[] = [];
  for (;;) {
    const message = await next();
    assert.ok(message, "the stream ended early");
    messages.push(message);
    if (stop(message)) return messages;
  }
}

Deno.test("agent.message.delta reaches stream readers live, without id, never stored; agent.notice is (D29)", async () => {
  await withConversation(agentConfig(), async (t, project) => {
    const id = await launch(t, project);
    await waitForKind(t, id, "agent.turn", 1);
    const all = await openSse(t.socket, `/sessions/${id}/events/stream`);
    const filtered = await openSse(
      t.socket,
      `/sessions/${id}/events/stream?kinds=agent.message.delta,agent.turn`,
    );
    const messagesOnly = await openSse(
      t.socket,
      `/sessions/${id}/events/stream?kinds=agent.message,agent.turn`,
    );
    try {
      const secondTurn = (message: SseMessage) =>
        message.event === "agent.turn" &&
        JSON.parse(message.data).payload_json.includes('"turn":2');
      // Readers catch up on the first turn before the second starts: no delta is replayed.
      const before = await readUntil(all.next, (m) => m.event === "agent.turn");
      assert.ok(before.every((message) => message.id !== null));
      await t.client.post(`/sessions/${id}/input`, { data: "stream one two three" });

      const seen = await readUntil(all.next, secondTurn);
      const deltas = seen.filter((message) => message.event === "agent.message.delta");
      assert.deepEqual(deltas.map((message) => message.id), [null, null, null], "no id: line");
      const records = deltas.map((message) => JSON.parse(message.data));
      assert.deepEqual(records.map((record) => JSON.parse(record.payload_json)), [
        // Each word waits for the next (issue 33): it may still be the start of a secret.
        { turn: 2, text: "one " },
        { turn: 2, text: "two " },
        { turn: 2, text: "three" },
      ]);
      assert.ok(records.every((record) => !("seq" in record) && record.session_id === id));
      const order = seen.map((message) => message.event).filter((kind) =>
        kind.startsWith("agent.")
      );
      const finalAt = seen.findIndex((message) =>
        message.event === "agent.message" &&
        JSON.parse(message.data).payload_json.includes('"role":"assistant"')
      );
      const lastDeltaAt = seen.findLastIndex((message) => message.event === "agent.message.delta");
      assert.ok(lastDeltaAt < finalAt, `deltas come before the final message: ${order.join(" ")}`);
      const noticeAt = seen.findIndex((message) => message.event === "agent.notice");
      assert.ok(noticeAt >= 0 && noticeAt < seen.indexOf(deltas[0]));
      assert.ok(
        seen.filter((m) => m.id !== null).every((m, i, durable) =>
          i === 0 || Number(m.id) === Number(durable[i - 1].id) + 1
        ),
        "durable events are all there, in seq order",
      );

      const onlyDeltas = await readUntil(filtered.next, secondTurn);
      assert.deepEqual(
        onlyDeltas.map((message) => message.event),
        [
          "agent.turn",
          "agent.message.delta",
          "agent.message.delta",
          "agent.message.delta",
          "agent.turn",
        ],
      );
      const withoutDeltas = await readUntil(messagesOnly.next, secondTurn);
      assert.ok(!withoutDeltas.some((message) => message.event === "agent.message.delta"));
    } finally {
      await Promise.all([all.close(), filtered.close(), messagesOnly.close()]);
    }

    const log = await allEvents(t.client, id);
    assert.ok(!log.some((event) => event.kind === "agent.message.delta"), "never in the log");
    const [notice] = await waitForKind(t, id, "agent.notice", 1);
    assert.deepEqual(notice, {
      level: "warning",
      message: "529 overloaded, next try in 0.5 s",
      attempt: 1,
      maxAttempts: 10,
    });
    const later = await openSse(t.socket, `/sessions/${id}/events/stream`);
    try {
      await t.client.post(`/sessions/${id}/close`, {});
      const replay = await readUntil(later.next, (message) => message.event === "end");
      assert.ok(!replay.some((message) => message.id === null && message.event !== "end"));
    } finally {
      await later.close();
    }
  });
});
