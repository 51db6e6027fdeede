/**
 * The notifier (D31) on a fake clock, with fake sources and a recording
 * sender behind the real delivery: what comes due is sent at the injected
 * clock's instant (a clock far from the real one, so no wall time can hide
 * in it), per channel by the events it wants, coalesced, and never thrown
 * into the feed.
 */
import assert from "node:assert/strict";
import type { ChannelSender } from "../../src/notify/channel_sender.ts";
import type { Notification } from "../../src/notify/content.ts";
import { Delivery } from "../../src/notify/delivery.ts";
import type { ChannelConfig } from "../../src/notify/notification_config.ts";
import { NotificationLog } from "../../src/notify/notification_log.ts";
import { Notifier } from "../../src/notify/notifier.ts";
import type { TriggerSources } from "../../src/notify/triggers.ts";
import type { Logger } from "../../src/log.ts";
import { FakeClock } from "../fakes/clock.ts";

/** 2001-09-09T01:46:40Z: decades from the real clock. */
const T0 = 1_000_000_000_000;

function sources(pending: Set<string>, overrides: Partial<TriggerSources> = {}): TriggerSources {
  return {
    session: () => ({
      harness: "claude",
      title: "fix login",
      project_root: "/p/shop",
      origin: "api",
    }),
    pendingApproval: (sessionId, requestId) =>
      pending.has(`${sessionId} ${requestId}`) ? { tool: "Bash", detail: "make test" } : null,
    finalText: () => "done",
    appendedSeq: () => 3,
    inFocus: () => false,
    ...overrides,
  };
}

function rig(
  channels: ChannelConfig[],
  { pending = new Set<string>(), overrides = {} as Partial<TriggerSources> } = {},
) {
  const clock = new FakeClock(T0);
  const sent: { channel: string; notification: Notification; at: number }[] = [];
  const send: ChannelSender = (channel, notification) => {
    sent.push({ channel: channel.name ?? channel.kind, notification, at: clock.now() - T0 });
    return Promise.resolve();
  };
  const errors: unknown[] = [];
  const logger: Logger = { info() {}, warn() {}, error: (_m, fields) => errors.push(fields) };
  const log = new NotificationLog();
  const notifier = new Notifier({
    clock,
    config: { channels, afterSeconds: 20 },
    origin: "https://box.example",
    stalledAfterMs: 120_000,
    sources: sources(pending, overrides),
    delivery: new Delivery({ clock, send, log, logger }),
    logger,
  });
  return { clock, sent, errors, log, notifier };
}

/** Lets microtasks and the notifier's loop run (no timer of the code under test is real). */
async function flush(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setTimeout(resolve, 0));
}

const HOOK: ChannelConfig = { kind: "webhook", url: "http://hook", name: "hook" };
const TURNS: ChannelConfig = {
  kind: "command",
  command: ["true"],
  name: "turns",
  events: ["turn.finished"],
};

Deno.test("Notifier: a request unanswered afterSeconds later is sent once, on the injected clock, to the channels that want it", async () => {
  const { clock, sent, notifier } = rig([HOOK, TURNS], { pending: new Set(["s r1"]) });
  notifier.start();
  await flush();
  notifier.notice("approval.requested", { sessionId: "s", requestId: "r1" });
  await flush();
  await clock.advance(19_999);
  await flush();
  assert.equal(sent.length, 0);
  await clock.advance(1);
  await flush();
  assert.deepEqual(sent.map((s) => [s.channel, s.notification.event, s.at]), [
    ["hook", "approval.waiting", 20_000],
  ]);
  assert.equal(sent[0].notification.title, "claude in shop (fix login) needs approval: Bash");
  assert.equal(sent[0].notification.at, new Date(T0 + 20_000).toISOString());
  await clock.advance(3_600_000);
  await flush();
  assert.equal(sent.length, 1);
  await notifier.stop();
});

Deno.test("Notifier: a request answered in time is never sent", async () => {
  const pending = new Set(["s r1"]);
  const { clock, sent, notifier } = rig([HOOK], { pending });
  notifier.start();
  notifier.notice("approval.requested", { sessionId: "s", requestId: "r1" });
  await flush();
  await clock.advance(10_000);
  pending.delete("s r1");
  notifier.notice("approval.resolved", { sessionId: "s", requestId: "r1" });
  await flush();
  await clock.advance(60_000);
  await flush();
  assert.equal(sent.length, 0);
  await notifier.stop();
});

Deno.test("Notifier: a stall is measured on the injected clock from the session's last notice", async () => {
  const { clock, sent, notifier } = rig([HOOK]);
  notifier.start();
  notifier.notice("session.updated", { sessionId: "s", status: "running", activity: "working" });
  await flush();
  await clock.advance(60_000);
  notifier.notice("session.progress", { sessionId: "s", lastSeq: 2 });
  await flush();
  await clock.advance(119_999);
  await flush();
  assert.equal(sent.length, 0, "the progress at 60 s restarted the silence");
  await clock.advance(1);
  await flush();
  assert.deepEqual(sent.map((s) => [s.notification.event, s.at, s.notification.title]), [
    ["session.stalled", 180_000, "claude in shop (fix login) is stalled: no event for 120 s"],
  ]);
  await notifier.stop();
});

Deno.test("Notifier: what comes due inside a window is held and sent when it closes", async () => {
  const { clock, sent, notifier } = rig([HOOK], { pending: new Set(["s r1", "s r2", "t r3"]) });
  notifier.start();
  notifier.notice("approval.requested", { sessionId: "s", requestId: "r1" });
  await flush();
  await clock.advance(5_000);
  notifier.notice("approval.requested", { sessionId: "s", requestId: "r2" });
  notifier.notice("approval.requested", { sessionId: "t", requestId: "r3" });
  await flush();
  await clock.advance(200_000);
  await flush();
  assert.deepEqual(sent.map((s) => [s.at, s.notification.title]), [
    [20_000, "claude in shop (fix login) needs approval: Bash"],
    [80_000, "2 approvals waiting in 2 sessions"],
  ]);
  await notifier.stop();
});

Deno.test("Notifier: turn.finished goes only to a channel that asks for it", async () => {
  const { sent, notifier } = rig([HOOK, TURNS]);
  notifier.start();
  notifier.notice("session.updated", { sessionId: "s", status: "running", activity: "working" });
  notifier.notice("session.updated", { sessionId: "s", status: "running", activity: "idle" });
  notifier.notice("session.progress", { sessionId: "s", lastSeq: 3 });
  await flush();
  assert.deepEqual(sent.map((s) => [s.channel, s.notification.event, s.notification.body]), [
    ["turns", "turn.finished", "done"],
  ]);
  await notifier.stop();
});

Deno.test("Notifier: a failing source is logged, never thrown into the feed", async () => {
  const { sent, errors, notifier } = rig([HOOK], {
    overrides: {
      session: () => {
        throw new Error("store gone");
      },
    },
  });
  notifier.start();
  notifier.notice("session.updated", { sessionId: "s", status: "failed", activity: null });
  await flush();
  assert.equal(sent.length, 0);
  assert.equal(errors.length, 1);
  assert.equal((errors[0] as { kind: string }).kind, "session.updated");
  await notifier.stop();
});

Deno.test("Notifier without channels does nothing and keeps no timer", async () => {
  const { clock, sent, notifier } = rig([], { pending: new Set(["s r1"]) });
  notifier.start();
  notifier.notice("approval.requested", { sessionId: "s", requestId: "r1" });
  await flush();
  assert.equal(clock.pending, 0);
  await clock.advance(60_000);
  assert.equal(sent.length, 0);
  await notifier.stop();
});

Deno.test("Notifier.test() sends now to the chosen channels and says how each went", async () => {
  const { sent, notifier } = rig([HOOK, TURNS]);
  const results = await notifier.test([notifier.channels[1]]);
  assert.deepEqual(results.map((r) => [r.channel, r.event, r.status]), [["turns", "test", "sent"]]);
  assert.equal(sent[0].notification.url, "https://box.example/#/attention");
  assert.equal((await notifier.test([])).length, 2, "no choice is every channel");
  await notifier.stop();
});

Deno.test("Notifier.stop() ends its timer: nothing comes due after", async () => {
  const { clock, sent, notifier } = rig([HOOK], { pending: new Set(["s r1"]) });
  notifier.start();
  notifier.notice("approval.requested", { sessionId: "s", requestId: "r1" });
  await flush();
  await notifier.stop();
  assert.equal(clock.pending, 0);
  notifier.notice("approval.requested", { sessionId: "s", requestId: "r1" });
  await clock.advance(60_000);
  await flush();
  assert.equal(sent.length, 0);
});
