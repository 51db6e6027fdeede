import assert from "node:assert/strict";
import { BUILTIN_HARNESSES } from "../../src/sessions/harnesses.ts";
import { loadWaitMs, loadWaitNotice } from "../../src/sessions/load_minute.ts";
import type { SessionRow } from "../../src/store/sessions_store.ts";

const harness = (id: string) => BUILTIN_HARNESSES.find((spec) => spec.id === id)!;
const endedAt = (iso: string | null) => ({ ended_at: iso }) as SessionRow;
const at = (iso: string) => Date.parse(iso);

Deno.test("loadWaitMs() waits for the minute after the end, for the built-in gemini only", async (t) => {
  const row = endedAt("2026-03-02T12:00:10.000Z");
  await t.step("same minute: until a second past the boundary", () => {
    assert.equal(loadWaitMs(harness("gemini"), row, at("2026-03-02T12:00:10.000Z")), 51_000);
    assert.equal(loadWaitMs(harness("gemini"), row, at("2026-03-02T12:00:59.999Z")), 1_001);
  });
  await t.step("a later minute, another agent, or no end: none", () => {
    assert.equal(loadWaitMs(harness("gemini"), row, at("2026-03-02T12:01:00.000Z")), 0);
    assert.equal(loadWaitMs(harness("opencode"), row, at("2026-03-02T12:00:10.000Z")), 0);
    assert.equal(loadWaitMs(harness("claude"), row, at("2026-03-02T12:00:10.000Z")), 0);
    assert.equal(loadWaitMs(harness("gemini"), endedAt(null), at("2026-03-02T12:00:10Z")), 0);
    const configured = { ...harness("gemini"), builtin: false };
    assert.equal(loadWaitMs(configured, row, at("2026-03-02T12:00:10.000Z")), 0);
  });
  await t.step("a clock before the end: longer than a minute", () => {
    assert.ok(loadWaitMs(harness("gemini"), row, at("2026-03-02T11:00:00.000Z")) > 61_000);
  });
});

Deno.test("loadWaitNotice() names the wait and the UTC time it ends", () => {
  assert.equal(
    loadWaitNotice(51_000, at("2026-03-02T12:00:10.000Z")),
    "Waiting 51 s, until 12:01:01 UTC, before Gemini CLI loads the conversation: " +
      "a load in the minute its recording started would lose it",
  );
});
