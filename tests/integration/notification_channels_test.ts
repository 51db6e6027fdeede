/**
 * Webhook channels through the real daemon (issue 35, D31): the ntfy and
 * slack shapes; a receiver that hangs or answers 500 never slows `/health`,
 * and after three tries the failure is in the log and in `svc notifications
 * log`. Time is a fake clock (timeouts and backoff included).
 */
import assert from "node:assert/strict";
import { basename } from "node:path";
import { removeTree } from "../helpers/home.ts";
import { notifyingDaemon, settle } from "../helpers/notifying_daemon.ts";
import { runSvc } from "../helpers/process.ts";
import { launchAgent, waitForKind } from "../helpers/scripted_agent.ts";
import { startReceiver } from "../helpers/webhook_receiver.ts";

type Json = Record<string, unknown>;

Deno.test("ntfy gets the body as text with Title, Tags, Priority and Click; slack gets { text } (D31)", async () => {
  await using ntfy = startReceiver();
  await using slack = startReceiver();
  const { clock, project, t } = await notifyingDaemon([
    { kind: "webhook", url: `${ntfy.url}/svc-topic`, format: "ntfy" },
    { kind: "webhook", url: slack.url, format: "slack" },
  ], 5);
  await using _ = t;
  try {
    const id = await launchAgent(t, project, {
      title: "<b>ünïcode</b> & co",
      approvals: "ask",
      prompt: "ask Bash rm -rf build",
    });
    await waitForKind(t, id, "agent.permission");
    await settle();
    await clock.advance(6_000);
    const [pushed] = await ntfy.waitFor(1);
    const title = `agent in ${basename(project)} (<b>ünïcode</b> & co) needs approval: Bash`;
    assert.equal(pushed.path, "/svc-topic");
    assert.equal(pushed.body, "rm -rf build");
    const encoded = pushed.headers.get("title")!;
    assert.match(encoded, /^=\?UTF-8\?B\?[A-Za-z0-9+/=]+\?=$/);
    const bytes = Uint8Array.from(atob(encoded.slice(10, -2)), (c) => c.charCodeAt(0));
    assert.equal(new TextDecoder().decode(bytes), title);
    assert.equal(pushed.headers.get("tags"), "svc,approval.waiting");
    assert.equal(pushed.headers.get("priority"), "4");
    assert.equal(pushed.headers.get("click"), `https://box.example.ts.net/#/s/${id}`);

    const [posted] = await slack.waitFor(1);
    assert.equal(posted.headers.get("content-type"), "application/json");
    assert.deepEqual(JSON.parse(posted.body), {
      text:
        `*agent in ${
          basename(project)
        } (&lt;b&gt;ünïcode&lt;/b&gt; &amp; co) needs approval: Bash*\nrm -rf build\n` +
        `<https://box.example.ts.net/#/s/${id}|Open in svc>`,
    });
  } finally {
    await removeTree(project);
  }
});

Deno.test("a receiver that hangs or answers 500 leaves /health answering; three tries, then the failure is logged (D31)", async () => {
  await using hung = startReceiver("hang");
  await using broken = startReceiver("error");
  const { clock, project, t } = await notifyingDaemon([
    { kind: "webhook", url: `${hung.url}/?token=hidden-token`, name: "hung" },
    { kind: "webhook", url: broken.url, name: "broken" },
  ], 5);
  await using _ = t;
  try {
    const id = await launchAgent(t, project, { approvals: "ask" });
    await waitForKind(t, id, "agent.permission");
    await settle();
    await clock.advance(6_000);
    await hung.waitFor(1);
    await broken.waitFor(1);
    // Health answers while the receiver still holds its request: the best of three
    // answers in under 200 ms (one slow answer on a loaded machine is not the notifier's).
    const timings: number[] = [];
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      const health = await t.client.get<Json>("/health");
      timings.push(performance.now() - started);
      assert.equal(health.status, 200);
    }
    assert.equal(hung.hanging, 1, "the receiver is still hung");
    assert.ok(Math.min(...timings) < 200, `/health took ${timings.join(", ")} ms`);

    // Tries time out after 5 s, the next ones follow after 1 s and 4 s of backoff.
    const entries =
      async () => ((await t.client.get<{ entries: Json[] }>("/notifications")).body.entries);
    const deadline = Date.now() + 20_000;
    while ((await entries()).length < 2) {
      assert.ok(Date.now() < deadline, "both channels end in the log");
      await clock.advance(1_000);
      await settle(50);
    }
    const byChannel = Object.fromEntries((await entries()).map((e) => [e.channel, e]));
    assert.deepEqual(
      [byChannel.hung.status, byChannel.hung.error, byChannel.hung.attempts],
      ["failed", "timed out", 3],
    );
    assert.deepEqual(
      [byChannel.broken.status, byChannel.broken.error, byChannel.broken.attempts],
      ["failed", "answered HTTP 500", 3],
    );
    assert.equal(hung.received.length, 3);
    assert.equal(broken.received.length, 3);
    const daemonLog = await Deno.readTextFile(t.daemon.paths.logFile);
    assert.match(daemonLog, /Notification failed/);
    assert.ok(!daemonLog.includes("hidden-token"), "the webhook URL is never logged");

    const logged = await runSvc(["notifications", "log", "--home", t.home], { NO_COLOR: "1" });
    assert.equal(logged.code, 0, logged.stderr);
    assert.match(
      logged.stdout,
      /approval\.waiting\s+ses_\S+\s+broken\s+failed\s+answered HTTP 500/,
    );
    assert.match(logged.stdout, /hung\s+failed\s+timed out/);
    assert.ok(!logged.stdout.includes("hidden-token"));
  } finally {
    await removeTree(project);
  }
});
