/**
 * svc ui's one client loop against a real daemon (D25): the lists read once,
 * then the feed applied (sessions, progress, approvals), the focused
 * session followed live, and a daemon restart answered with a banner and a
 * full resync; no daemon at all is a banner, not a crash.
 */
import assert from "node:assert/strict";
import { SvcClient } from "../../src/client/client.ts";
import { FocusStore } from "../../src/ui/focus.ts";
import { UiStore } from "../../src/ui/store.ts";
import { awayReason, type UiClient, UiSync } from "../../src/ui/sync.ts";
import { fixtureHarnesses, restartTestDaemon, startTestDaemon } from "../helpers/daemon.ts";
import { removeTree, tempHome } from "../helpers/home.ts";
import { routineDefinition } from "../helpers/routine.ts";

const agentScript = new URL("../fixtures/stream_json_agent.ts", import.meta.url).pathname;
const CONFIG = {
  harnesses: {
    agent: { command: [Deno.execPath(), "run", "-A", agentScript], protocol: "claude" },
  },
};

async function until<T>(what: string, probe: () => T | undefined | null | false, ms = 10_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

Deno.test("UiSync reads the lists, follows the feed and the focused session, and resyncs after a restart", async () => {
  const home = await tempHome();
  const project = await Deno.realPath(await tempHome());
  let daemon = await startTestDaemon({ home, configJson: CONFIG });
  const client = new SvcClient({ socketPath: daemon.socket });
  const store = new UiStore();
  const focus = new FocusStore();
  const sync = new UiSync({ client, store, focus });
  const stop = new AbortController();
  const running = sync.run(stop.signal);
  try {
    await until("the first sync", () => store.snapshot().connection === "connected");
    assert.deepEqual(store.snapshot().harnesses.map((h) => h.id), ["agent"]);
    const launched = await client.post<{ id: string }>("/sessions", {
      harness: "agent",
      projectRoot: project,
      prompt: "ask Bash npm test",
      title: "from the test",
    });
    const id = launched.body.id;
    await until("the session", () => store.snapshot().sessions.get(id));
    await until("its approval", () => store.snapshot().approvals.some((a) => a.sessionId === id));
    assert.equal(store.takeNewApprovals(), 1);
    await until("its progress", () => store.snapshot().lastEventAt.has(id));

    sync.focus(store.snapshot().sessions.get(id)!);
    await until(
      "the conversation",
      () => focus.snapshot().lines.some((line) => line.text.includes("ask Bash npm test")),
    );
    const approval = store.snapshot().approvals.find((a) => a.sessionId === id)!;
    await client.post("/actions", {
      action: "svc.sessions.approve",
      sessionId: id,
      requestId: approval.requestId,
      decision: "allow",
    });
    await until("the approval gone", () => store.snapshot().approvals.length === 0);
    await until(
      "the agent's answer, live",
      () => focus.snapshot().lines.some((line) => line.text.includes("allowed")),
    );
    await until(
      "the turn's end on the record",
      () => store.snapshot().sessions.get(id)?.activity === "idle",
    );
    // The header's cost follows a live session's turns, not only its end (issue 38 item 12).
    await until("today's cost of the live session", () => (store.snapshot().todayCostUsd ?? 0) > 0);

    await daemon[Symbol.asyncDispose]();
    await until("the banner", () => store.snapshot().connection === "disconnected");
    assert.ok(store.snapshot().sessions.has(id), "what was known stays on screen");
    daemon = await restartTestDaemon({ home, configJson: CONFIG });
    await until("the resync", () => store.snapshot().connection === "connected", 15_000);
    assert.match(store.snapshot().banner ?? "", /restarted/);
    assert.equal(store.snapshot().sessions.get(id)?.status, "killed");
  } finally {
    stop.abort();
    sync.stop();
    await running;
    client.close();
    await daemon[Symbol.asyncDispose]();
    await removeTree(home);
    await removeTree(project);
  }
});

Deno.test("UiSync reads again after a read that a notice came during: an approval asked meanwhile shows", async () => {
  const home = await tempHome();
  const project = await Deno.realPath(await tempHome());
  const daemon = await startTestDaemon({ home, configJson: CONFIG });
  const real = new SvcClient({ socketPath: daemon.socket });
  /** While set, a read of the approvals is answered by the daemon, then held until it resolves. */
  let hold: PromiseWithResolvers<void> | null = null;
  const holding = Promise.withResolvers<void>();
  let asked = 0;
  const client: UiClient = {
    get: (path) => real.get(path),
    post: async (path, body) => {
      const answer = await real.post(path, body);
      const gate = hold;
      if (gate !== null && (body as { action?: string }).action === "svc.sessions.approvals") {
        holding.resolve();
        await gate.promise;
      }
      return answer as never;
    },
    streamFeed: async function* (options) {
      for await (const item of real.streamFeed(options)) {
        if (item.type === "notice" && item.kind === "approval.requested") asked++;
        yield item;
      }
    },
    streamSessionEvents: (sessionId, options) => real.streamSessionEvents(sessionId, options),
  };
  const store = new UiStore();
  const sync = new UiSync({ client, store, focus: new FocusStore() });
  const stop = new AbortController();
  const running = sync.run(stop.signal);
  const launch = (prompt: string) =>
    real.post("/sessions", { harness: "agent", projectRoot: project, prompt });
  try {
    await until("the first sync", () => store.snapshot().connection === "connected");
    hold = Promise.withResolvers<void>();
    await launch("ask Bash first");
    await holding.promise; // The first approval's read has its answer (one approval) and waits.
    await launch("ask Bash second");
    await until("the second approval's notice, during that read", () => asked === 2);
    const gate = hold;
    hold = null;
    gate.resolve();
    await until("both approvals", () => store.snapshot().approvals.length === 2, 5000);
  } finally {
    hold?.resolve();
    stop.abort();
    await running;
    real.close();
    await daemon[Symbol.asyncDispose]();
    await removeTree(home);
    await removeTree(project);
  }
});

Deno.test("UiSync shows a result read in another UI as read: the feed's inbox.read (issue 38 item 12)", async () => {
  const home = await tempHome();
  const project = await Deno.realPath(await tempHome());
  const daemon = await startTestDaemon({
    home,
    configJson: { harnesses: fixtureHarnesses() },
    scheduler: false,
  });
  const client = new SvcClient({ socketPath: daemon.socket });
  const act = async (action: string, fields: Record<string, unknown>) =>
    (await client.post<{ result: Record<string, string> }>("/actions", { action, ...fields }))
      .body.result;
  const store = new UiStore();
  const sync = new UiSync({ client, store, focus: new FocusStore() });
  const stop = new AbortController();
  const running = sync.run(stop.signal);
  try {
    const definition = routineDefinition("nightly", {
      prompt: "out done; exit 0",
      cwd: project,
      outputTarget: { kind: "inbox" },
    });
    await act("svc.automations.create", { definition });
    const { runId } = await act("svc.automations.run", { id: "nightly" });
    const listed = await until(
      "the delivered result, unread",
      () => store.snapshot().inbox.find((entry) => entry.runId === runId),
    );
    assert.equal(listed.readAt, null);
    // Another UI (here the API itself) marks it read; this one's row follows.
    await act("svc.automations.result", { runId, markRead: true });
    await until(
      "the row marked read",
      () => store.snapshot().inbox.find((entry) => entry.runId === runId)?.readAt,
    );
  } finally {
    stop.abort();
    await running;
    client.close();
    await daemon[Symbol.asyncDispose]();
    await removeTree(home);
    await removeTree(project);
  }
});

Deno.test("UiSync without a daemon says so and keeps trying, without throwing", async () => {
  const home = await tempHome();
  const client = new SvcClient({ socketPath: `${home}/svc.sock` });
  const store = new UiStore();
  const sync = new UiSync({ client, store, focus: new FocusStore() });
  const stop = new AbortController();
  const running = sync.run(stop.signal);
  try {
    await until("the banner", () => store.snapshot().connection === "disconnected");
    assert.match(store.snapshot().banner ?? "", /No daemon answers.*svc serve/);
  } finally {
    stop.abort();
    await running;
    client.close();
    await removeTree(home);
  }
});

Deno.test("awayReason() puts the advice within 80 columns, the error after it (issue 38 item 12)", () => {
  const banner = awayReason(
    new Error(
      "Cannot connect to /home/someone/.svc/svc.sock: No such file or directory (os error 2)",
    ),
  );
  assert.match(banner.slice(0, 80), /Start one with: svc serve/);
  assert.match(banner, /os error 2/);
  const remote = awayReason(
    new Error("ssh: connection refused"),
    "Check it with: svc --context box health",
  );
  assert.match(remote.slice(0, 80), /Check it with: svc --context box health/);
  assert.doesNotMatch(remote, /svc serve/, "another host's daemon is not started from here");
});
