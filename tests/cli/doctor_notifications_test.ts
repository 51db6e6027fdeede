import assert from "node:assert/strict";
import { notificationLines } from "../../src/cli/doctor_notifications.ts";

const found = { program: "notify-send", path: "/usr/bin/notify-send" };

Deno.test("notificationLines() marks a channel whose last delivery failed, and a missing desktop program", () => {
  const config = {
    afterSeconds: 20,
    channels: [{ kind: "desktop" as const }, { kind: "webhook" as const, url: "https://x/t0k" }],
  };
  const lines = notificationLines(config, { ...found, path: null }, [
    { channel: "#1 desktop", kind: "desktop", last: null },
    {
      channel: "#2 webhook",
      kind: "webhook",
      last: { status: "failed", at: "2026-03-01T10:00:00.000Z", error: "answered HTTP 500" },
    },
  ]);
  assert.deepEqual(lines.map((l) => [l.subject, l.mark]), [
    ["desktop", "fail"],
    ["#1 desktop", "ok"],
    ["#2 webhook", "fail"],
  ]);
  assert.match(lines[2].text, /answered HTTP 500/);
  assert.ok(!JSON.stringify(lines).includes("t0k"));
  assert.deepEqual(
    notificationLines({ afterSeconds: 20, channels: [] }, found, null).map((l) => l.mark),
    ["ok", "ok"],
  );
});
