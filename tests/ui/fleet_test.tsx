/**
 * Issue 38 item 11: sessions made in the same second are told apart in
 * every view (the attention and approvals views use the fleet's unique
 * prefixes, not 12 characters), and `/` starts a new filter.
 */
import assert from "node:assert/strict";
import { approval, fleetLists, session } from "./fixtures.ts";
import { KEY, renderApp } from "./render_app.tsx";

/** Three sessions whose ids share their first 13 characters (made in the same second). */
function twins() {
  const lists = fleetLists();
  const ids = ["ses_01M8GJFHA0000000000000000", "ses_01M8GJFHB0000000000000000", "ses_01M8GJFHC0"];
  lists.sessions = ids.map((id) => session({ id, activity: "waiting_approval" }));
  lists.approvals = ids.map((sessionId, i) =>
    approval({ sessionId, requestId: `req_${i}`, summary: `Bash: step ${i}` })
  );
  return lists;
}

Deno.test("svc ui attention and approvals show the fleet's unique id prefixes (issue 38 item 11)", async () => {
  const app = renderApp(twins());
  for (const view of ["1", "2", "3"]) {
    await app.press(view);
    for (const id of ["ses_01M8GJFHA", "ses_01M8GJFHB", "ses_01M8GJFHC"]) {
      assert.ok(app.frame().includes(id), `${id} in view ${view}:\n${app.frame()}`);
    }
  }
  app.unmount();
});

Deno.test("svc ui / starts a new filter; Enter keeps it (issue 38 item 11)", async () => {
  const app = renderApp(fleetLists());
  await app.press("/", "c", "o", "d", "e", "x", KEY.enter);
  assert.match(app.frame(), /filter "codex"/);
  assert.doesNotMatch(app.frame(), /refactor the parser/);
  await app.press("/", "p", "a", "r", "s", KEY.enter);
  assert.match(app.frame(), /filter "pars"/);
  assert.match(app.frame(), /refactor the parser/);
  app.unmount();
});
