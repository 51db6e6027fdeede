/**
 * Issue 38 item 9: one meaning per key across the views of `svc ui`. `n`
 * denies wherever a request is offered, `!` jumps to the next session that
 * needs you, `j`/`k` and `g` scroll the session view, `i` on an ended
 * session types a turn that resumes it, and quitting with live sessions asks.
 */
import assert from "node:assert/strict";
import { KEYMAP } from "../../src/ui/keymap.ts";
import { fleetLists, session } from "./fixtures.ts";
import { KEY, renderApp } from "./render_app.tsx";

function lines(count: number) {
  return Array.from({ length: count }, (_, i) => ({
    kind: "agent.message",
    payload_json: JSON.stringify({ role: "assistant", text: `line ${i}` }),
  }));
}

Deno.test("svc ui: n denies the request in the session view as in the approvals view; ! jumps", async () => {
  const app = renderApp(fleetLists());
  await app.press("3", KEY.enter);
  assert.deepEqual(app.focused, ["ses_01WAITING0000000000000000"]);
  await app.press("n");
  assert.equal(app.calls.at(-1)?.body.decision, "deny");
  assert.deepEqual(app.focused, ["ses_01WAITING0000000000000000"], "n did not jump");
  await app.press("N");
  assert.equal(app.calls.filter((call) => call.body.decision === "deny").length, 1, "N is no key");
  await app.press("!");
  assert.equal(app.focused.at(-1), "ses_01STALLED00000000000000000", "! jumps to the next");
  app.unmount();
});

Deno.test("svc ui: j/k scroll the session view a line; g shows the oldest page whole", async () => {
  const app = renderApp(fleetLists());
  await app.press(KEY.enter);
  app.focus.append(lines(80));
  await app.press("k");
  assert.match(app.frame(), /scrolled back 1 line · G follows live/);
  await app.press("j");
  assert.match(app.frame(), /following live/);
  await app.press("g");
  const frame = app.frame();
  assert.match(frame, /line 0\n/);
  const shown = frame.split("\n").filter((row) => /^agent › line \d+$/.test(row));
  assert.ok(shown.length >= 10, `a page from line 0, not one line:\n${frame}`);
  assert.match(shown.at(-1) ?? "", new RegExp(`line ${shown.length - 1}$`));
  app.unmount();
});

Deno.test("svc ui: i on an ended session types a turn that resumes it; the words are never keys", async () => {
  const lists = fleetLists();
  lists.sessions = [
    session({ id: "ses_01DONE0000000000000000000", status: "completed", activity: null }),
  ];
  lists.approvals = [];
  const app = renderApp(lists, {
    answer: (call) =>
      call.path.endsWith("/resume")
        ? { status: 200, body: { id: "ses_01DONE0000000000000000000" } }
        : { status: 200, body: {} },
  });
  await app.press("a", KEY.enter);
  await app.press("i");
  assert.match(app.frame(), /ended · Enter resumes the conversation and sends this/);
  await app.press("now quit\r");
  assert.deepEqual(app.calls.slice(-2).map((call) => [call.path, call.body]), [
    ["/sessions/ses_01DONE0000000000000000000/resume", {}],
    ["/sessions/ses_01DONE0000000000000000000/input", { data: "now quit" }],
  ]);
  assert.doesNotMatch(app.frame(), /Quit\?/, "no letter of the turn ran as a key");
  app.unmount();
});

Deno.test("svc ui: q asks while sessions are live (they keep running), quits at once when none is", async () => {
  const app = renderApp(fleetLists());
  await app.press("q");
  assert.match(
    app.frame(),
    /4 sessions are live and keep running after svc ui quits\.[^\n]*\n.*Quit\? y quits, n stays/,
  );
  await app.press("n");
  assert.doesNotMatch(app.frame(), /Quit\?/);
  await app.press(KEY.ctrlC);
  assert.match(app.frame(), /Quit\?/, "Ctrl-C outside a session quits the same way");
  await app.press("y");
  const frames = app.frames.length;
  await app.press("j");
  assert.equal(app.frames.length, frames, "after y nothing is drawn");
  app.unmount();

  const idle = fleetLists();
  idle.sessions = idle.sessions.filter((record) => record.status !== "running");
  const quiet = renderApp(idle);
  await quiet.press("q");
  const before = quiet.frames.length;
  await quiet.press("j");
  assert.equal(quiet.frames.length, before, "no live session: q quits");
  quiet.unmount();
});

Deno.test("svc ui ? shows the view's own keys first, then every other key by view, uncut (issue 38 item 8)", async () => {
  const app = renderApp(fleetLists());
  await app.press("3", KEY.enter, "?");
  const pages = [app.frame()];
  assert.match(pages[0], /Keys · Session/);
  const firstEntry = pages[0].split("\n").find((row) => /│ (y|i|x) /.test(row)) ?? "";
  assert.match(firstEntry, /│ [yixKdr] /, "a key of the session view comes first");
  for (let i = 0; i < 10 && /PgDn more/.test(app.frame()); i++) {
    await app.press("\x1b[6~");
    pages.push(app.frame());
  }
  const all = pages.join("\n");
  for (const binding of KEYMAP) {
    assert.ok(all.includes(binding.help), `"${binding.help}" in\n${all}`);
  }
  for (const view of ["Fleet", "Approvals", "Routines", "Inbox", "New"]) {
    assert.match(all, new RegExp(`${view} {3,}|${view} +│`), `the keys of ${view} under its name`);
  }
  assert.match(all, /↑\/k +up a row or a line/);
  assert.doesNotMatch(all, /k\/↑|↑\/k\/k|…/, "one label per key, no entry cut");
  await app.press(KEY.escape);
  assert.doesNotMatch(app.frame(), /Keys ·/);
  app.unmount();
});
