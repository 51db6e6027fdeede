import assert from "node:assert/strict";
import { limitFromMessage, statedDelayMs } from "../../src/agents/limits.ts";

Deno.test("statedDelayMs() reads the delay each agent's message states", () => {
  assert.equal(statedDelayMs("Rate limit reached … Please try again in 20s. Visit …"), 20_000);
  assert.equal(statedDelayMs("Please retry in 2.5s.\nSuggested retry after 2s."), 2_500);
  assert.equal(statedDelayMs("retry after 3 minutes"), 180_000);
  assert.equal(statedDelayMs("Please try again later."), null);
});

Deno.test("limitFromMessage() tells a rate limit from a usage limit, as recorded", async (t) => {
  await t.step("claude: a session limit is a usage limit; 'not your usage limit' is not", () => {
    assert.deepEqual(
      limitFromMessage("You've hit your session limit · resets 9:42am (UTC)", { known: true }),
      { reason: "usage_limit", resetsAt: null, retryAfterMs: null },
    );
    const plain = "API Error: Server is temporarily limiting requests (not your usage limit) · " +
      "This request would exceed your account's rate limit. Please try again later.";
    assert.equal(limitFromMessage(plain, { known: true })?.reason, "rate_limit");
  });
  await t.step(
    "gemini: a per-minute quota with a delay is a rate limit; a daily one is usage",
    () => {
      const minute =
        "You exceeded your current quota, please check your plan and billing details." +
        "\nPlease retry in 2.5s.\nSuggested retry after 2s.";
      assert.deepEqual(limitFromMessage(minute, { known: true }), {
        reason: "rate_limit",
        resetsAt: null,
        retryAfterMs: 2_500,
      });
      const daily = "You have exhausted your daily quota on this model.";
      assert.equal(limitFromMessage(daily, { known: true })?.reason, "usage_limit");
    },
  );
  await t.step("opencode: only a message about a limit is one", () => {
    const rate = "Internal error: Rate limit reached for fake-model in organization org-fake on " +
      "requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in 20s.";
    assert.equal(limitFromMessage(rate)?.retryAfterMs, 20_000);
    assert.equal(limitFromMessage("Internal error: model not found"), null);
  });
  await t.step("a reset time the agent gave is kept", () => {
    assert.equal(limitFromMessage("usage limit", { resetsAt: 5 })?.resetsAt, 5);
  });
});
