import assert from "node:assert/strict";
import type { Notification } from "../../src/notify/content.ts";
import { headerText, webhookRequest } from "../../src/notify/webhook_format.ts";

const notification: Notification = {
  event: "session.failed",
  title: "codex in api (x) failed",
  body: "boom <@channel>",
  sessionId: "ses_1",
  harness: "codex",
  project: "api",
  url: null,
  at: "2026-03-01T10:00:00.000Z",
};

Deno.test("webhookRequest() shapes json, ntfy and slack (D31)", () => {
  assert.deepEqual(JSON.parse(webhookRequest("json", notification).body), notification);
  const ntfy = webhookRequest("ntfy", notification);
  assert.deepEqual(ntfy.headers, {
    "content-type": "text/plain; charset=utf-8",
    Title: "codex in api (x) failed",
    Tags: "svc,session.failed",
    Priority: "4",
  });
  assert.equal(ntfy.body, "boom <@channel>");
  assert.deepEqual(JSON.parse(webhookRequest("slack", notification).body), {
    text: "*codex in api (x) failed*\nboom &lt;@channel&gt;",
  });
});

Deno.test("headerText() keeps ASCII and encodes the rest as an RFC 2047 word", () => {
  assert.equal(headerText("plain"), "plain");
  assert.equal(headerText("é"), "=?UTF-8?B?w6k=?=");
});
