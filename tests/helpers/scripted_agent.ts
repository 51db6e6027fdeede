/**
 * The scripted stream-json agent (tests/fixtures/stream_json_agent.ts) as a
 * configured harness `agent`, and the calls its approval tests make through
 * a test daemon: launch a session, act, wait for events of a kind.
 */
import assert from "node:assert/strict";
import type { TestDaemon } from "./daemon.ts";

type Json = Record<string, unknown>;
// deno-lint-ignore no-explicit-any
type Any = any;

const agentScript = new URL("../fixtures/stream_json_agent.ts", import.meta.url).pathname;

/** config.json with the harness `agent` (claude protocol); `extra` keys added. */
export function agentConfig(extra: Json = {}): Json {
  return {
    harnesses: {
      agent: { command: [Deno.execPath(), "run", "-A", agentScript], protocol: "claude" },
    },
    ...extra,
  };
}

/** `POST /sessions` of `agent` in `project` (it asks to `touch created.txt` unless told); its id. */
export async function launchAgent(t: TestDaemon, project: string, body: Json): Promise<string> {
  const response = await t.client.post<Json>("/sessions", {
    projectRoot: project,
    harness: "agent",
    prompt: "ask Bash touch created.txt",
    ...body,
  });
  assert.equal(response.status, 201, JSON.stringify(response.body));
  return response.body.id as string;
}

/** `POST /actions`: the body with its HTTP status as `http`. */
export async function act(t: TestDaemon, action: string, fields: Json): Promise<Any> {
  const response = await t.client.post<Json>("/actions", { action, ...fields });
  return { ...response.body, http: response.status };
}

/** Payloads of a session's events of `kind`, once there are `count` (20 s at most). */
export async function waitForKind(
  t: TestDaemon,
  id: string,
  kind: string,
  count = 1,
): Promise<Json[]> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const page = await t.client.get<{ events: Json[] }>(`/sessions/${id}/events?kinds=${kind}`);
    if (page.body.events.length >= count) {
      return page.body.events.map((event) => JSON.parse(event.payload_json as string));
    }
    assert.ok(Date.now() < deadline, `no ${kind} in time`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
