import assert from "node:assert/strict";
import {
  describe,
  MAX_BODY_CHARS,
  type NotifyTrigger,
  plainText,
  summarize,
} from "../../src/notify/content.ts";

const base: NotifyTrigger = {
  event: "approval.waiting",
  sessionId: "ses_01J9ZK3MABCDEFGHJKMNPQRSTV",
  harness: "claude",
  sessionTitle: "",
  projectRoot: "/home/me/shop",
  reason: "needs approval: Bash",
  detail: "git push",
  at: Date.parse("2026-03-01T10:00:00Z"),
};

Deno.test("describe() names harness, project, session and reason, and links the web face", () => {
  assert.deepEqual(describe(base, "https://box.ts.net"), {
    event: "approval.waiting",
    title: "claude in shop (ses_01J9ZK3M) needs approval: Bash",
    body: "git push",
    sessionId: base.sessionId,
    harness: "claude",
    project: "shop",
    url: `https://box.ts.net/#/s/${base.sessionId}`,
    at: "2026-03-01T10:00:00.000Z",
  });
  assert.equal(describe(base, null).url, null);
});

Deno.test("plainText() redacts, escapes invisible characters and bounds the text", () => {
  const secret = "sk-ant-api03-" + "a".repeat(90) + "AA";
  assert.ok(!plainText(`key ${secret}`, 300).includes(secret));
  assert.equal(plainText("a\u202eb\u200bc\nd", 300), "a<U+202E>b<U+200B>c<U+000A>d");
  assert.equal(plainText("a\nb", 300, { keepNewlines: true }), "a\nb");
  const long = describe({ ...base, detail: "x".repeat(1000) }, null).body;
  assert.equal([...long].length, MAX_BODY_CHARS);
  assert.ok(long.endsWith("…"));
});

Deno.test("summarize() counts the events and the sessions", () => {
  const other = { ...base, sessionId: "ses_02", projectRoot: "/home/me/web" };
  assert.equal(summarize([base, base, other], null).title, "3 approvals waiting in 2 sessions");
  assert.equal(
    summarize([base, base], null).title,
    "claude in shop (ses_01J9ZK3M): 2 approvals waiting",
  );
  assert.equal(
    summarize(
      [{ ...base, event: "session.failed" }, { ...other, event: "session.failed" }],
      "https://b",
    )
      .url,
    "https://b/#/attention",
  );
});
