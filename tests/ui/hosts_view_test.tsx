/**
 * `svc ui --context A --context B` as Ink draws it (D32): a HOST column only
 * with more than one host, ids without their host, one approval queue whose
 * answer goes to the host that asked, and a banner per host that is away.
 */
import assert from "node:assert/strict";
import { render } from "ink-testing-library";
import { UiActions } from "../../src/ui/actions.ts";
import { App } from "../../src/ui/app.tsx";
import { FocusStore } from "../../src/ui/focus.ts";
import { hostsActions } from "../../src/ui/hosts_actions.ts";
import { hostedFocus, HostsStore } from "../../src/ui/hosts_store.ts";
import type { SessionRecord } from "../../src/ui/model.ts";
import { UiStore } from "../../src/ui/store.ts";
import { approval, fleetLists, iso, NOW, session } from "./fixtures.ts";
import { renderApp, settle } from "./render_app.tsx";

const LOCAL_ID = "ses_01LOCALWORK00000000000000";
const BOX_ID = "ses_01BOXASKING000000000000000";

/** The App over two hosts' real stores; each host's client records what it was asked. */
function renderTwoHosts() {
  const calls: Array<{ host: string; path: string; body: unknown }> = [];
  const client = (host: string) => ({
    get: <T,>(path: string) => {
      calls.push({ host, path, body: null });
      return Promise.resolve({ status: 200, ok: true, body: {} as T });
    },
    post: <T,>(path: string, body: unknown) => {
      calls.push({ host, path, body });
      const answer = path === "/sessions" ? { id: "ses_01NEW000000000000000000000" } : {};
      return Promise.resolve({ status: 200, ok: true, body: answer as T });
    },
  });
  const local = new UiStore({ notifyIntervalMs: 0 });
  const box = new UiStore({ notifyIntervalMs: 0 });
  local.synced({
    ...fleetLists(),
    sessions: [session({ id: LOCAL_ID, title: "local work" })],
    approvals: [],
  });
  box.synced({
    ...fleetLists(),
    daemon: { svcVersion: "0.1.0", startedAt: iso(60_000), instanceId: "inst_box" },
    sessions: [session({ id: BOX_ID, title: "remote asks", activity: "waiting_approval" })],
    approvals: [approval({ sessionId: BOX_ID, summary: "Bash: make deploy" })],
  });
  const focus = new FocusStore();
  const focused: string[] = [];
  const sync = {
    // As HostsSync does it: the session's own host resets the one focus store.
    focus: (record: SessionRecord | null) => {
      focused.push(record?.id ?? "");
      const host = record?.host ?? "local";
      hostedFocus(host, focus, true).reset(
        record === null ? null : record.id.slice(host.length + 1),
        record?.protocol ?? "raw",
      );
    },
  };
  const app = render(
    <App
      store={new HostsStore([{ name: "local", store: local }, { name: "box", store: box }])}
      focus={focus}
      sync={sync}
      actions={hostsActions([
        { name: "local", actions: new UiActions(client("local")) },
        { name: "box", actions: new UiActions(client("box")) },
      ])}
      stalledAfterMs={120_000}
      cwd="/home/me/project"
      color={false}
      terminal={{ title: () => {}, bell: () => {} }}
      now={() => NOW}
      tickMs={0}
    />,
  );
  const press = async (...keys: string[]) => {
    for (const key of keys) {
      app.stdin.write(key);
      await settle();
    }
  };
  return { app, local, box, calls, focused, press, frame: () => app.lastFrame() ?? "" };
}

Deno.test("svc ui over two hosts: a HOST column, ids without their host, the hosts counted", () => {
  const { app, frame } = renderTwoHosts();
  const screen = frame();
  assert.match(screen, /svc · 2 hosts · 2 live · 1 pending/);
  assert.match(screen, /^ +HOST +ID +STATE/m);
  assert.match(screen, new RegExp(`^ local +${LOCAL_ID.slice(0, 12)}\\w* .*local work`, "m"));
  assert.match(screen, new RegExp(`^›box +${BOX_ID.slice(0, 12)}\\w* .*remote asks`, "m"));
  assert.doesNotMatch(screen, /box\/ses_|local\/ses_/, "no host-qualified id on screen");
  assert.match(screen, /next local\/nightly in 1h/, "a routine is named with its host");
  app.unmount();
});

Deno.test("svc ui over one host has no HOST column", () => {
  const app = renderApp(fleetLists());
  assert.match(app.frame(), /^ +ID +STATE/m);
  assert.doesNotMatch(app.frame(), /HOST/);
  app.unmount();
});

Deno.test("svc ui over two hosts: one approval queue; y answers on the host that asked", async () => {
  const { app, calls, press, frame } = renderTwoHosts();
  await press("3");
  assert.match(frame(), /HOST +SESSION +HARNESS +TOOL/);
  assert.match(frame(), new RegExp(`›box +${BOX_ID.slice(0, 12)}`));
  assert.match(frame(), new RegExp(`request req_1 of ${BOX_ID} on box`));
  await press("y");
  assert.match(frame(), /Allowed/);
  assert.deepEqual(calls.filter((call) => call.path === "/actions"), [{
    host: "box",
    path: "/actions",
    body: {
      action: "svc.sessions.approve",
      sessionId: BOX_ID,
      requestId: "req_1",
      decision: "allow",
    },
  }]);
  app.unmount();
});

Deno.test("svc ui over two hosts: Enter opens a session from its own host, named with it", async () => {
  const { app, focused, press, frame } = renderTwoHosts();
  await press("3", "\r");
  assert.deepEqual(focused, [`box/${BOX_ID}`]);
  assert.match(frame(), new RegExp(`^${BOX_ID} on box claude`, "m"));
  app.unmount();
});

Deno.test("svc ui over two hosts: the form offers each host's harnesses; Enter launches there", async () => {
  const { app, calls, focused, press, frame } = renderTwoHosts();
  await press("c");
  assert.match(frame(), /harness +‹ Claude Code on local \(local\/claude\) ›/);
  await press("\x1b[C", "\x1b[C");
  assert.match(frame(), /harness +‹ Claude Code on box \(box\/claude\) ›/);
  await press("h", "i", "\r");
  await settle();
  const launch = calls.find((call) => call.path === "/sessions");
  assert.equal(launch?.host, "box");
  assert.equal((launch?.body as { harness: string }).harness, "claude");
  assert.match(frame(), /Launched ses_01NEW000000000000000000000 on box/);
  assert.deepEqual(focused, ["box/ses_01NEW000000000000000000000"], "the new session opens");
  app.unmount();
});

Deno.test("svc ui over two hosts: an away host has a banner of its own, gone when it answers", async () => {
  const { app, box, press, frame } = renderTwoHosts();
  box.disconnected("No daemon answers; retrying");
  await settle();
  assert.match(frame(), /^box: No daemon answers; retrying$/m);
  assert.match(frame(), /2 hosts \(1 away\)/);
  assert.match(frame(), /local work/, "local still listed");
  await press("j");
  assert.match(frame(), /^box: No daemon answers/m, "a key does not hide it");
  box.synced({
    ...fleetLists(),
    daemon: { svcVersion: "0.1.0", startedAt: iso(60_000), instanceId: "inst_box" },
    sessions: [session({ id: BOX_ID, title: "remote asks" })],
    approvals: [],
  });
  await settle();
  assert.doesNotMatch(frame(), /^box:/m);
  assert.match(frame(), /svc · 2 hosts · 2 live/);
  app.unmount();
});
