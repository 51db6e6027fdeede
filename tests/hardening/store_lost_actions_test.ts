/**
 * Issue 28 item 14: with `svc.db` deleted under the running daemon (D24),
 * read-only actions answer like GET routes (from what can still be read) and
 * only the actions that would write answer 503 `store_unavailable`.
 */
import assert from "node:assert/strict";
import { fixtureHarnesses, startTestDaemon } from "../helpers/daemon.ts";
import { routineDefinition } from "../helpers/routine.ts";

// deno-lint-ignore no-explicit-any
type Json = Record<string, any>;

Deno.test("a lost store: read-only actions answer like GETs, mutating actions 503 (D24)", async (t) => {
  await using d = await startTestDaemon({
    scheduler: false,
    configJson: { harnesses: fixtureHarnesses() },
  });
  const act = (body: Json) => d.client.post<Json>("/actions", body);
  const created = await act({
    action: "svc.automations.create",
    definition: routineDefinition("kept"),
  });
  assert.equal(created.status, 200);
  await Deno.remove(`${d.home}/svc.db`);
  await new Promise((resolve) => setTimeout(resolve, 300)); // The state is looked at every 250 ms.
  assert.equal((await d.client.get<Json>("/health")).body.store, "lost");

  await t.step("read-only actions answer from what can still be read", async () => {
    const reads: Json[] = [
      { action: "svc.automations.list" },
      { action: "svc.automations.get", id: "kept" },
      { action: "svc.automations.runs", id: "kept" },
      { action: "svc.automations.health", id: "kept" },
      { action: "svc.automations.worktrees" },
      { action: "svc.automations.inbox" },
      { action: "svc.sessions.approvals" },
      { action: "svc.capabilities.refresh" },
    ];
    for (const body of reads) {
      const response = await act(body);
      assert.equal(response.status, 200, `${body.action}: ${JSON.stringify(response.body)}`);
      assert.equal(response.body.ok, true);
    }
    const list = await act({ action: "svc.automations.list" });
    assert.deepEqual(list.body.result.routines.map((routine: Json) => routine.id), ["kept"]);
    // A read fails as a GET would: an unknown run is 404, not 503.
    const result = await act({ action: "svc.automations.result", runId: "run_unknown" });
    assert.equal(result.status, 404);
    assert.equal(result.body.error.code, "run_not_found");
  });

  await t.step("actions that would write answer 503 store_unavailable", async () => {
    const writes: Json[] = [
      { action: "svc.automations.create", definition: routineDefinition("new") },
      { action: "svc.automations.update", definition: routineDefinition("kept") },
      { action: "svc.automations.delete", id: "kept" },
      { action: "svc.automations.pause", id: "kept" },
      { action: "svc.automations.activate", id: "kept" },
      { action: "svc.automations.tick" },
      { action: "svc.automations.run", id: "kept" },
      { action: "svc.automations.import" },
      { action: "svc.automations.prune" },
      { action: "svc.automations.result", runId: "run_unknown", markRead: true },
      { action: "svc.sessions.approve", sessionId: "ses_x", requestId: "r", decision: "allow" },
    ];
    for (const body of writes) {
      const response = await act(body);
      assert.equal(response.status, 503, `${body.action}: ${JSON.stringify(response.body)}`);
      assert.equal(response.body.error.code, "store_unavailable");
      assert.equal(response.body.ok, false);
      assert.equal(response.body.status, "rejected");
    }
    // Nothing was written: the routine is still there, unchanged, and "new" was not created.
    const list = await act({ action: "svc.automations.list" });
    assert.deepEqual(list.body.result.routines.map((routine: Json) => routine.id), ["kept"]);
  });

  await t.step("validation still comes first: an unknown action is 400", async () => {
    const response = await act({ action: "svc.nothing" });
    assert.equal(response.status, 400);
  });
});
