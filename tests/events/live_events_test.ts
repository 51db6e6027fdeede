/** Live-only session events (D29): fan-out to open streams only, ordered by the log. */
import assert from "node:assert/strict";
import { LiveEvents } from "../../src/events/live_events.ts";
import { systemClock } from "../../src/clock.ts";

const delta = (text: string, afterSeq: number) => ({
  kind: "agent.message.delta",
  payload: { turn: 1, text },
  afterSeq,
});

Deno.test("LiveEvents keeps nothing without a reader and hands each reader its due events", () => {
  const live = new LiveEvents(systemClock);
  live.publish("ses_1", delta("lost", 3));
  const reader = live.subscribe("ses_1");
  const filtered = live.subscribe("ses_1", ["agent.turn"]);
  assert.equal(live.subscribers, 2);
  live.publish("ses_1", delta("a", 3));
  live.publish("ses_1", delta("b", 5));
  live.publish("ses_2", delta("other session", 1));
  assert.deepEqual(reader.takeUpTo(2), [], "not before the durable event that preceded it");
  const due = reader.takeUpTo(4);
  assert.deepEqual(due.map((record) => JSON.parse(record.payload_json).text), ["a"]);
  assert.equal(due[0].session_id, "ses_1");
  assert.ok(!("seq" in due[0]));
  assert.deepEqual(reader.takeUpTo(9).map((record) => JSON.parse(record.payload_json).text), ["b"]);
  assert.deepEqual(filtered.takeUpTo(9), [], "kinds filter live events");
  reader.close();
  filtered.close();
  assert.equal(live.subscribers, 0);
});

Deno.test("LiveEvents wakes a waiting reader, and drops the queue of one that falls far behind", async () => {
  const live = new LiveEvents(systemClock);
  const reader = live.subscribe("ses_1");
  const waiting = reader.wait(new AbortController().signal);
  live.publish("ses_1", delta("x", 1));
  await waiting;
  for (let i = 0; i < 1100; i++) live.publish("ses_1", delta("y", 1));
  assert.ok(reader.takeUpTo(1).length < 1024, "bounded");
  const aborted = new AbortController();
  const wait = reader.wait(aborted.signal);
  aborted.abort();
  await wait;
  reader.close();
});
