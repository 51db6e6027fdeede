/**
 * `svc ui`'s view state without React or a terminal (issue 34): commands and
 * keys in, the snapshot and the frame out, acts through the real
 * `UiActions` over a client that records every call.
 */
import assert from "node:assert/strict";
import { UiActions } from "../../src/ui/actions.ts";
import { FocusStore } from "../../src/ui/focus.ts";
import type { LandQueueItem } from "../../src/ui/land_queue_view.ts";
import type { SessionRecord } from "../../src/ui/model.ts";
import { type SyncedLists, UiStore } from "../../src/ui/store.ts";
import { TranscriptWindow } from "../../src/ui/transcript_window.ts";
import { ViewState } from "../../src/ui/view_state.ts";
import { approval, CLEAN_CHECK, fleetLists, NOW, session } from "./fixtures.ts";
import type { Answer, Call } from "./render_app.tsx";

function setUp(lists: SyncedLists = fleetLists(), options: { answer?: Answer } = {}) {
  const store = new UiStore({ notifyIntervalMs: 0 });
  store.synced(lists);
  const focus = new FocusStore();
  const calls: Call[] = [];
  let exits = 0;
  const reply = <T>(call: Call) => {
    calls.push(call);
    const { status, body } = options.answer?.(call) ?? { status: 200, body: {} };
    return Promise.resolve({ status, ok: status < 400, body: body as T });
  };
  const client = {
    get: <T>(path: string) => reply<T>({ path, body: {}, method: "GET" }),
    post: <T>(path: string, body: unknown) =>
      reply<T>({ path, body: body as Record<string, unknown> }),
  };
  const sync = {
    focus: (target: SessionRecord | null) => {
      store.focus(target?.id ?? null);
      focus.reset(target?.id ?? null, target?.protocol ?? "raw");
    },
  };
  const state = new ViewState({
    store,
    focus,
    sync,
    actions: new UiActions(client),
    stalledAfterMs: 120_000,
    cwd: "/home/me/project",
    now: () => NOW,
    exit: () => exits++,
    transcript: new TranscriptWindow(() => 1),
  });
  state.frame({ columns: 100, rows: 30 });
  const keys = (...names: string[]) => {
    for (const name of names) state.key(name, name.startsWith("<") ? "" : name);
  };
  return { state, store, focus, calls, keys, exits: () => exits };
}

/** Lets the actions' promises settle. */
async function settle(): Promise<void> {
  for (let i = 0; i < 3; i++) await new Promise((resolve) => setTimeout(resolve, 0));
}

const DONE = "ses_01DONE0000000000000000000";
const WORKING = "ses_01WORKING0000000000000000";

Deno.test("view state: number keys, Tab and the view commands switch views", () => {
  const { state, keys } = setUp();
  assert.equal(state.snapshot().view, "fleet");
  keys("3");
  assert.equal(state.snapshot().view, "approvals");
  keys("<tab>");
  assert.equal(state.snapshot().view, "session");
  state.dispatch("view-land");
  assert.equal(state.snapshot().view, "land");
  state.dispatch("new-session");
  assert.equal(state.snapshot().view, "new");
  assert.equal(state.snapshot().form.field, "prompt");
  keys("<escape>");
  assert.equal(state.snapshot().view, "fleet", "Esc leaves the form");
});

Deno.test("view state: the selection stays inside its list, per list", () => {
  const { state, keys } = setUp();
  keys("k");
  assert.equal(state.selectedOf("fleet"), 0, "never above the first row");
  keys("G");
  const last = state.frame().lists.fleet.length - 1;
  assert.equal(state.selectedOf("fleet"), last);
  keys("j", "<pagedown>");
  assert.equal(state.selectedOf("fleet"), last, "never below the last row");
  keys("6", "j", "j", "j");
  assert.equal(state.selectedOf("inbox"), 1, "the inbox has two results");
  assert.equal(state.selectedOf("fleet"), last, "each list keeps its own selection");
  keys("g");
  assert.equal(state.selectedOf("inbox"), 0);
});

Deno.test("view state: / filters the fleet; Enter keeps the filter, Esc clears it", () => {
  const { state, keys } = setUp();
  keys("/");
  assert.equal(state.snapshot().filtering, true);
  keys("W", "A", "I", "T", "X");
  state.key("<backspace>", "", { backspace: true, delete: false, ctrl: false, meta: false });
  assert.equal(state.snapshot().filter, "WAIT");
  assert.deepEqual(state.frame().lists.fleet.map((row) => row.session.id), [
    "ses_01WAITING0000000000000000",
  ]);
  keys("<return>");
  assert.equal(state.snapshot().filtering, false);
  keys("j");
  assert.equal(state.snapshot().filter, "WAIT", "keys move again, the filter stays");
  keys("/", "x", "<escape>");
  assert.equal(state.snapshot().filter, "");
  assert.equal(state.frame().lists.fleet.length > 1, true);
  keys("a");
  assert.equal(state.snapshot().showEnded, true, "a shows ended sessions in the fleet");
});

Deno.test("view state: ? pages the help with the moving keys, never past its pages", () => {
  const { state, keys } = setUp();
  state.frame({ columns: 50, rows: 14 });
  keys("?");
  const pages = state.frame().help?.pages ?? 0;
  assert.ok(pages > 2, `a small screen pages the help (${pages} pages)`);
  keys("k");
  assert.equal(state.frame().help?.page, 0);
  keys("j", "<pagedown>");
  assert.equal(state.frame().help?.page, 2);
  for (let i = 0; i < pages + 2; i++) keys("j");
  assert.equal(state.frame().help?.page, pages - 1);
  assert.equal(state.selectedOf("fleet"), 0, "the list under the help did not move");
  keys("<escape>");
  assert.equal(state.frame().help, null);
});

Deno.test("view state: y and a need the whole request read; n does not", async () => {
  const lists = fleetLists();
  const long = Array.from({ length: 200 }, (_, i) => `step${i}`).join(" && ");
  lists.approvals = [approval({ sessionId: "ses_01WAITING0000000000000000", summary: long })];
  const { state, keys, calls } = setUp(lists);
  state.frame({ columns: 60, rows: 16 });
  keys("3");
  assert.equal(state.frame().request?.whole, false);
  keys("y");
  assert.match(state.snapshot().message?.message ?? "", /Read the whole request first/);
  keys("a");
  assert.equal(state.snapshot().confirm, null);
  assert.equal(calls.length, 0, "nothing allowed unseen");
  for (let i = 0; i < 30 && !state.frame().request?.whole; i++) keys("v");
  assert.equal(state.frame().request?.whole, true);
  keys("a");
  assert.deepEqual(state.snapshot().confirm?.keys, { s: "session", p: "project", e: "everywhere" });
  keys("p");
  await settle();
  assert.equal(state.snapshot().confirm, null);
  assert.equal(calls.at(-1)?.body.scope, "project");
  assert.equal(state.snapshot().message?.message, "Allowed, always (project)");
});

Deno.test("view state: n denies a request not read to its end", async () => {
  const lists = fleetLists();
  const long = Array.from({ length: 200 }, (_, i) => `step${i}`).join(" && ");
  lists.approvals = [approval({ sessionId: "ses_01WAITING0000000000000000", summary: long })];
  const { state, keys, calls } = setUp(lists);
  state.frame({ columns: 60, rows: 16 });
  keys("3", "n");
  await settle();
  assert.equal(calls.at(-1)?.body.decision, "deny");
  keys("1", "y");
  assert.equal(calls.length, 1, "y means nothing in the fleet");
});

Deno.test("view state: K asks first; n keeps the session, y kills it", async () => {
  const { state, keys, calls } = setUp();
  state.open(state.options.store.snapshot().sessions.get(WORKING));
  keys("K");
  assert.match(state.snapshot().confirm?.lines[0] ?? "", /^Kill ses_01WORKING/);
  keys("n");
  assert.equal(state.snapshot().confirm, null);
  assert.equal(calls.length, 0);
  keys("K", "y");
  await settle();
  assert.deepEqual(calls.at(-1), { path: `/sessions/${WORKING}/kill`, body: {} });
  assert.equal(state.snapshot().message?.message, "Killed");
});

Deno.test("view state: p shows the stored definition, then pauses or activates by id alone (D30)", async () => {
  const definition = { id: "nightly", status: "ACTIVE", prompt: "tidy", cwd: "/home/me/project" };
  const { state, keys, calls } = setUp(fleetLists(), {
    answer: (call) =>
      call.body.action === "svc.automations.get"
        ? { status: 200, body: { result: { routine: { ...definition, createdAt: "x" } } } }
        : { status: 200, body: {} },
  });
  keys("5", "p");
  await settle();
  const lines = state.snapshot().confirm?.lines ?? [];
  assert.equal(lines[0], "Pause routine nightly?");
  assert.ok(lines.some((line) => /^ {2}prompt: +tidy$/.test(line)), lines.join("\n"));
  assert.ok(!lines.some((line) => line.includes("createdAt")));
  assert.equal(lines.at(-1), "y confirms, n cancels");
  keys("y");
  await settle();
  assert.deepEqual(calls.at(-1)?.body, { action: "svc.automations.pause", id: "nightly" });
  assert.equal(state.snapshot().message?.message, "Paused");
  keys("j", "p");
  await settle();
  assert.equal(state.snapshot().confirm?.lines[0], "Activate routine weekly?");
  keys("y");
  await settle();
  assert.deepEqual(calls.at(-1)?.body, { action: "svc.automations.activate", id: "weekly" });
  assert.equal(state.snapshot().message?.message, "Activated");
});

Deno.test("view state: quitting with live sessions asks; with none it quits at once", () => {
  const live = setUp();
  live.keys("q");
  assert.match(live.state.snapshot().confirm?.lines.join("\n") ?? "", /4 sessions are live/);
  live.keys("n");
  assert.equal(live.exits(), 0);
  live.keys("q", "y");
  assert.equal(live.exits(), 1);

  const lists = fleetLists();
  lists.sessions = lists.sessions.filter((s) => s.status !== "running");
  const idle = setUp(lists);
  idle.keys("<ctrl-c>");
  assert.equal(idle.exits(), 1, "Ctrl-C outside a session quits");
  assert.equal(idle.state.snapshot().confirm, null);
});

Deno.test("view state: on an ended session i opens the input line and Enter resumes, then sends", async () => {
  const { state, keys, calls } = setUp();
  state.open(state.options.store.snapshot().sessions.get(DONE));
  keys("i");
  assert.equal(state.snapshot().input, "");
  keys("q", "!");
  assert.equal(state.snapshot().input, "q!", "typed words never fall through as keys");
  keys("<return>");
  await settle();
  assert.deepEqual(calls.map((call) => call.path), [
    `/sessions/${DONE}/resume`,
    `/sessions/${DONE}/input`,
  ]);
  assert.equal(state.snapshot().input, null);
  keys("r");
  await settle();
  assert.equal(calls.at(-1)?.path, `/sessions/${DONE}/resume`);
  state.open(state.options.store.snapshot().sessions.get(WORKING));
  keys("r");
  assert.equal(state.snapshot().message?.message, "Only an ended conversation resumes");
  keys("i", "<escape>");
  assert.equal(state.snapshot().input, null);
});

Deno.test("view state: i without a session in focus says so", () => {
  const { state, keys } = setUp();
  keys("4", "i");
  assert.equal(state.snapshot().input, null);
  assert.equal(state.snapshot().message?.message, "No session in focus");
});

Deno.test("view state: m marks the selected inbox result read, the list at once", async () => {
  const { state, keys, calls, store } = setUp();
  keys("6");
  const first = state.frame().lists.inbox[0];
  assert.equal(first.readAt, null, "unread first");
  keys("m");
  await settle();
  assert.deepEqual(calls.at(-1)?.body, {
    action: "svc.automations.result",
    runId: first.runId,
    markRead: true,
  });
  const entry = store.snapshot().inbox.find((e) => e.runId === first.runId);
  assert.equal(entry?.readAt, new Date(NOW).toISOString());
});

Deno.test("view state: Enter reads an inbox result, the moving keys page it, m marks it read", async () => {
  const text = Array.from({ length: 80 }, (_, i) => `line ${i}`).join("\n");
  const { state, keys, calls } = setUp(fleetLists(), {
    answer: (call) =>
      call.body.markRead
        ? { status: 200, body: {} }
        : { status: 200, body: { result: { markdown: text } } },
  });
  keys("6", "j", "<return>");
  await settle();
  const runId = state.snapshot().reading?.runId;
  assert.equal(runId, state.frame().lists.inbox[1].runId);
  keys("j", "j");
  assert.equal(state.snapshot().reading?.scroll, 2);
  assert.equal(state.selectedOf("inbox"), 1, "the list under the result did not move");
  keys("m");
  await settle();
  assert.equal(calls.at(-1)?.body.runId, runId);
  keys("<escape>");
  assert.equal(state.snapshot().reading, null);
});

function landItem(itemId: string, state: LandQueueItem["state"], position: number) {
  return {
    itemId,
    sessionId: `ses_${itemId}`,
    position,
    state,
    attempts: 0,
    maxAttempts: 2,
    lastError: null,
    landedCommit: null,
  };
}

Deno.test("view state: X cancels a queued land after asking, never a landed one", async () => {
  const { state, keys, calls, store } = setUp();
  store.landQueue([landItem("lnd_a", "landed", 1), landItem("lnd_b", "queued", 2)]);
  keys("7", "X");
  assert.match(state.snapshot().message?.message ?? "", /Only a queued, sent back or failed land/);
  assert.equal(state.snapshot().confirm, null);
  keys("j", "X");
  assert.match(state.snapshot().confirm?.lines[0] ?? "", /Cancel the land of ses_lnd_b/);
  keys("y");
  await settle();
  assert.deepEqual(calls.at(-1), { path: "/land-queue/lnd_b/cancel", body: {} });
  store.landQueue([]);
  keys("X");
  assert.equal(state.snapshot().message?.message, "Nothing to cancel");
});

Deno.test("view state: d pages an isolated session's diff; Esc goes back to its conversation", async () => {
  const lists = fleetLists();
  const tree = session({
    id: "ses_01TREE00000000000000000000",
    status: "completed",
    activity: null,
    worktree: { path: "/w/tree", branch: "svc/session/x", repository: "/home/me/project" },
  });
  lists.sessions = [tree];
  lists.approvals = [];
  const patch = Array.from({ length: 100 }, (_, i) => `+line ${i}`).join("\n");
  const { state, keys } = setUp(lists, {
    answer: (call) =>
      call.path.endsWith("/worktree/check")
        ? { status: 200, body: { check: CLEAN_CHECK } }
        : { status: 200, body: { diff: { data: patch, nextOffset: null } } },
  });
  state.open(tree);
  keys("d");
  await settle();
  const diff = state.snapshot().diff;
  assert.ok(diff && diff.lines.length > 100, "the check above the patch");
  keys("j");
  assert.equal(state.snapshot().diff?.scroll, 1);
  keys("<pagedown>");
  assert.equal(state.snapshot().diff?.scroll, 1 + state.frame().pageLines);
  keys("G");
  assert.equal(state.snapshot().diff?.scroll, diff.lines.length - state.frame().pageLines);
  keys("<escape>");
  assert.equal(state.snapshot().diff, null);
  assert.equal(state.snapshot().view, "session");
  keys("<escape>");
  assert.equal(state.snapshot().view, "fleet");
});

Deno.test("view state: ! opens the next session that needs the user, or says none does", () => {
  const { state, keys } = setUp();
  keys("!");
  assert.equal(state.snapshot().view, "session");
  assert.equal(state.focused().sessionId, "ses_01WAITING0000000000000000");
  const lists = fleetLists();
  lists.sessions = [];
  lists.approvals = [];
  const calm = setUp(lists);
  calm.keys("!");
  assert.equal(calm.state.snapshot().message?.message, "Nothing needs you");
});

Deno.test("view state: a key clears the footer's message; subscribers hear each change", () => {
  const { state, keys } = setUp();
  let heard = 0;
  const stop = state.subscribe(() => heard++);
  keys("4", "i");
  assert.equal(state.snapshot().message?.message, "No session in focus");
  keys("1");
  assert.equal(state.snapshot().message, null);
  assert.ok(heard >= 3);
  stop();
});

Deno.test("view state as the web drives it: its page rows, its fleet, the request and result its page names", async () => {
  const store = new UiStore({ notifyIntervalMs: 0 });
  store.synced(fleetLists());
  const calls: Call[] = [];
  const client = {
    get: <T>(path: string) => {
      calls.push({ path, body: {}, method: "GET" });
      return Promise.resolve({ status: 200, ok: true, body: {} as T });
    },
    post: <T>(path: string, body: unknown) => {
      calls.push({ path, body: body as Record<string, unknown> });
      return Promise.resolve({ status: 200, ok: true, body: {} as T });
    },
  };
  const state = new ViewState({
    store,
    focus: new FocusStore(),
    sync: { focus: () => {} },
    actions: new UiActions(client),
    stalledAfterMs: 120_000,
    cwd: "",
    now: () => NOW,
    showEnded: true,
    listPage: 2,
  });
  assert.equal(state.frame().lists.fleet.length, fleetLists().sessions.length, "ended shown");
  state.dispatch("page-down");
  assert.equal(state.selectedOf("fleet"), 2, "a page is the face's rows");
  state.show("session");
  assert.equal(state.approvalHere(WORKING), null);
  assert.equal(state.approvalHere("ses_01WAITING0000000000000000")?.requestId, "req_1");
  assert.ok("sessionId" in state.nextAttention("ses_01WAITING0000000000000000"));
  const read = "run_01READ00000000000000000000";
  state.markRead(read);
  await settle();
  assert.equal(calls.at(-1)?.body.runId, read, "the result the page shows, not the selected one");
});

Deno.test("view state: a face's own form fields (editForm) launch through launchOf, and launch() gives the outcome", async (t) => {
  await t.step("the form's checks come first, without a call", async () => {
    const { state, calls } = setUp();
    state.dispatch("new-session");
    assert.equal(await state.launch(), null);
    assert.equal(state.snapshot().message?.message, "Type a prompt first");
    assert.equal(calls.length, 0);
  });
  await t.step("the daemon's refusal is the outcome, and the form stays", async () => {
    const { state } = setUp(fleetLists(), {
      answer: () => ({
        status: 400,
        body: { error: { code: "invalid_request", message: 'Project root "/etc" is outside' } },
      }),
    });
    state.editForm({ projectRoot: "/etc", prompt: "hello", harness: 1, worktree: true });
    const outcome = await state.launch();
    assert.deepEqual(outcome, { ok: false, message: 'Project root "/etc" is outside' });
    assert.equal(state.snapshot().form.prompt, "hello");
    assert.equal(state.snapshot().launching, false);
  });
  await t.step("a launch posts the fields and opens the new session", async () => {
    const { state, calls } = setUp(fleetLists(), {
      answer: () => ({ status: 201, body: { id: "ses_NEW" } }),
    });
    state.editForm({ projectRoot: "/p", prompt: "hello", model: " m1 ", harness: 1 });
    const outcome = await state.launch();
    assert.equal(outcome?.sessionId, "ses_NEW");
    assert.deepEqual(calls.at(-1), {
      path: "/sessions",
      body: { harness: "codex", projectRoot: "/p", prompt: "hello", model: "m1" },
    });
    await settle();
    assert.equal(state.snapshot().view, "session");
    assert.equal(state.snapshot().form.prompt, "");
    assert.equal(state.snapshot().form.projectRoot, "/p");
  });
});
