/**
 * Issue 38 item 12: what `svc ui` says goes when it is answered. `m` marks
 * the inbox row read and the tab's count drops; a footer message and the
 * restart banner go at the next key.
 */
import assert from "node:assert/strict";
import { fleetLists } from "./fixtures.ts";
import { KEY, renderApp, settle } from "./render_app.tsx";

Deno.test("svc ui inbox: m marks the row read and the tab's count drops (issue 38 item 12)", async () => {
  const app = renderApp(fleetLists());
  await app.press("6");
  assert.match(app.frame(), /6 Inbox\(1\)/);
  assert.match(app.frame(), /•/);
  await app.press("m");
  assert.match(app.frame(), /Marked read/);
  assert.doesNotMatch(app.frame(), /Inbox\(1\)/);
  assert.doesNotMatch(app.frame(), /•/);
  app.unmount();
});

Deno.test("svc ui: the footer's message and the restart banner go at the next key (issue 38 item 12)", async () => {
  const lists = fleetLists();
  const app = renderApp(lists);
  await app.press(KEY.enter, "r");
  assert.match(app.frame(), /Only an ended conversation resumes/);
  await app.press("j");
  assert.doesNotMatch(app.frame(), /Only an ended conversation resumes/);
  assert.match(app.frame(), /\? keys · q quits/);

  app.store.synced({ ...lists, daemon: { ...lists.daemon, instanceId: "inst_2" } });
  await settle();
  assert.match(app.frame(), /The daemon restarted/);
  await app.press("k");
  assert.doesNotMatch(app.frame(), /The daemon restarted/);
  // A daemon that is away stays announced: a key does not hide that.
  app.store.disconnected("No daemon answers; retrying");
  await settle();
  await app.press("k");
  assert.match(app.frame(), /No daemon answers/);
  app.unmount();
});
