/** svc.automations.list is paged and bounded, and carries the routines once (issue 13). */
import assert from "node:assert/strict";
import { startTestDaemon } from "../helpers/daemon.ts";
import { allRoutines } from "../../src/cli/all_routines.ts";
import { routineDefinition } from "../helpers/routine.ts";

// deno-lint-ignore no-explicit-any
type Json = Record<string, any>;

function definition(id: string, prompt = "p"): Json {
  return routineDefinition(id, { runtime: "claude", prompt, cwd: "/tmp" });
}

Deno.test("svc.automations.list pages by id with a cursor; the payload only counts", async () => {
  await using t = await startTestDaemon({ scheduler: false });
  for (const id of ["e", "a", "d", "b", "c"]) {
    await t.client.post("/actions", {
      action: "svc.automations.create",
      definition: definition(id),
    });
  }
  const seen: string[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await t.client.post<Json>("/actions", {
      action: "svc.automations.list",
      limit: 2,
      ...(cursor ? { cursor } : {}),
    });
    assert.equal(page.status, 200);
    assert.deepEqual(Object.keys(page.body.event.payload).sort(), ["count", "nextCursor"]);
    assert.equal(page.body.event.payload.count, page.body.result.routines.length);
    seen.push(...page.body.result.routines.map((r: Json) => r.id));
    cursor = page.body.result.nextCursor ?? undefined;
    if (!cursor) break;
  }
  assert.deepEqual(seen, ["a", "b", "c", "d", "e"]);
  const bad = await t.client.post<Json>("/actions", { action: "svc.automations.list", limit: 0 });
  assert.equal(bad.status, 400);
});

Deno.test("a page of large routines stays under the 4 MiB response bound", async () => {
  await using t = await startTestDaemon({ scheduler: false });
  const prompt = "é".repeat(120 * 1024); // 240 KiB of UTF-8 each.
  for (let i = 0; i < 24; i++) {
    const created = await t.client.post<Json>("/actions", {
      action: "svc.automations.create",
      definition: definition(`big-${String(i).padStart(2, "0")}`, prompt),
    });
    assert.equal(created.status, 200);
  }
  const first = await t.client.post<Json>("/actions", {
    action: "svc.automations.list",
    limit: 1000,
  });
  const bytes = new TextEncoder().encode(JSON.stringify(first.body)).length;
  assert.ok(bytes < 4 * 1024 * 1024, `${bytes} bytes`);
  assert.ok(first.body.result.routines.length < 24);
  assert.equal(typeof first.body.result.nextCursor, "string");
  const all = await allRoutines(t.client);
  assert.equal(all.ok, true);
  assert.equal(all.body.result.routines.length, 24);
});
