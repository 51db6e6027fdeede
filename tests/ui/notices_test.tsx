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

Deno.test("svc ui routines: activating shows the definition as the CLI does (issue 38 item 12)", async () => {
  const facts = { id: "weekly", name: "Weekly cleanup", status: "PAUSED", runtime: "claude" };
  const definition = {
    ...facts,
    prompt: "tidy the repo\x1b[2J",
    cwd: "/home/me/project",
    schedule: { rrule: "FREQ=WEEKLY;BYDAY=MO;BYHOUR=3" },
    isolation: "worktree",
    approvals: "deny",
  };
  const app = renderApp(fleetLists(), {
    answer: (call) =>
      call.body.action === "svc.automations.get"
        ? { status: 200, body: { result: { routine: { ...definition, createdAt: "x" } } } }
        : { status: 200, body: {} },
  });
  await app.press("5", "j", "p");
  const frame = app.frame();
  assert.match(frame, /Activate routine weekly\?/);
  for (
    const line of [
      /prompt: +tidy the repo\^\[\[2J/,
      /cwd: +\/home\/me\/project/,
      /schedule: +\{"rrule":"FREQ=WEEKLY;BYDAY=MO;BYHOUR=3"\}/,
      /isolation: +worktree/,
      /approvals: +deny/,
    ]
  ) {
    assert.match(frame, line);
  }
  assert.doesNotMatch(frame, /createdAt/);
  await app.press("y");
  // D30: the status alone, by id (the definition was only shown).
  assert.deepEqual(app.calls.at(-1)?.body, { action: "svc.automations.activate", id: "weekly" });
  app.unmount();
});
