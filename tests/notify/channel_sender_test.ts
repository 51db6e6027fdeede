/**
 * The real channel sender (D31) against a local receiver and real programs:
 * what a failure says (never the webhook's URL), a command's environment,
 * and an abort that ends a send.
 */
import assert from "node:assert/strict";
import { channelSender, commandEnv } from "../../src/notify/channel_sender.ts";
import type { Notification } from "../../src/notify/content.ts";
import { OwnedProcesses } from "../../src/sessions/owned_processes.ts";
import { startReceiver } from "../helpers/webhook_receiver.ts";

const NOTE: Notification = {
  event: "approval.waiting",
  title: "claude in shop needs approval: Bash",
  body: "make test",
  sessionId: "ses_1",
  harness: "claude",
  project: "shop",
  url: null,
  at: "2026-03-01T10:00:20.000Z",
};

const send = channelSender({ processes: new OwnedProcesses() });
const never = () => new AbortController().signal;

Deno.test("channelSender posts a webhook's json and resolves on 2xx", async () => {
  await using receiver = startReceiver();
  await send({ kind: "webhook", url: `${receiver.url}/hook` }, NOTE, never());
  assert.equal(receiver.received.length, 1);
  assert.equal(receiver.received[0].path, "/hook");
  assert.equal(JSON.parse(receiver.received[0].body).title, NOTE.title);
});

Deno.test("channelSender names an HTTP error and a refused connection, never the URL", async () => {
  await using broken = startReceiver("error");
  await assert.rejects(
    send({ kind: "webhook", url: `${broken.url}/?token=s3cret` }, NOTE, never()),
    (error: Error) => error.message === "answered HTTP 500",
  );
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const closedPort = (listener.addr as Deno.NetAddr).port;
  listener.close();
  await assert.rejects(
    send({ kind: "webhook", url: `http://127.0.0.1:${closedPort}/?token=s3cret` }, NOTE, never()),
    (error: Error) =>
      /^cannot connect \(\w+\)$/.test(error.message) && !error.message.includes("s3cret"),
  );
});

Deno.test("channelSender: an aborted webhook is 'timed out'", async () => {
  await using hung = startReceiver("hang");
  const abort = new AbortController();
  const sending = send({ kind: "webhook", url: hung.url }, NOTE, abort.signal);
  await hung.waitFor(1);
  abort.abort();
  await assert.rejects(sending, (error: Error) => error.message === "timed out");
});

Deno.test("channelSender runs a command with the notification in its environment", async () => {
  const out = await Deno.makeTempFile();
  try {
    await send(
      {
        kind: "command",
        command: ["sh", "-c", 'printf "%s|%s|%s" "$SVC_EVENT" "$SVC_TITLE" "$SVC_URL" > "$0"', out],
      },
      NOTE,
      never(),
    );
    assert.equal(await Deno.readTextFile(out), `approval.waiting|${NOTE.title}|`);
  } finally {
    await Deno.remove(out);
  }
});

Deno.test("channelSender says how a command failed: its code and stderr, or not found", async () => {
  await assert.rejects(
    send({ kind: "command", command: ["sh", "-c", "echo nope >&2; exit 3"] }, NOTE, never()),
    (error: Error) => error.message === '"sh" exited with code 3: nope',
  );
  await assert.rejects(
    send({ kind: "command", command: ["svc-no-such-notifier-xyz"] }, NOTE, never()),
    (error: Error) => error.message === '"svc-no-such-notifier-xyz" is not found on PATH',
  );
});

Deno.test("channelSender: an aborted command is killed and 'timed out'", async () => {
  const abort = new AbortController();
  const sending = send({ kind: "command", command: ["sleep", "30"] }, NOTE, abort.signal);
  abort.abort();
  await assert.rejects(sending, (error: Error) => error.message === "timed out");
});

Deno.test("commandEnv holds every field, empty when null", () => {
  assert.deepEqual(commandEnv(NOTE), {
    SVC_EVENT: "approval.waiting",
    SVC_TITLE: NOTE.title,
    SVC_BODY: "make test",
    SVC_SESSION_ID: "ses_1",
    SVC_HARNESS: "claude",
    SVC_PROJECT: "shop",
    SVC_URL: "",
    SVC_AT: "2026-03-01T10:00:20.000Z",
  });
});
