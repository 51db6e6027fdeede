/**
 * `svc ui`'s views and keys (D25), rendered with ink-testing-library from
 * fixture data: each view shows what it must, and each key causes the
 * right client call (or none) with the right outcome on screen.
 */
import assert from "node:assert/strict";
import stringWidth from "string-width";
import { KEYMAP } from "../../src/ui/keymap.ts";
import { approval, fleetLists, NOW, session } from "./fixtures.ts";
import { CHUNK_CHARS } from "../../src/ui/transcript_window.ts";
import { KEY, renderApp, settle } from "./render_app.tsx";

Deno.test("svc ui opens on the fleet: live sessions first, each state, the header's facts", async () => {
  const app = renderApp(fleetLists());
  await settle();
  const frame = app.frame();
  assert.match(
    frame,
    /svc 0\.1\.0 · up 1h · 4 live · 1 pending · next nightly in 1h · today \$0\.4213/,
  );
  assert.match(
    frame,
    /1 Fleet 2 Attention\(2\) 3 Approvals\(1\) 4 Session 5 Routines 6 Inbox\(1\) 7 Land c New/,
  );
  for (const state of ["● working", "◆ waiting", "○ idle", "▲ stalled"]) {
    assert.ok(frame.includes(state), `${state} in\n${frame}`);
  }
  assert.doesNotMatch(frame, /failed|completed/, "ended sessions are hidden until a");
  await app.press("a");
  assert.match(app.frame(), /✗ failed/);
  assert.match(app.frame(), /✓ completed/);
  // Live first, then the newest event: the failed one (1 min ago) before the completed one.
  const order = ["WORKING", "WAITING", "IDLE", "STALLED", "FAILED", "DONE"].map((id) =>
    app.frame().indexOf(`ses_01${id}`)
  );
  assert.deepEqual([...order].sort((a, b) => a - b), order, app.frame());
  app.unmount();
});

Deno.test("svc ui filters the fleet with /", async () => {
  const app = renderApp(fleetLists());
  await app.press("/", "p", "a", "r", "s", KEY.enter);
  assert.match(app.frame(), /refactor the parser/);
  assert.doesNotMatch(app.frame(), /ses_01IDLE/);
  await app.press("/", KEY.escape);
  assert.match(app.frame(), /ses_01IDLE/);
  app.unmount();
});

Deno.test("svc ui attention: approval first, then failed or stalled, then finished turns; ! jumps", async () => {
  const app = renderApp(fleetLists());
  // A turn that ends while the user looks elsewhere is one to look at.
  app.store.session(session({ id: "ses_01IDLE00000000000000000000", activity: "working" }));
  app.store.session(
    session({ id: "ses_01IDLE00000000000000000000", activity: "idle", turns: 4 }),
  );
  await app.press("2");
  const frame = app.frame();
  assert.match(frame, /Attention/);
  const order = ["approval", "stalled", "turn finished"].map((why) => frame.indexOf(why));
  assert.ok(order.every((at) => at >= 0), frame);
  assert.deepEqual([...order].sort((a, b) => a - b), order, frame);
  assert.deepEqual(app.terminal.titles.at(-1), "svc — 3 need you");
  await app.press("!");
  assert.deepEqual(app.focused, ["ses_01WAITING0000000000000000"]);
  assert.match(app.frame(), /ses_01WAITING0000000000000000 codex/);
  await app.press("!");
  assert.equal(app.focused.at(-1), "ses_01STALLED00000000000000000");
  app.unmount();
});

Deno.test("svc ui approvals: y, n and a answer the selected request; a 409 is 'answered elsewhere'", async () => {
  let status = 200;
  const app = renderApp(fleetLists(), { answer: () => ({ status, body: {} }) });
  await app.press("3");
  assert.match(app.frame(), /Bash: npm test/);
  assert.match(app.frame(), /9:30/, "the countdown to the timeout");
  await app.press("y");
  assert.deepEqual(app.calls.at(-1), {
    path: "/actions",
    body: {
      action: "svc.sessions.approve",
      sessionId: "ses_01WAITING0000000000000000",
      requestId: "req_1",
      decision: "allow",
    },
  });
  assert.match(app.frame(), /Allowed/);
  await app.press("n");
  assert.equal(app.calls.at(-1)?.body.decision, "deny");
  // "Always" asks where, showing the rule each scope creates (D28).
  const before = app.calls.length;
  await app.press("a");
  assert.match(app.frame(), /Always allow — the rule it creates:/);
  assert.match(app.frame(), /\[s\] session +allow .*session/);
  assert.equal(app.calls.length, before, "nothing is answered before a scope is chosen");
  await app.press("p");
  assert.equal(app.calls.at(-1)?.body.scope, "project");
  assert.equal(app.calls.at(-1)?.body.decision, "allow");
  status = 409;
  await app.press("y");
  assert.match(app.frame(), /Already answered elsewhere/);
  assert.doesNotMatch(app.frame(), /Error|at file:/);
  app.unmount();
});

Deno.test("svc ui shows what allowing a permissions request grants, and always covers only that (issue 33)", async () => {
  const lists = fleetLists();
  const profile = { network: true, read: [], write: ["/home/me/.cache/tool", "/"] };
  lists.approvals = [approval({
    sessionId: "ses_01WAITING0000000000000000",
    tool: "permissions",
    summary: "permissions: cache the index",
    kind: "other",
    command: null,
    argv: null,
    profile,
  })];
  const app = renderApp(lists, { answer: () => ({ status: 200, body: {} }) });
  await app.press("3");
  assert.match(app.frame(), /allowing grants: write \/home\/me\/\.cache\/tool, \/; network/);
  await app.press("a");
  assert.match(
    app.frame(),
    /\[s\] session +allow permissions write \/home\/me\/\.cache\/tool, \/; network/,
  );
  app.unmount();
});

Deno.test("svc ui rings the bell once per new approval", async () => {
  const app = renderApp(fleetLists());
  await settle();
  const before = app.terminal.bells;
  app.store.approvals([
    ...fleetLists().approvals,
    approval({
      sessionId: "ses_01WORKING0000000000000000",
      requestId: "req_9",
      tool: "Edit",
      summary: "Edit: src/a.ts",
      kind: "edit",
    }),
  ]);
  await settle();
  assert.equal(app.terminal.bells, before + 1);
  app.store.approvals(app.store.snapshot().approvals.slice(0, 2));
  await settle();
  assert.equal(app.terminal.bells, before + 1, "the same requests ring no more");
  app.unmount();
});

Deno.test("svc ui flushes the frame of a key and of what the user acts on, not of progress (issue 38 items 2, 7)", async () => {
  const app = renderApp(fleetLists());
  await settle();
  let flushes = app.terminal.flushes;
  await app.press("j");
  assert.equal(app.terminal.flushes, flushes + 1, "a key");
  await app.press("jjk"); // Three keys in one write: each after the render of the one before.
  assert.equal(app.terminal.flushes, flushes + 4);
  flushes = app.terminal.flushes;
  app.store.progress("ses_01WORKING0000000000000000", NOW);
  app.store.cost(2);
  await settle();
  assert.equal(app.terminal.flushes, flushes, "progress and cost wait for their frame");
  app.store.approvals([]);
  await settle();
  assert.equal(app.terminal.flushes, flushes + 1, "an approval answered elsewhere");
  app.unmount();
});

Deno.test("svc ui session view: conversation, input, interrupt, close, kill with confirmation", async () => {
  const app = renderApp(fleetLists());
  await app.press(KEY.enter);
  assert.deepEqual(app.focused, ["ses_01WORKING0000000000000000"]);
  app.focus.append([
    { kind: "agent.message", payload_json: JSON.stringify({ role: "user", text: "fix it" }) },
    { kind: "agent.message", payload_json: JSON.stringify({ role: "assistant", text: "Done." }) },
  ]);
  await settle();
  assert.match(app.frame(), /you › fix it/);
  assert.match(app.frame(), /agent › Done\./);
  await app.press("i", "n", "e", "x", "t", KEY.enter);
  assert.deepEqual(app.calls.at(-1), {
    path: "/sessions/ses_01WORKING0000000000000000/input",
    body: { data: "next" },
  });
  await app.press(KEY.ctrlC);
  assert.equal(app.calls.at(-1)?.path, "/sessions/ses_01WORKING0000000000000000/interrupt");
  await app.press("x");
  assert.equal(app.calls.at(-1)?.path, "/sessions/ses_01WORKING0000000000000000/close");
  const before = app.calls.length;
  await app.press("K");
  assert.match(app.frame(), /Kill ses_01WORKING0000000000000000/);
  await app.press("n");
  assert.equal(app.calls.length, before, "n keeps it");
  await app.press("K", "y");
  assert.equal(app.calls.at(-1)?.path, "/sessions/ses_01WORKING0000000000000000/kill");
  app.unmount();
});

Deno.test("svc ui session view: typing ahead of the render reaches the input line", async () => {
  const app = renderApp(fleetLists());
  await app.press(KEY.enter);
  // One write holding the key, the text and Enter, as a fast typist or tmux send-keys sends.
  await app.press("isecond turn\r");
  assert.deepEqual(app.calls.at(-1)?.body, { data: "second turn" });
  app.unmount();
});

Deno.test("svc ui session view: scrollback, live partial text, the session's request, resume", async () => {
  const app = renderApp(fleetLists(), {
    answer: () => ({ status: 409, body: { error: { message: "Session is live" } } }),
  });
  await app.press("3", KEY.enter);
  assert.match(app.frame(), /\? Bash: npm test\n/);
  await app.press("n");
  assert.equal(app.calls.at(-1)?.body.decision, "deny");
  app.focus.append(
    Array.from({ length: 60 }, (_, i) => ({
      kind: "agent.message",
      payload_json: JSON.stringify({ role: "assistant", text: `line ${i}` }),
    })),
  );
  app.focus.append([
    { kind: "agent.message.delta", payload_json: JSON.stringify({ text: "streaming now" }) },
  ]);
  await settle();
  assert.match(app.frame(), /line 59/);
  assert.match(app.frame(), /streaming now▍/);
  await app.press(KEY.pageUp);
  assert.match(app.frame(), /scrolled back/);
  assert.doesNotMatch(app.frame(), /line 59/);
  await app.press("G");
  assert.match(app.frame(), /line 59/);
  await app.press("r");
  assert.match(app.frame(), /Only an ended conversation resumes/);
  app.unmount();
});

Deno.test("svc ui session view: a 10 × 300k-character conversation shows its window, wrapped once (issue 33)", async () => {
  let measured = 0;
  const app = renderApp(fleetLists(), {
    measure: (grapheme) => {
      measured += grapheme.length;
      return stringWidth(grapheme);
    },
  });
  await app.press(KEY.enter);
  // Not ASCII, so every character wrapped goes through `measure`.
  app.focus.append(Array.from({ length: 10 }, (_, i) => ({
    kind: "agent.message",
    payload_json: JSON.stringify({
      role: "assistant",
      text: `${i} ${"漢字かな ".repeat(60_000)}end of ${i}`,
    }),
  })));
  await settle();
  const rows = () => app.frame().split("\n").filter((row) => row.includes("漢字"));
  assert.match(app.frame(), /漢字かな end of 9\n/, "the newest rows: the end of the last line");
  assert.ok(rows().length > 5, "wrapped, not cut to one row a line");
  for (const row of rows()) assert.ok(stringWidth(row) <= 100, row);
  assert.ok(measured > 0 && measured <= 2 * CHUNK_CHARS, `the first frame measured ${measured}`);
  measured = 0;
  await app.press(KEY.pageUp, "k");
  assert.match(app.frame(), /scrolled back 1 line · G follows live/);
  assert.doesNotMatch(app.frame(), /end of 9/);
  assert.ok(rows().length > 5);
  assert.ok(measured <= CHUNK_CHARS, `a page up measured ${measured}`);
  measured = 0;
  await app.press("G", KEY.pageUp, "G");
  assert.match(app.frame(), /end of 9/);
  assert.equal(measured, 0, "keys over rows already wrapped wrap nothing again");
  app.unmount();
});

Deno.test("svc ui session view: d pages the worktree's diff (D27), safe and coloured", async () => {
  const lists = fleetLists();
  lists.sessions = [
    session({
      id: "ses_01TREE00000000000000000000",
      worktree: { path: "/w/tree", branch: "svc/session/x", repository: "/home/me/project" },
    }),
    session({
      id: "ses_01PLAIN0000000000000000000",
      updated_at: new Date(NOW - 60_000).toISOString(),
    }),
  ];
  const app = renderApp(lists, {
    color: true,
    answer: (call) =>
      call.path.endsWith("/worktree/check")
        ? {
          status: 200,
          body: {
            check: {
              sessionId: "ses_01TREE00000000000000000000",
              branch: "refs/heads/main",
              headCommit: "c".repeat(40),
              clean: false,
              conflicts: ["x"],
              bothChanged: ["x"],
              verify: { configured: false },
            },
          },
        }
        : call.method === "GET"
        ? {
          status: 200,
          body: {
            diff: {
              data: "diff --git a/x b/x\n@@ -1 +1 @@\n-old\n+new \x1b]0;pwned\x07\n",
              nextOffset: null,
            },
          },
        }
        : { status: 200, body: {} },
  });
  await app.press(KEY.enter, "d");
  assert.equal(
    app.calls.at(-1)?.path,
    "/sessions/ses_01TREE00000000000000000000/worktree/diff?offset=0&length=1048576",
  );
  const frame = app.frame();
  assert.match(frame, /worktree diff of ses_01TREE/);
  assert.match(frame, /Conflicts with main \(c{12}\) in 1 file: x/, "the land check (D34)");
  assert.match(frame, /\+new \^\[\]0;pwned\^G/);
  // deno-lint-ignore no-control-regex
  assert.doesNotMatch(frame.replace(/\x1b\[[0-9;]*m/g, ""), /\x1b|\x07/);
  await app.press(KEY.escape);
  assert.doesNotMatch(app.frame(), /worktree diff of/);
  await app.press("1", KEY.down, KEY.enter, "d");
  assert.match(app.frame(), /This session has no worktree/);
  app.unmount();
});

Deno.test("svc ui routines: r runs now, p asks before pausing, Enter shows history", async () => {
  const app = renderApp(fleetLists(), {
    answer: (call) => {
      switch (call.body.action) {
        case "svc.automations.run":
          return { status: 200, body: { result: { status: "running", error: null } } };
        case "svc.automations.get":
          return {
            status: 200,
            body: {
              result: {
                routine: {
                  id: "nightly",
                  status: "ACTIVE",
                  name: "n",
                  createdAt: "x",
                  updatedAt: "y",
                },
              },
            },
          };
        case "svc.automations.runs":
          return {
            status: 200,
            body: {
              result: {
                runs: [{
                  status: "failed",
                  trigger: "schedule",
                  startedAt: "2026-11-26T02:00:00.000Z",
                  scheduledFor: null,
                  sessionId: "ses_1",
                  error: { message: "agent exited 1" },
                }],
              },
            },
          };
        default:
          return { status: 200, body: {} };
      }
    },
  });
  await app.press("5");
  assert.match(app.frame(), /nightly/);
  assert.match(app.frame(), /weekly .*paused/s);
  assert.match(app.frame(), /2 failed/);
  await app.press("r");
  assert.deepEqual(app.calls.at(-1)?.body, { action: "svc.automations.run", id: "nightly" });
  assert.match(app.frame(), /Run started/);
  await app.press("p");
  assert.match(app.frame(), /Pause routine nightly\?/);
  await app.press("y");
  assert.deepEqual(app.calls.at(-1)?.body, { action: "svc.automations.pause", id: "nightly" });
  await app.press(KEY.enter);
  assert.match(app.frame(), /Runs of nightly/);
  assert.match(app.frame(), /failed {2}schedule {2}ses_1 {2}agent exited 1/);
  app.unmount();
});

Deno.test("svc ui inbox: unread first, Enter reads, m marks read", async () => {
  const app = renderApp(fleetLists(), {
    answer: (call) =>
      call.body.markRead
        ? { status: 200, body: {} }
        : { status: 200, body: { result: { markdown: "# Nightly\n\nAll green." } } },
  });
  await app.press("6");
  const frame = app.frame();
  assert.ok(frame.indexOf("fresh result") < frame.indexOf("old"), frame);
  await app.press(KEY.enter);
  assert.match(app.frame(), /# Nightly/);
  assert.match(app.frame(), /All green\./);
  await app.press("m");
  assert.deepEqual(app.calls.at(-1)?.body, {
    action: "svc.automations.result",
    runId: "run_01UNREAD000000000000000000",
    markRead: true,
  });
  app.unmount();
});

Deno.test("svc ui new session: the form launches with the chosen harness and focuses it", async () => {
  const app = renderApp(fleetLists(), {
    answer: () => ({ status: 201, body: { id: "ses_01NEW000000000000000000000" } }),
  });
  await app.press("c");
  assert.match(app.frame(), /harness.*Claude Code/);
  assert.match(app.frame(), /project.*\/home\/me\/project/);
  await app.press(KEY.enter);
  assert.match(app.frame(), /Type a prompt first/);
  await app.press("h", "i", KEY.up, KEY.up, "\x1b[C", KEY.down, KEY.down, KEY.down, KEY.down, " ");
  assert.match(app.frame(), /\[x\] in a new git worktree/);
  await app.press(KEY.enter);
  assert.deepEqual(app.calls.at(-1), {
    path: "/sessions",
    body: {
      harness: "codex",
      projectRoot: "/home/me/project",
      prompt: "hi",
      isolation: "worktree",
    },
  });
  assert.deepEqual(app.focused, ["ses_01NEW000000000000000000000"]);
  app.unmount();
});

Deno.test("svc ui ? shows every key of the view from the one keymap", async () => {
  const app = renderApp(fleetLists());
  for (const [key, view] of [["1", "fleet"], ["3", "approvals"], ["5", "routines"]] as const) {
    await app.press(key, "?");
    const frame = app.frame();
    for (const binding of KEYMAP) {
      if (binding.views && !binding.views.includes(view)) continue;
      assert.ok(frame.includes(binding.help), `${view}: "${binding.help}" in\n${frame}`);
    }
    await app.press("?");
  }
  app.unmount();
});

Deno.test("svc ui moves with j/k and the arrows, g/G, PgUp/PgDn; Esc goes back; a in a session asks where; q quits", async () => {
  const app = renderApp(fleetLists());
  const selectedRow = () => app.frame().split("\n").find((line) => line.startsWith("›")) ?? "";
  assert.match(selectedRow(), /ses_01WORK/);
  await app.press("j");
  assert.match(selectedRow(), /ses_01WAIT/);
  await app.press(KEY.down, KEY.down);
  assert.match(selectedRow(), /ses_01STAL/);
  await app.press("k");
  assert.match(selectedRow(), /ses_01IDLE/);
  await app.press(KEY.up);
  assert.match(selectedRow(), /ses_01WAIT/);
  await app.press("G");
  assert.match(selectedRow(), /ses_01STAL/);
  await app.press("g");
  assert.match(selectedRow(), /ses_01WORK/);
  await app.press("j", KEY.enter);
  app.focus.append(
    Array.from({ length: 80 }, (_, i) => ({
      kind: "agent.message",
      payload_json: JSON.stringify({ role: "assistant", text: `line ${i}` }),
    })),
  );
  await app.press(KEY.pageUp, KEY.pageUp);
  const back = Number(/scrolled back (\d+) lines/.exec(app.frame())?.[1]);
  await app.press("\x1b[6~");
  assert.ok(Number(/scrolled back (\d+) lines/.exec(app.frame())?.[1]) < back, "PgDn");
  await app.press("a");
  assert.match(app.frame(), /Always allow — the rule it creates:/);
  await app.press(KEY.escape);
  assert.doesNotMatch(app.frame(), /Always allow/);
  await app.press(KEY.escape);
  assert.match(app.frame(), /sessions live/, "Esc: back to the fleet");
  await app.press("q", "y");
  const frames = app.frames.length;
  await app.press("j");
  assert.equal(app.frames.length, frames, "after q nothing is drawn");
  app.unmount();
});

Deno.test("svc ui Tab cycles the views, each naming itself", async () => {
  const app = renderApp(fleetLists());
  const seen: string[] = [];
  for (let i = 0; i < 8; i++) {
    seen.push(app.frame().split("\n")[3] ?? "");
    await app.press(KEY.tab);
  }
  assert.match(seen[0], /sessions live/);
  assert.match(seen[1], /Sessions that need you/);
  assert.match(seen[2], /Pending requests, oldest first/);
  assert.match(seen[4], /r runs now/);
  assert.match(seen[5], /Enter reads/);
  assert.match(seen[6], /Land queue, in order/);
  assert.match(seen[7], /Enter launches/);
  app.unmount();
});

Deno.test("svc ui shows a hostile agent's bytes as text (D25 terminal safety)", async () => {
  const hostile = "\x1b]0;pwned\x07\x1b[2J\x1b]52;c;SGVsbG8=\x07\x9bX\x07";
  const lists = fleetLists();
  lists.sessions = [
    session({ id: "ses_01EVIL00000000000000000000", title: `evil ${hostile}`, harness: hostile }),
  ];
  lists.approvals = [approval({
    sessionId: "ses_01EVIL00000000000000000000",
    requestId: hostile,
    tool: `Bash${hostile}`,
    summary: `rm ${hostile}`,
    command: `rm ${hostile}`,
    argv: ["rm", hostile],
    profile: { network: false, read: [hostile], write: [`/w${hostile}`] },
  })];
  const app = renderApp(lists, { color: true });
  const frames: string[] = [];
  await settle();
  frames.push(app.frame());
  await app.press("3");
  frames.push(app.frame());
  await app.press(KEY.enter);
  app.focus.append([
    { kind: "agent.message", payload_json: JSON.stringify({ role: "assistant", text: hostile }) },
    {
      kind: "agent.tool",
      payload_json: JSON.stringify({
        callId: "c",
        name: hostile,
        status: "started",
        input: hostile,
      }),
    },
  ]);
  await settle();
  frames.push(app.frame());
  for (const frame of frames) {
    // Colour codes are the UI's own SGR sequences; nothing else may start an escape.
    // deno-lint-ignore no-control-regex
    const withoutColour = frame.replace(/\x1b\[[0-9;]*m/g, "");
    assert.doesNotMatch(
      withoutColour,
      // deno-lint-ignore no-control-regex
      /[\x00-\x09\x0b-\x1f\x7f\x80-\x9f]/,
      JSON.stringify(withoutColour),
    );
    assert.match(withoutColour, /\^\[\]0;pwned\^G/);
  }
  app.unmount();
});
