/**
 * Limit detection (D33) on what the pinned CLIs emitted when the fake
 * provider answered 429 / usage-limit errors in each provider's shape
 * (tests/fixtures/agents/<cli>/limit_*.jsonl, from the turn-4 recordings in
 * shared/spec/samples/limits): the first turn fails on the limit, the second
 * (the provider answering again) completes without one.
 */
import assert from "node:assert/strict";
import { ADAPTERS } from "../../src/agents/adapters.ts";
import type { AgentProtocolId } from "../../src/agents/protocol.ts";
import type { TurnLimit } from "../../src/agents/limits.ts";
import { loadTranscript, replayTranscript, stepsOf } from "./transcript.ts";

async function turnEnds(cli: string, protocol: AgentProtocolId, scenario: string) {
  const lines = await loadTranscript(cli, scenario);
  if (protocol !== "claude") {
    return stepsOf(replayTranscript(lines, ADAPTERS[protocol]).steps, "turn_end");
  }
  // Claude's turns are stdin lines the replay leaves alone; its output alone ends them.
  const adapter = ADAPTERS.claude({ cwd: "/", model: null });
  const steps = lines.filter((entry) => entry.dir === "out").flatMap((entry) =>
    adapter.onLine(entry.line)
  );
  return stepsOf(steps, "turn_end");
}

/** CLI, protocol, recording, and the limit expected: reason, reset (ms), stated delay (ms). */
const cases: Array<
  [string, AgentProtocolId, string, TurnLimit["reason"], number | null, number | null]
> = [
  // Subscription: rate_limit_event "rejected" with resetsAt (anthropic-ratelimit-unified-reset).
  ["claude", "claude", "limit_oauth_usage", "usage_limit", 1795858925_000, null],
  // An API key: 10 api_retry notices, then the 429 result; no reset time.
  ["claude", "claude", "limit_apikey_rate", "rate_limit", null, null],
  // usage_limit_reached: account/rateLimits/updated (x-codex-primary-reset-at), usageLimitExceeded.
  ["codex", "codex-app-server", "limit_usage", "usage_limit", 1795858760_000, null],
  // rate_limit_exceeded: 5 retries, then responseTooManyFailedAttempts 429.
  ["codex", "codex-app-server", "limit_rate", "rate_limit", null, null],
  // Silent retries, then JSON-RPC 429 with RetryInfo's delay in the text; a daily quota at once.
  ["gemini", "acp", "limit_rate", "rate_limit", null, 2_500],
  ["gemini", "acp", "limit_usage", "usage_limit", null, null],
  // Silent retries honouring retry-after, then -32603 APIError with the provider's message.
  ["opencode", "acp", "limit_rate", "rate_limit", null, 20_000],
  ["opencode", "acp", "limit_usage", "usage_limit", null, null],
];

for (const [cli, protocol, scenario, reason, resetsAt, retryAfterMs] of cases) {
  Deno.test(`${cli} ${scenario}: the failed turn names its limit, the next one none (D33)`, async () => {
    const [limited, after] = await turnEnds(cli, protocol, scenario);
    assert.equal(limited.status, "failed");
    assert.deepEqual(limited.limit, { reason, resetsAt, retryAfterMs });
    assert.equal(after.status, "completed");
    assert.equal(after.limit, undefined);
  });
}

Deno.test("the recorded turns without a limit name none (D33)", async () => {
  for (const [cli, protocol] of [["claude", "claude"], ["codex", "codex-app-server"]] as const) {
    for (const end of await turnEnds(cli, protocol, "two_turns")) {
      assert.equal(end.limit, undefined);
    }
  }
});
