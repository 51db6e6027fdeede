/**
 * `svc ui` over several hosts (D32), without React: each host's real
 * `UiStore` merged into one snapshot with host-qualified ids, a banner per
 * host that goes when that host answers again, the focus sent to the
 * session's own host, and every action to the host its id names.
 */
import assert from "node:assert/strict";
import { type Outcome, UiActions } from "../../src/ui/actions.ts";
import { FocusStore } from "../../src/ui/focus.ts";
import {
  hostedId,
  hostsBanners,
  mergeHosts,
  sessionIdWidth,
  shownId,
  splitHostedId,
} from "../../src/ui/hosts.ts";
import { hostsActions } from "../../src/ui/hosts_actions.ts";
import { hostedFocus, HostsStore, HostsSync } from "../../src/ui/hosts_store.ts";
import type { SessionRecord } from "../../src/ui/model.ts";
import { type SyncedLists, UiStore } from "../../src/ui/store.ts";
import { approval, fleetLists, inboxEntry, iso, routine, session } from "./fixtures.ts";

/** One host's lists: `count` live sessions named `prefix`…, one of them asking. */
function hostLists(prefix: string, options: { askedMsAgo: number }): SyncedLists {
  const ids = [`ses_${prefix}A000000000000000000000`, `ses_${prefix}B000000000000000000000`];
  return {
    ...fleetLists(),
    daemon: { svcVersion: "0.1.0", startedAt: iso(60_000), instanceId: `inst_${prefix}` },
    sessions: ids.map((id) => session({ id })),
    approvals: [approval({ sessionId: ids[0], requestedAt: iso(options.askedMsAgo) })],
    routines: [routine({ id: "nightly" })],
    inbox: [inboxEntry({ runId: `run_${prefix}`, routineId: "nightly" })],
    landQueue: [],
    todayCostUsd: 1.5,
  } as SyncedLists;
}

function hostStores() {
  const local = new UiStore({ notifyIntervalMs: 0 });
  const box = new UiStore({ notifyIntervalMs: 0 });
  local.synced(hostLists("01LOCAL", { askedMsAgo: 10_000 }));
  box.synced(hostLists("01BOX", { askedMsAgo: 20_000 }));
  const hosts = [{ name: "local", store: local }, { name: "box", store: box }];
  return { local, box, store: new HostsStore(hosts) };
}

Deno.test("hostedId() and splitHostedId() take a host-qualified id apart at its first /", () => {
  assert.equal(hostedId("box", "ses_1"), "box/ses_1");
  assert.deepEqual(splitHostedId("box/ses_1"), { host: "box", id: "ses_1" });
  assert.deepEqual(splitHostedId("box/a/b"), { host: "box", id: "a/b" });
  assert.equal(shownId("box/ses_1", true), "ses_1");
  assert.equal(shownId("ses_1", false), "ses_1");
});

Deno.test("mergeHosts() of one host is that host's snapshot with its status", () => {
  const store = new UiStore({ notifyIntervalMs: 0 });
  store.synced(fleetLists());
  const merged = mergeHosts([{ name: "local", snapshot: store.snapshot() }]);
  assert.equal(merged.sessions, store.snapshot().sessions, "the same map: nothing renamed");
  assert.equal(merged.daemon, store.snapshot().daemon);
  assert.deepEqual(merged.hosts, [{ name: "local", connection: "connected", banner: null }]);
});

Deno.test("mergeHosts() of two hosts: every id host-qualified, approvals oldest first", async (t) => {
  const { store } = hostStores();
  const merged = store.snapshot();
  await t.step("sessions keyed and tagged by host", () => {
    assert.deepEqual([...merged.sessions.keys()], [
      "local/ses_01LOCALA000000000000000000000",
      "local/ses_01LOCALB000000000000000000000",
      "box/ses_01BOXA000000000000000000000",
      "box/ses_01BOXB000000000000000000000",
    ]);
    const record = merged.sessions.get("box/ses_01BOXA000000000000000000000");
    assert.equal(record?.id, "box/ses_01BOXA000000000000000000000");
    assert.equal(record?.host, "box");
  });
  await t.step("one approval queue, the older (box's) first, each naming its host", () => {
    assert.deepEqual(merged.approvals.map((a) => a.sessionId), [
      "box/ses_01BOXA000000000000000000000",
      "local/ses_01LOCALA000000000000000000000",
    ]);
  });
  await t.step("routines and runs of the same name stay apart", () => {
    assert.deepEqual(merged.routines.map((r) => r.id), ["local/nightly", "box/nightly"]);
    assert.deepEqual(merged.inbox.map((e) => [e.runId, e.routineId]), [
      ["local/run_01LOCAL", "local/nightly"],
      ["box/run_01BOX", "box/nightly"],
    ]);
  });
  await t.step("every host's harnesses, each a choice naming its host", () => {
    assert.deepEqual(merged.harnesses.map((h) => [h.id, h.label]), [
      ["local/claude", "Claude Code on local"],
      ["local/codex", "Codex on local"],
      ["box/claude", "Claude Code on box"],
      ["box/codex", "Codex on box"],
    ]);
  });
  await t.step("today's cost is the hosts' sum; no one daemon's facts", () => {
    assert.equal(merged.todayCostUsd, 3);
    assert.equal(merged.daemon, null);
    assert.equal(merged.connection, "connected");
  });
  await t.step("the same snapshot object until a host changes", () => {
    assert.equal(store.snapshot(), merged);
  });
});

Deno.test("sessionIdWidth() tells every host's ids apart, shown without their host", () => {
  const local = new UiStore({ notifyIntervalMs: 0 });
  const box = new UiStore({ notifyIntervalMs: 0 });
  // Made in the same second on two machines: 15 characters in common.
  local.synced({ ...fleetLists(), sessions: [session({ id: "ses_01M8GJFHA0000AAAA" })] });
  box.synced({ ...fleetLists(), sessions: [session({ id: "ses_01M8GJFHA0000BBBB" })] });
  const store = new HostsStore([{ name: "local", store: local }, { name: "box", store: box }]);
  assert.equal(sessionIdWidth(store.snapshot()), 18);
});

Deno.test("a host that goes away has its own banner; the others stay listed; it clears by itself", () => {
  const { box, store } = hostStores();
  let published = 0;
  store.subscribe(() => published++);
  box.disconnected("No daemon answers; retrying");
  const away = store.snapshot();
  assert.equal(published, 1, "a host's change reaches the views at once");
  assert.equal(away.connection, "connected", "local still answers");
  assert.deepEqual(hostsBanners(away), [{ text: "box: No daemon answers; retrying", away: true }]);
  assert.equal(away.sessions.size, 4, "what box had is kept while it is away");

  store.dismissBanner();
  assert.equal(hostsBanners(store.snapshot()).length, 1, "a key does not hide an away host");

  // The same daemon answers again: its banner goes without a key.
  box.synced(hostLists("01BOX", { askedMsAgo: 20_000 }));
  assert.deepEqual(hostsBanners(store.snapshot()), []);
});

Deno.test("HostsStore counts new approvals over hosts and marks a result read on its host", () => {
  const { local, box, store } = hostStores();
  assert.equal(store.takeNewApprovals(), 2);
  box.approvals([
    ...box.snapshot().approvals,
    approval({ sessionId: "ses_01BOXB000000000000000000000", requestId: "req_2" }),
  ]);
  assert.equal(store.takeNewApprovals(), 1);
  store.inboxRead("box/run_01BOX", iso(0));
  assert.equal(box.snapshot().inbox[0].readAt, iso(0));
  assert.equal(local.snapshot().inbox[0].readAt, null);
});

Deno.test("HostsSync focuses a session on its own host and lets the other go first", () => {
  const calls: string[] = [];
  const loop = (name: string) => ({
    name,
    sync: {
      run: () => Promise.resolve(),
      focus: (record: SessionRecord | null) => calls.push(`${name}:${record?.id ?? "none"}`),
      stop: () => calls.push(`${name}:stop`),
    },
  });
  const sync = new HostsSync([loop("local"), loop("box")]);
  const record = session({ id: "box/ses_1", host: "box" });
  sync.focus(record);
  assert.deepEqual(calls, ["local:none", "box:ses_1"]);
  calls.length = 0;
  sync.focus(null);
  assert.deepEqual(calls, ["local:none", "box:none"]);
});

Deno.test("hostedFocus() names the focused session by its hosted id; one host keeps the store", () => {
  const focus = new FocusStore();
  assert.equal(hostedFocus("local", focus, false), focus);
  hostedFocus("box", focus, true).reset("ses_1", "claude");
  assert.equal(focus.snapshot().sessionId, "box/ses_1");
});

Deno.test("hostsActions() sends each action to the host its id names, with the daemon's id", async () => {
  const calls: Array<{ host: string; path: string; body: unknown }> = [];
  const client = (host: string) => ({
    get: <T>(path: string) => {
      calls.push({ host, path, body: null });
      return Promise.resolve({ status: 200, ok: true, body: {} as T });
    },
    post: <T>(path: string, body: unknown) => {
      calls.push({ host, path, body });
      const answer = path === "/sessions" ? { id: "ses_NEW" } : {};
      return Promise.resolve({ status: 200, ok: true, body: answer as T });
    },
  });
  const actions = hostsActions([
    { name: "local", actions: new UiActions(client("local")) },
    { name: "box", actions: new UiActions(client("box")) },
  ]);
  const answered: Outcome = await actions.answer(
    { sessionId: "box/ses_1", requestId: "req_1" },
    "allow",
  );
  assert.equal(answered.message, "Allowed");
  await actions.send("local/ses_2", "go on");
  await actions.runRoutine("box/nightly");
  await actions.cancelLand("box/lq_1");
  assert.deepEqual(calls.map(({ host, path, body }) => [host, path, body]), [
    ["box", "/actions", {
      action: "svc.sessions.approve",
      sessionId: "ses_1",
      requestId: "req_1",
      decision: "allow",
    }],
    ["local", "/sessions/ses_2/input", { data: "go on" }],
    ["box", "/actions", { action: "svc.automations.run", id: "nightly" }],
    ["box", "/land-queue/lq_1/cancel", {}],
  ]);
  const launched = await actions.launch({
    harness: "box/claude",
    projectRoot: "/p",
    prompt: "hi",
    model: "",
    worktree: false,
  });
  assert.equal(launched.sessionId, "box/ses_NEW", "a launch goes to its harness's host");
  assert.equal(launched.message, "Launched ses_NEW on box");
  assert.equal(calls.at(-1)?.host, "box");
  assert.equal((calls.at(-1)?.body as { harness: string }).harness, "claude");
});

Deno.test("HostsStore.subscribeUrgent() hears each host's urgent publications, after the views (issue 38 item 7, D32)", () => {
  const { local, box, store } = hostStores();
  const heard: string[] = [];
  store.subscribe(() => heard.push("views"));
  const unsubscribe = store.subscribeUrgent(() => heard.push("urgent"));
  box.approvals([]);
  local.approvals([]);
  assert.deepEqual(heard, ["views", "urgent", "views", "urgent"]);
  unsubscribe();
  box.approvals([]);
  assert.deepEqual(heard, ["views", "urgent", "views", "urgent", "views"]);
});
