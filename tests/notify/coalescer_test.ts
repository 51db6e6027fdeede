import assert from "node:assert/strict";
import { COALESCE_MS, Coalescer } from "../../src/notify/coalescer.ts";
import type { NotifyTrigger } from "../../src/notify/content.ts";

function trigger(sessionId: string, event: NotifyTrigger["event"] = "approval.waiting") {
  return {
    event,
    sessionId,
    harness: "claude",
    sessionTitle: null,
    projectRoot: "/p/shop",
    reason: "needs approval: Bash",
    detail: "ls",
    at: 0,
  } satisfies NotifyTrigger;
}

Deno.test("Coalescer sends the first at once, holds the window's others, then one summary", async (t) => {
  await t.step("a lone trigger goes out as itself", () => {
    const coalescer = new Coalescer();
    assert.deepEqual(coalescer.offer([trigger("a")], 0), [{
      kind: "single",
      trigger: trigger("a"),
    }]);
    assert.equal(coalescer.nextDueAt(), null);
  });
  await t.step("triggers due together are one summary", () => {
    const coalescer = new Coalescer();
    const [out] = coalescer.offer([trigger("a"), trigger("b")], 0);
    assert.equal(out.kind, "summary");
  });
  await t.step("the window holds, and closes into one summary that opens the next", () => {
    const coalescer = new Coalescer();
    coalescer.offer([trigger("a")], 0);
    assert.deepEqual(coalescer.offer([trigger("a")], 1_000), []);
    assert.deepEqual(coalescer.offer([trigger("b")], 2_000), []);
    assert.equal(coalescer.nextDueAt(), COALESCE_MS);
    assert.deepEqual(coalescer.due(COALESCE_MS - 1), []);
    const [summary] = coalescer.due(COALESCE_MS);
    assert.equal(summary.kind, "summary");
    assert.equal(summary.kind === "summary" && summary.triggers.length, 2);
    assert.deepEqual(coalescer.offer([trigger("c")], COALESCE_MS + 1), [], "the next window");
    assert.deepEqual(coalescer.due(2 * COALESCE_MS), [{ kind: "single", trigger: trigger("c") }]);
  });
  await t.step("each event has its own window", () => {
    const coalescer = new Coalescer();
    coalescer.offer([trigger("a")], 0);
    assert.equal(coalescer.offer([trigger("a", "session.failed")], 1).length, 1);
  });
});
