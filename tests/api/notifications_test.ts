/**
 * The notification routes (D31) through the handler: `GET /notifications`
 * shows channels by label with their events and last outcome, never a URL
 * or command, clamps `limit`; `POST /notifications/test` is the owner's,
 * picks a channel by name or 1-based index and refuses an unknown one.
 */
import assert from "node:assert/strict";
import { createHandler } from "../../src/api/app.ts";
import { notificationRoutes } from "../../src/api/notifications.ts";
import type { LabelledChannel } from "../../src/notify/delivery.ts";
import { NOTIFICATION_EVENTS } from "../../src/notify/notification_config.ts";
import { NotificationLog, type NotificationLogEntry } from "../../src/notify/notification_log.ts";
import { silentLogger } from "../../src/log.ts";
import { tcpPeer, UNIX_PEER } from "../../src/policy/peer.ts";

type Json = Record<string, unknown>;

const CHANNELS: LabelledChannel[] = [
  {
    channel: {
      kind: "webhook",
      url: "https://ntfy.example/topic?token=s3cret",
      format: "ntfy",
      name: "phone",
    },
    label: "phone",
  },
  {
    channel: {
      kind: "command",
      command: ["/home/me/bin/notify", "--key=s3cret"],
      events: ["turn.finished"],
    },
    label: "#2 command",
  },
];

function rig(channels = CHANNELS) {
  const log = new NotificationLog();
  const tested: string[][] = [];
  const handler = createHandler(
    notificationRoutes({
      channels: () => channels,
      log,
      test: (chosen) => {
        tested.push(chosen.map((c) => c.label));
        return Promise.resolve(chosen.map((c): NotificationLogEntry => ({
          at: "2026-03-01T10:00:00.000Z",
          event: "test",
          sessionId: null,
          channel: c.label,
          status: "sent",
          error: null,
          attempts: 1,
          title: "svc test notification",
        })));
      },
    }),
    { log: silentLogger },
  );
  return { log, tested, handler };
}

const get = (path: string) => new Request(`http://localhost/api/v1${path}`);
const post = (body: Json) =>
  new Request("http://localhost/api/v1/notifications/test", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });

Deno.test("GET /notifications lists channels by label, their events and last outcome, no secret", async () => {
  const { log, handler } = rig();
  log.add(Date.parse("2026-03-01T10:00:20Z"), {
    event: "approval.waiting",
    sessionId: "ses_1",
    channel: "phone",
    status: "failed",
    error: "answered HTTP 500",
    attempts: 3,
    title: "t",
  });
  const response = await handler(get("/notifications"), UNIX_PEER);
  assert.equal(response.status, 200);
  const text = await response.text();
  assert.ok(
    !text.includes("s3cret") && !text.includes("ntfy.example") && !text.includes("/home/me"),
  );
  const body = JSON.parse(text);
  assert.deepEqual(body.channels, [
    {
      channel: "phone",
      kind: "webhook",
      format: "ntfy",
      events: NOTIFICATION_EVENTS.filter((event) => event !== "turn.finished"),
      last: { status: "failed", at: "2026-03-01T10:00:20.000Z", error: "answered HTTP 500" },
    },
    { channel: "#2 command", kind: "command", format: null, events: ["turn.finished"], last: null },
  ]);
  assert.deepEqual(body.entries.map((e: Json) => [e.channel, e.status, e.attempts]), [[
    "phone",
    "failed",
    3,
  ]]);
});

Deno.test("GET /notifications?limit= takes the newest, clamped; no integer is 400", async () => {
  const { log, handler } = rig();
  for (let i = 0; i < 150; i++) {
    log.add(i, {
      event: "test",
      sessionId: null,
      channel: "phone",
      status: "sent",
      error: null,
      attempts: 1,
      title: `n${i}`,
    });
  }
  const byDefault = await (await handler(get("/notifications"), UNIX_PEER)).json();
  assert.equal(byDefault.entries.length, 100);
  const two = await (await handler(get("/notifications?limit=2"), UNIX_PEER)).json();
  assert.deepEqual(two.entries.map((e: Json) => e.title), ["n149", "n148"]);
  // C4.2 clamps a limit out of range, and refuses one that is no integer.
  const zero = await (await handler(get("/notifications?limit=0"), UNIX_PEER)).json();
  assert.deepEqual(zero.entries.map((e: Json) => e.title), ["n149"]);
  const many = await (await handler(get("/notifications?limit=9999"), UNIX_PEER)).json();
  assert.equal(many.entries.length, 150);
  const bad = await handler(get("/notifications?limit=ten"), UNIX_PEER);
  assert.equal(bad.status, 400);
  await bad.body?.cancel();
});

Deno.test("POST /notifications/test picks every channel, one by name, or one by 1-based index", async () => {
  const { tested, handler } = rig();
  const all = await handler(post({}), UNIX_PEER);
  assert.equal(all.status, 200);
  assert.deepEqual((await all.json()).results.map((r: Json) => r.channel), ["phone", "#2 command"]);
  await (await handler(post({ channel: "phone" }), UNIX_PEER)).body?.cancel();
  await (await handler(post({ channel: "2" }), UNIX_PEER)).body?.cancel();
  assert.deepEqual(tested, [["phone", "#2 command"], ["phone"], ["#2 command"]]);
});

Deno.test("POST /notifications/test refuses an unknown channel, none configured, and a TCP peer", async () => {
  const { tested, handler } = rig();
  for (const channel of ["3", "0", "tablet"]) {
    const response = await handler(post({ channel }), UNIX_PEER);
    assert.equal(response.status, 400);
    const { error } = await response.json();
    assert.equal(error.code, "invalid_request");
    assert.match(error.message, /use a name or an index from 1 to 2/);
  }
  const none = await rig([]).handler(post({}), UNIX_PEER);
  assert.equal(none.status, 400);
  assert.match((await none.json()).error.message, /No notification channel is configured/);
  const tcp = await handler(post({}), tcpPeer("127.0.0.1", 1));
  assert.equal(tcp.status, 403);
  await tcp.body?.cancel();
  assert.deepEqual(tested, [], "nothing was sent");
});
