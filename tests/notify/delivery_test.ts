/**
 * Delivery (D31) on a fake clock: each channel's bounded queue (the oldest
 * waiting notification is dropped, and logged, past 50), the 5 s try timeout
 * and the 1 s / 4 s backoff of three tries, a try still in flight past its
 * timeout tried again, and stop. Time moves only when the test says.
 */
import assert from "node:assert/strict";
import type { ChannelSender } from "../../src/notify/channel_sender.ts";
import type { Notification } from "../../src/notify/content.ts";
import {
  Delivery,
  type LabelledChannel,
  MAX_QUEUED_PER_CHANNEL,
  RETRY_DELAYS_MS,
  TRY_TIMEOUT_MS,
} from "../../src/notify/delivery.ts";
import { NotificationLog } from "../../src/notify/notification_log.ts";
import { silentLogger } from "../../src/log.ts";
import { FakeClock } from "../fakes/clock.ts";

const HOOK: LabelledChannel = { channel: { kind: "webhook", url: "http://hook" }, label: "hook" };

function notification(title: string): Notification {
  return {
    event: "approval.waiting",
    title,
    body: "ls",
    sessionId: "ses_1",
    harness: "claude",
    project: "shop",
    url: null,
    at: "2026-03-01T10:00:00.000Z",
  };
}

/** A sender whose every try waits for the test: `release(i)` resolves the i-th, `fail(i)` rejects it. */
function heldSender(clock: FakeClock) {
  const tries: { title: string; at: number; signal: AbortSignal }[] = [];
  const outcomes: PromiseWithResolvers<void>[] = [];
  const send: ChannelSender = (_channel, sent, signal) => {
    tries.push({ title: sent.title, at: clock.now(), signal });
    const outcome = Promise.withResolvers<void>();
    outcomes.push(outcome);
    return outcome.promise;
  };
  return {
    send,
    tries,
    release: (i: number) => outcomes[i].resolve(),
    fail: (i: number, message: string) => outcomes[i].reject(new Error(message)),
  };
}

/** Lets promise chains run (no timer of the code under test is real). */
async function flush(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setTimeout(resolve, 0));
}

/** A delivery on a fake clock at 0, its log and a held sender. */
function setup() {
  const clock = new FakeClock(0);
  const sender = heldSender(clock);
  const log = new NotificationLog();
  const delivery = new Delivery({ clock, send: sender.send, log, logger: silentLogger });
  return { clock, sender, log, delivery };
}

Deno.test("Delivery drops the oldest waiting notification past 50 and logs it as dropped", async () => {
  const { sender, log, delivery } = setup();
  // #0 is being sent at once; #1..#50 fill the queue; #51 pushes out #1.
  for (let i = 0; i <= MAX_QUEUED_PER_CHANNEL + 1; i++) {
    delivery.enqueue(HOOK, notification(`#${i}`));
  }
  assert.deepEqual(sender.tries.map((t) => t.title), ["#0"]);
  assert.deepEqual(log.list(), [{
    at: "1970-01-01T00:00:00.000Z",
    event: "approval.waiting",
    sessionId: "ses_1",
    channel: "hook",
    status: "dropped",
    error: "the channel's queue was full",
    attempts: 0,
    title: "#1",
  }]);

  for (let i = 0; i <= MAX_QUEUED_PER_CHANNEL; i++) {
    await flush();
    sender.release(i);
  }
  await flush();
  assert.deepEqual(
    sender.tries.map((t) => t.title),
    ["#0", ...Array.from({ length: MAX_QUEUED_PER_CHANNEL }, (_, i) => `#${i + 2}`)],
    "the rest are sent once each, in order",
  );
  const statuses = log.list().map((entry) => entry.status);
  assert.equal(statuses.filter((s) => s === "sent").length, MAX_QUEUED_PER_CHANNEL + 1);
  assert.equal(statuses.filter((s) => s === "dropped").length, 1);
  await delivery.stop();
});

Deno.test("Delivery's queues are per channel: a hung channel holds only its own", async () => {
  const { sender, log, delivery } = setup();
  const other: LabelledChannel = { channel: { kind: "desktop" }, label: "desk" };
  for (let i = 0; i < MAX_QUEUED_PER_CHANNEL + 1; i++) {
    delivery.enqueue(HOOK, notification(`h${i}`));
  }
  delivery.enqueue(other, notification("d"));
  assert.deepEqual(sender.tries.map((t) => t.title), ["h0", "d"]);
  assert.deepEqual(log.list(), [], "50 waiting behind one in flight is not past the bound");
  await delivery.stop();
});

Deno.test("Delivery cuts a try after 5 s and tries again after 1 s then 4 s: three tries, then failed", async () => {
  const { clock, sender, log, delivery } = setup(); // Never answers, as a hung receiver.
  delivery.enqueue(HOOK, notification("hung"));
  await clock.advance(TRY_TIMEOUT_MS - 1);
  assert.equal(sender.tries.length, 1);
  assert.equal(sender.tries[0].signal.aborted, false);
  await clock.advance(1);
  await flush();
  assert.equal(sender.tries[0].signal.aborted, true, "the timed-out try is aborted");
  await clock.advance(60_000);
  await flush();
  assert.deepEqual(sender.tries.map((t) => t.at), [
    0,
    TRY_TIMEOUT_MS + RETRY_DELAYS_MS[0],
    2 * TRY_TIMEOUT_MS + RETRY_DELAYS_MS[0] + RETRY_DELAYS_MS[1],
  ]);
  assert.deepEqual(sender.tries.map((t) => t.at), [0, 6_000, 15_000]);
  const [entry] = log.list();
  assert.deepEqual(
    [log.list().length, entry.status, entry.error, entry.attempts, entry.at],
    [1, "failed", "timed out", 3, "1970-01-01T00:00:20.000Z"],
  );
  await delivery.stop();
});

Deno.test("Delivery: a try answered after its timeout has already been tried again (at least once)", async () => {
  // What a fake clock that jumps past 5 s does to a request still in flight.
  const { clock, sender, log, delivery } = setup();
  delivery.enqueue(HOOK, notification("slow"));
  await clock.advance(TRY_TIMEOUT_MS + RETRY_DELAYS_MS[0]);
  await flush();
  sender.release(0); // The late answer to the first try changes nothing.
  sender.release(1);
  await flush();
  assert.equal(sender.tries.length, 2);
  assert.deepEqual(
    log.list().map((e) => [e.status, e.attempts, e.at]),
    [["sent", 2, "1970-01-01T00:00:06.000Z"]],
  );
  await delivery.stop();
});

Deno.test("Delivery logs the last failure's reason, and a later success with its attempt", async () => {
  const { clock, sender, log, delivery } = setup();
  delivery.enqueue(HOOK, notification("flaky"));
  sender.fail(0, "answered HTTP 500");
  await flush();
  await clock.advance(RETRY_DELAYS_MS[0] - 1);
  assert.equal(sender.tries.length, 1, "no try before the backoff");
  await clock.advance(1);
  await flush();
  sender.release(1);
  await flush();
  assert.deepEqual(sender.tries.map((t) => t.at), [0, RETRY_DELAYS_MS[0]]);
  assert.deepEqual(log.list().map((e) => [e.status, e.error, e.attempts]), [["sent", null, 2]]);

  delivery.enqueue(HOOK, notification("broken"));
  for (const [i, backoff] of [[2, RETRY_DELAYS_MS[0]], [3, RETRY_DELAYS_MS[1]], [4, 0]]) {
    await flush();
    sender.fail(i, `answered HTTP 50${i}`);
    await flush();
    await clock.advance(backoff);
  }
  await flush();
  assert.deepEqual(sender.tries.slice(2).map((t) => t.at), [1_000, 2_000, 6_000]);
  assert.deepEqual(
    log.list()[0],
    {
      at: "1970-01-01T00:00:06.000Z",
      event: "approval.waiting",
      sessionId: "ses_1",
      channel: "hook",
      status: "failed",
      error: "answered HTTP 504",
      attempts: 3,
      title: "broken",
    },
  );
  await delivery.stop();
});

Deno.test("Delivery.stop() aborts the try in flight, sends nothing queued and takes no more", async () => {
  const { clock, sender, log, delivery } = setup();
  delivery.enqueue(HOOK, notification("in flight"));
  delivery.enqueue(HOOK, notification("queued"));
  await delivery.stop();
  delivery.enqueue(HOOK, notification("after"));
  assert.deepEqual(sender.tries.map((t) => t.title), ["in flight"]);
  assert.equal(sender.tries[0].signal.aborted, true);
  assert.deepEqual(
    log.list().map((e) => [e.title, e.status, e.error, e.attempts]),
    [["in flight", "failed", "the daemon stopped", 1]],
  );
  assert.equal(clock.pending, 0, "no sleep is left behind");
});

Deno.test("Delivery.deliver() sends now, past the queue, and says how it went", async () => {
  const { sender, delivery } = setup();
  const outcome = delivery.deliver(HOOK, notification("test"));
  sender.release(0);
  assert.deepEqual(
    [(await outcome).status, (await outcome).attempts, (await outcome).title],
    ["sent", 1, "test"],
  );
  await delivery.stop();
});
