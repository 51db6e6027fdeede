/**
 * Issue 38 item 10: land and discard from the session view and its diff, the
 * land checked first (D34: `GET /sessions/{id}/worktree/check`).
 */
import assert from "node:assert/strict";
import { CLEAN_CHECK, fleetLists, session } from "./fixtures.ts";
import { KEY, renderApp } from "./render_app.tsx";

function isolatedLists() {
  const lists = fleetLists();
  lists.sessions = [
    session({
      id: "ses_01TREE00000000000000000000",
      title: "Fix the parser",
      status: "completed",
      activity: null,
      worktree: { path: "/w/tree", branch: "svc/session/x", repository: "/home/me/project" },
    }),
  ];
  lists.approvals = [];
  return lists;
}

const CHECK = { check: CLEAN_CHECK };

Deno.test("svc ui: L in the diff checks the land, then lands as chosen (issue 38 item 10)", async () => {
  const app = renderApp(isolatedLists(), {
    answer: (call) =>
      call.path.endsWith("/worktree/check")
        ? { status: 200, body: CHECK }
        : call.path.includes("/worktree/diff")
        ? { status: 200, body: { diff: { data: "+new\n", nextOffset: null } } }
        : { status: 200, body: {} },
  });
  await app.press("a", KEY.enter, "d");
  assert.match(app.frame(), /L lands · D discards/);
  await app.press("L");
  assert.equal(app.calls.at(-1)?.path, "/sessions/ses_01TREE00000000000000000000/worktree/check");
  assert.match(app.frame(), /it lands cleanly/);
  assert.match(app.frame(), /s squash \(one commit: "Fix the parser"\) · m merge · r rebase/);
  await app.press("m");
  assert.deepEqual(app.calls.at(-1), {
    path: "/sessions/ses_01TREE00000000000000000000/worktree/land",
    body: { mode: "merge" },
  });
  assert.match(app.frame(), /Landed \(merge\)/);
  app.unmount();
});

Deno.test("svc ui: D asks, then discards the worktree; a refusal is a line (issue 38 item 10)", async () => {
  const app = renderApp(isolatedLists(), {
    answer: (call) =>
      call.path.endsWith("/discard")
        ? { status: 409, body: { error: { message: 'Session "x" is still running' } } }
        : { status: 200, body: {} },
  });
  await app.press("a", KEY.enter, "D");
  assert.match(app.frame(), /never landed: discarding loses it for good/);
  await app.press("n");
  assert.equal(app.calls.filter((call) => call.path.endsWith("/discard")).length, 0);
  await app.press("D", "y");
  assert.deepEqual(app.calls.at(-1), {
    path: "/sessions/ses_01TREE00000000000000000000/worktree/discard",
    body: { force: true },
  });
  assert.match(app.frame(), /is still running/);
  app.unmount();
});
