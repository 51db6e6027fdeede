/**
 * Issue 38 item 14: `svc ui` says what happened as English does. One turn
 * is `1 turn`, the resume seam is a line, not JSON, and a session svc stop
 * ended is not drawn as a failure.
 */
import assert from "node:assert/strict";
import { fleetLists, session } from "./fixtures.ts";
import { KEY, renderApp, settle } from "./render_app.tsx";

const event = (kind: string, payload: unknown) => ({ kind, payload_json: JSON.stringify(payload) });

Deno.test("svc ui counts one turn and one session in the singular (issue 38 item 14)", async () => {
  const lists = fleetLists();
  lists.sessions = [session({ id: "ses_01ONE0000000000000000000", turns: 1 })];
  const app = renderApp(lists);
  await settle();
  assert.match(app.frame(), /1 session live \(a: show ended\)/);
  await app.press(KEY.enter);
  assert.match(app.frame(), / · 1 turn · title of ses_01ONE/);
  app.unmount();
});

Deno.test("svc ui shows the resume seam and a stop's end as plain lines (issue 38 item 14)", async () => {
  const lists = fleetLists();
  lists.sessions = [session({ id: "ses_01STOP000000000000000000", status: "killed" })];
  const app = renderApp(lists, { color: true });
  await app.press("a", KEY.enter);
  app.focus.append([
    event("session.ended", { status: "killed", exitCode: 143, signal: null }),
    event("session.resumed", { agentSessionId: "agent-1", previousStatus: "killed", resumes: 1 }),
  ]);
  await settle();
  const frame = app.frame();
  assert.match(frame, /· session killed · exit 143 \(SIGTERM\)/);
  assert.match(frame, /· conversation resumed · was killed · resume 1 · agent session agent-1/);
  assert.doesNotMatch(frame, /agentSessionId/);
  // deno-lint-ignore no-control-regex
  assert.doesNotMatch(frame, /\x1b\[31m[^\n]*killed/, "not red");
  app.unmount();
});
