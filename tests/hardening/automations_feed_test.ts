/**
 * Issue 28 item 13: `GET /stream`'s `automations.changed` names the routines
 * an action changed (D19: "a small JSON object with ids"), not only the action.
 */
import assert from "node:assert/strict";
import { fixtureHarnesses, startTestDaemon } from "../helpers/daemon.ts";
import { removeTree, tempHome } from "../helpers/home.ts";
import { routineDefinition } from "../helpers/routine.ts";
import { openSse } from "../helpers/sse.ts";

// deno-lint-ignore no-explicit-any
type Json = Record<string, any>;

Deno.test("automations.changed on GET /stream carries the action and the routine ids (D19)", async () => {
  const codexHome = await tempHome(); // No legacy Codex automations.
  await using t = await startTestDaemon({
    codexHome,
    scheduler: false,
    configJson: { harnesses: fixtureHarnesses() },
  });
  const feed = await openSse(t.socket, "/stream");
  try {
    assert.equal(feed.status, 200);
    const act = async (body: Json) => {
      const response = await t.client.post<Json>("/actions", body);
      assert.equal(response.status, 200, JSON.stringify(response.body));
    };
    await act({ action: "svc.automations.create", definition: routineDefinition(".") });
    await act({ action: "svc.automations.update", definition: routineDefinition(".") });
    // D30: pausing and activating name the routine; a routine already so is not changed.
    await act({ action: "svc.automations.activate", id: "." });
    await act({ action: "svc.automations.activate", id: "." });
    await act({ action: "svc.automations.pause", id: "." });
    // Reads and runs change no routine: no notice.
    await act({ action: "svc.automations.list" });
    await act({ action: "svc.automations.get", id: "." });
    await act({ action: "svc.automations.delete", id: "." });
    await Deno.mkdir(`${t.home}/import`);
    for (const id of ["imported-a", "imported-b"]) {
      await Deno.writeTextFile(
        `${t.home}/import/${id}.json`,
        JSON.stringify(routineDefinition(id)),
      );
    }
    await act({ action: "svc.automations.import" });

    const notices: Json[] = [];
    while (notices.length < 6) {
      const message = await feed.next();
      assert.ok(message, "the feed ended");
      if (message.event === "automations.changed") notices.push(JSON.parse(message.data));
    }
    assert.deepEqual(notices, [
      { action: "svc.automations.create", routineIds: ["."] },
      { action: "svc.automations.update", routineIds: ["."] },
      { action: "svc.automations.activate", routineIds: ["."] },
      { action: "svc.automations.pause", routineIds: ["."] },
      { action: "svc.automations.delete", routineIds: ["."] },
      { action: "svc.automations.import", routineIds: ["imported-a", "imported-b"] },
    ]);
  } finally {
    await feed.close();
    await removeTree(codexHome);
  }
});
