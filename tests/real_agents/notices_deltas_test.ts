/**
 * Agent notices and live partial text with the real CLIs (issue 27 items 4
 * and 5; D29): claude's retries of an unreachable provider are `agent.notice`
 * events while the turn still runs, and each built-in that streams its
 * answer sends `agent.message.delta` on the session's stream, without an
 * id, before the final `agent.message`. Run with `deno task test:agents`.
 */
import assert from "node:assert/strict";
import { HARNESSES } from "../../scripts/agents_install.ts";
import { SseParser } from "../../src/client/sse.ts";
import type { SvcClient } from "../../src/client/client.ts";
import { startAgentDaemon } from "./agent_daemon.ts";
import { requireAgent, runAgentTests } from "./agents_gate.ts";

type Json = Record<string, unknown>;
const options = { ignore: !runAgentTests, sanitizeOps: false, sanitizeResources: false };
/** How long a stream read may wait for the agent (a CLI's start on a busy 2-core machine). */
const READ_MS = 90_000;

/** A port nothing listens on: a provider that refuses every connection. */
function closedPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

interface Frame {
  id: string | null;
  event: string;
  record: Json;
}

/** A session's stream after `afterSeq`, read frame by frame (the socket's raw SSE). */
async function openStream(client: SvcClient, sessionId: string, afterSeq: number) {
  const abort = new AbortController();
  const opening = await client.openStream(`/sessions/${sessionId}/events/stream`, {
    headers: { "last-event-id": String(afterSeq) },
    signal: abort.signal,
  });
  assert.ok(opening.ok, JSON.stringify(opening.body));
  const reader = opening.body.pipeThrough(new TextDecoderStream()).getReader();
  const parser = new SseParser();
  const pending: Frame[] = [];
  return {
    /** Frames until `stop` matches one (included); fails after READ_MS. */
    async readUntil(stop: (frame: Frame) => boolean): Promise<Frame[]> {
      const frames: Frame[] = [];
      const deadline = Date.now() + READ_MS;
      for (;;) {
        const frame = pending.shift();
        if (frame !== undefined) {
          frames.push(frame);
          if (stop(frame)) return frames;
          continue;
        }
        let timer: ReturnType<typeof setTimeout> | undefined;
        const timeout = new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`Timed out; read so far: ${frames.map((f) => f.event)}`)),
            Math.max(0, deadline - Date.now()),
          );
        });
        const { done, value } = await Promise.race([reader.read(), timeout]).finally(() =>
          clearTimeout(timer)
        );
        assert.ok(!done, `the stream ended; read: ${frames.map((f) => f.event)}`);
        for (const message of parser.push(value)) {
          const record = message.data === "" ? {} : JSON.parse(message.data);
          pending.push({ id: message.id, event: message.event, record });
        }
      }
    },
    close: async () => {
      abort.abort();
      await reader.cancel().catch(() => {});
    },
  };
}

async function lastSeq(client: SvcClient, sessionId: string): Promise<number> {
  return (await client.get<Json>(`/sessions/${sessionId}`)).body.last_seq as number;
}

Deno.test({
  name: "claude: an unreachable provider's retries are agent.notice events during the turn (D29)",
  ...options,
}, async () => {
  requireAgent("claude");
  await using d = await startAgentDaemon("claude", {
    env: (env) => ({ ...env, ANTHROPIC_BASE_URL: `http://127.0.0.1:${closedPort()}` }),
  });
  const id = await d.launch({ prompt: "hello" });
  const stream = await openStream(d.client, id, 0);
  try {
    const frames = await stream.readUntil((frame) =>
      frame.event === "agent.notice" || frame.event === "agent.turn"
    );
    const notice = frames.at(-1)!;
    assert.equal(notice.event, "agent.notice", "a notice comes before the turn ends");
    assert.notEqual(notice.id, null, "notices are durable events");
    const payload = JSON.parse(notice.record.payload_json as string);
    assert.equal(payload.level, "warning");
    assert.equal(payload.attempt, 1);
    assert.equal(typeof payload.maxAttempts, "number");
    assert.match(payload.message, /^no answer from the API/);
    const record = (await d.client.get<Json>(`/sessions/${id}`)).body;
    assert.equal(record.status, "running");
    assert.equal(record.activity, "working", "the turn is still being retried");
  } finally {
    await stream.close();
  }
  // Claude would retry for minutes: end it now.
  await d.client.post(`/sessions/${id}/kill`, {});
  await d.waitForEnd(id);
  const notices = await d.waitForKind(id, "agent.notice", 1);
  assert.ok(notices.every((notice) => notice.level === "warning"));
});

for (const cli of HARNESSES) {
  Deno.test({
    name: `${cli}: partial text streams as agent.message.delta before the final message (D29)`,
    ...options,
  }, async () => {
    requireAgent(cli);
    await using d = await startAgentDaemon(cli);
    const text = "Streaming answer in several words";
    d.provider.script([{ text: "first" }, { text }]);
    const id = await d.launch({ prompt: "hello" });
    await d.waitForKind(id, "agent.turn", 1);
    // The stream is open (subscribed) before the turn that streams is sent.
    const stream = await openStream(d.client, id, await lastSeq(d.client, id));
    try {
      const input = await d.client.post<Json>(`/sessions/${id}/input`, { data: "again" });
      assert.equal(input.status, 200, JSON.stringify(input.body));
      const frames = await stream.readUntil((frame) => frame.event === "agent.turn");
      const deltas = frames.filter((frame) => frame.event === "agent.message.delta");
      const finalAt = frames.findIndex((frame) =>
        frame.event === "agent.message" &&
        JSON.parse(frame.record.payload_json as string).role === "assistant"
      );
      assert.ok(finalAt >= 0, `an assistant message: ${frames.map((f) => f.event)}`);
      assert.ok(deltas.length >= 2, `several deltas: ${frames.map((f) => f.event)}`);
      assert.ok(deltas.every((frame) => frame.id === null), "deltas have no id");
      assert.ok(
        frames.findLastIndex((frame) => frame.event === "agent.message.delta") < finalAt,
        "every delta comes before the final message",
      );
      const streamed = deltas.map((frame) => JSON.parse(frame.record.payload_json as string).text)
        .join("");
      assert.equal(streamed, text);
      assert.equal(JSON.parse(frames[finalAt].record.payload_json as string).text, text);
    } finally {
      await stream.close();
    }
    const page = await d.client.get<{ events: Json[] }>(`/sessions/${id}/events?limit=1000`);
    assert.ok(!page.body.events.some((event) => event.kind === "agent.message.delta"));
    await d.client.post(`/sessions/${id}/close`, {});
    await d.waitForEnd(id);
  });
}
