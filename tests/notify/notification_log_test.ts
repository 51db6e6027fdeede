/** The notification log (D31): newest first, bounded at 500, each channel's last outcome. */
import assert from "node:assert/strict";
import {
  MAX_LOG_ENTRIES,
  NotificationLog,
  type NotificationLogEntry,
} from "../../src/notify/notification_log.ts";

function entry(
  title: string,
  channel = "hook",
  status: NotificationLogEntry["status"] = "sent",
): Omit<NotificationLogEntry, "at"> {
  return {
    event: "approval.waiting",
    sessionId: "ses_1",
    channel,
    status,
    error: status === "sent" ? null : "answered HTTP 500",
    attempts: status === "dropped" ? 0 : 1,
    title,
  };
}

Deno.test("NotificationLog keeps the newest 500, newest first", () => {
  const log = new NotificationLog();
  for (let i = 0; i <= MAX_LOG_ENTRIES; i++) log.add(i * 1000, entry(`n${i}`));
  const all = log.list();
  assert.equal(MAX_LOG_ENTRIES, 500);
  assert.equal(all.length, 500);
  assert.equal(all[0].title, "n500");
  assert.equal(all.at(-1)!.title, "n1", "the oldest (n0) is gone");
  assert.ok(!all.some((e) => e.title === "n0"));
  assert.deepEqual(log.list(2).map((e) => e.title), ["n500", "n499"]);
});

Deno.test("NotificationLog.add() stamps the time and returns the entry as listed", () => {
  const log = new NotificationLog();
  const added = log.add(Date.parse("2026-03-01T10:00:20Z"), entry("one"));
  assert.deepEqual(added, { at: "2026-03-01T10:00:20.000Z", ...entry("one") });
  assert.deepEqual(log.list(), [added]);
});

Deno.test("NotificationLog.channels() is each channel's last outcome, in order of first use", () => {
  const log = new NotificationLog();
  log.add(1_000, entry("a", "phone"));
  log.add(2_000, entry("b", "desk", "failed"));
  log.add(3_000, entry("c", "phone", "dropped"));
  assert.deepEqual(log.channels(), [
    {
      channel: "phone",
      status: "dropped",
      at: "1970-01-01T00:00:03.000Z",
      error: "answered HTTP 500",
    },
    {
      channel: "desk",
      status: "failed",
      at: "1970-01-01T00:00:02.000Z",
      error: "answered HTTP 500",
    },
  ]);
});

Deno.test("NotificationLog's channel health outlives the entries that rolled out", () => {
  const log = new NotificationLog();
  log.add(0, entry("old", "rare", "failed"));
  for (let i = 0; i < MAX_LOG_ENTRIES; i++) log.add(1, entry(`n${i}`));
  assert.ok(!log.list().some((e) => e.channel === "rare"));
  assert.equal(log.channels().find((c) => c.channel === "rare")?.status, "failed");
});
