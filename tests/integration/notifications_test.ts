/**
 * Notifications through the real daemon (issue 35, D31): a local receiver
 * gets one POST per request still unanswered after `afterSeconds`, naming the
 * harness, session, project and command (its secret redacted) with the web
 * face's link; a burst coalesces; a turn finished while a face has the
 * session in focus is not notified; a working session gone silent is. Time
 * is a fake clock: it jumps only once a delivery's outcome is logged, since a
 * try still in flight past its 5 s timeout is (rightly) tried again.
 */
import assert from "node:assert/strict";
import { basename } from "node:path";
import type { TestDaemon } from "../helpers/daemon.ts";
import { removeTree } from "../helpers/home.ts";
import {
  hookedDaemon,
  notifyingDaemon,
  ORIGIN,
  settle,
  waitForLogged,
} from "../helpers/notifying_daemon.ts";
import { act, launchAgent, waitForKind } from "../helpers/scripted_agent.ts";
import { startReceiver } from "../helpers/webhook_receiver.ts";
import { tcpPeer } from "../../src/policy/peer.ts";

type Json = Record<string, unknown>;

const SECRET = "ghp_" + "a1B2c3D4".repeat(4) + "e5F6";

async function log(t: TestDaemon): Promise<Json> {
  return (await t.client.get<Json>("/notifications")).body;
}

Deno.test("an approval unanswered after afterSeconds is one POST naming the session, project, command and link (D31)", async () => {
  await using receiver = startReceiver();
  const { clock, project, t } = await notifyingDaemon([
    { kind: "webhook", url: `${receiver.url}/hook?token=s3cret-token`, name: "phone" },
  ], 20);
  await using _ = t;
  try {
    const asking = await launchAgent(t, project, {
      title: "fix login",
      approvals: "ask",
      prompt: `ask Bash curl -H "Authorization: token ${SECRET}" https://api.github.com/user`,
    });
    await waitForKind(t, asking, "agent.permission");
    // A request answered in time is never notified.
    const answered = await launchAgent(t, project, { approvals: "ask" });
    const [request] = await waitForKind(t, answered, "agent.permission");
    await settle();
    await clock.advance(19_000);
    await settle();
    assert.equal(receiver.received.length, 0, "nothing before afterSeconds");
    const approved = await act(t, "svc.sessions.approve", {
      sessionId: answered,
      requestId: request.requestId,
      decision: "allow",
    });
    assert.equal(approved.ok, true, JSON.stringify(approved));
    // Its turn ends before the clock jumps minutes: a session working that long is stalled.
    await waitForKind(t, answered, "agent.turn");
    await clock.advance(2_000);
    const [post] = await receiver.waitFor(1);
    assert.equal(post.path, "/hook?token=s3cret-token");
    assert.equal(post.headers.get("content-type"), "application/json");
    const body = JSON.parse(post.body);
    assert.deepEqual(Object.keys(body), [
      "event",
      "title",
      "body",
      "sessionId",
      "harness",
      "project",
      "url",
      "at",
    ]);
    assert.deepEqual({ ...body, body: undefined }, {
      event: "approval.waiting",
      title: `agent in ${basename(project)} (fix login) needs approval: Bash`,
      body: undefined,
      sessionId: asking,
      harness: "agent",
      project: basename(project),
      url: `${ORIGIN}/#/s/${asking}`,
      at: "2026-03-01T10:00:20.000Z",
    });
    assert.match(
      body.body,
      /^curl -H "Authorization: token \S+" https:\/\/api\.github\.com\/user$/,
    );
    assert.ok(!post.body.includes(SECRET), "the token in the command never reaches the receiver");
    assert.doesNotMatch(body.body, /ghp_/);

    await waitForLogged(t, 1);
    await clock.advance(120_000);
    await settle();
    assert.equal(
      receiver.received.length,
      1,
      `one POST per unanswered request: ${receiver.received.map((r) => r.body).join("\n")}`,
    );
    const answer = await log(t);
    assert.ok(!JSON.stringify(answer).includes("s3cret"), "the webhook URL is never served");
    assert.deepEqual(answer.channels, [{
      channel: "phone",
      kind: "webhook",
      format: "json",
      events: [
        "approval.waiting",
        "session.failed",
        "session.stalled",
        "session.parked",
        "routine.result",
        "land.finished",
      ],
      last: { status: "sent", at: ((answer.channels as Json[])[0].last as Json).at, error: null },
    }]);
    const [entry] = answer.entries as Json[];
    assert.deepEqual(
      [entry.event, entry.sessionId, entry.channel, entry.status, entry.error, entry.attempts],
      ["approval.waiting", asking, "phone", "sent", null, 1],
    );
  } finally {
    await removeTree(project);
  }
});

Deno.test("a burst of 20 permission requests is one notification (D31 coalescing)", async () => {
  await using rig = await hookedDaemon(20);
  const { clock, project, t, receiver } = rig;
  const id = await launchAgent(t, project, {
    title: "burst",
    approvals: "ask",
    prompt: "askmany 20 Bash echo",
  });
  await waitForKind(t, id, "agent.permission", 20);
  await settle();
  await clock.advance(21_000);
  const [post] = await receiver.waitFor(1);
  const body = JSON.parse(post.body);
  assert.equal(body.title, `agent in ${basename(project)} (burst): 20 approvals waiting`);
  assert.equal(body.sessionId, id);
  assert.deepEqual(
    body.body.split("\n").sort(),
    Array.from({ length: 20 }, (_, i) => `echo ${i + 1}`).sort(),
  );
  assert.ok([...body.body].length <= 300);
  await waitForLogged(t, 1);
  await clock.advance(120_000);
  await settle();
  assert.equal(receiver.received.length, 1);
});

Deno.test("turn.finished is not sent while a face has the session in focus (D31)", async () => {
  await using receiver = startReceiver();
  const { clock, project, t } = await notifyingDaemon([
    { kind: "webhook", url: receiver.url, events: ["turn.finished"] },
  ], 20);
  await using _ = t;
  const watching = new AbortController();
  try {
    const watched = await launchAgent(t, project, { title: "watched", approvals: "ask" });
    const [request] = await waitForKind(t, watched, "agent.permission");
    // What svc ui does for the session it shows: follow its stream with focus=1.
    const stream = t.client.streamSessionEvents(watched, { focus: true, signal: watching.signal })[
      Symbol.asyncIterator
    ]();
    await stream.next(); // Open: the session is in focus.
    await act(t, "svc.sessions.approve", {
      sessionId: watched,
      requestId: request.requestId,
      decision: "allow",
    });
    await waitForKind(t, watched, "agent.turn");
    await settle();
    const unwatched = await launchAgent(t, project, { title: "unwatched", prompt: "hello" });
    const [post] = await receiver.waitFor(1);
    const body = JSON.parse(post.body);
    assert.equal(body.event, "turn.finished");
    assert.equal(body.sessionId, unwatched, "the watched session's turn was not notified");
    assert.equal(body.title, `agent in ${basename(project)} (unwatched) finished its turn`);
    assert.equal(body.body, "echo: hello");
    await waitForLogged(t, 1);
    await clock.advance(61_000);
    await settle();
    assert.equal(receiver.received.length, 1);
  } finally {
    watching.abort();
    await removeTree(project);
  }
});

Deno.test("a working session silent for ui.stalledAfterSeconds is one session.stalled POST (D31)", async () => {
  await using rig = await hookedDaemon(20);
  const { clock, project, t, receiver } = rig;
  const id = await launchAgent(t, project, { title: "silent", prompt: "hang" });
  await waitForKind(t, id, "agent.message");
  assert.equal((await t.client.get<Json>(`/sessions/${id}`)).body.activity, "working");
  await settle();
  await clock.advance(119_000);
  await settle();
  assert.equal(receiver.received.length, 0, "not before the default 120 s");
  await clock.advance(2_000);
  const [post] = await receiver.waitFor(1);
  const body = JSON.parse(post.body);
  assert.equal(body.event, "session.stalled");
  assert.equal(body.sessionId, id);
  assert.equal(
    body.title,
    `agent in ${basename(project)} (silent) is stalled: no event for 120 s`,
  );
  await waitForLogged(t, 1);
  await clock.advance(600_000);
  await settle();
  assert.equal(receiver.received.length, 1, "a stall is told once while it lasts");
});

Deno.test("focus=1 over TCP is refused: it changes what the owner is told (D23, D31)", async () => {
  const { project, t } = await notifyingDaemon([], 20);
  await using _ = t;
  try {
    const id = await launchAgent(t, project, { prompt: "hello" });
    const response = await t.daemon.handler(
      new Request(`http://127.0.0.1:1/api/v1/sessions/${id}/events/stream?focus=1`, {
        headers: { host: "127.0.0.1:1" },
      }),
      tcpPeer("127.0.0.1", 1),
    );
    assert.equal(response.status, 403);
    assert.equal((await response.json()).error.code, "forbidden");
  } finally {
    await removeTree(project);
  }
});
