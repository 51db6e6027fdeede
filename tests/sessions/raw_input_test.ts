import assert from "node:assert/strict";
import { systemClock } from "../../src/clock.ts";
import { ServiceError } from "../../src/errors.ts";
import { newLiveSession } from "../../src/sessions/live_session.ts";
import {
  deliverRawInput,
  endInput,
  MAX_PENDING_INPUT_BYTES,
  writePrompt,
} from "../../src/sessions/raw_input.ts";
import { FakeProcess } from "../fakes/spawner.ts";
import { runningSessionRow } from "../helpers/rows.ts";
import { withSessionLog } from "../helpers/session_log.ts";

const spawnRequest = { argv: ["x"], cwd: "/", env: {} };

/** The `input` events recorded for `ses_a`, their data. */
function inputs(
  stored: {
    readAfter(id: string, after: number, limit: number): { kind: string; payload_json: string }[];
  },
): string[] {
  return stored.readAfter("ses_a", 0, 100).filter((e) => e.kind === "input")
    .map((e) => JSON.parse(e.payload_json).data);
}

Deno.test("deliverRawInput() writes to stdin and resolves once the redacted input is durable", async () => {
  await withSessionLog(async ({ sessions, events, stored }) => {
    sessions.insert(runningSessionRow("ses_a"));
    events.open("ses_a", 0);
    const process = new FakeProcess(spawnRequest);
    const live = newLiveSession(runningSessionRow("ses_a"), process);
    await deliverRawInput(live, "token sk-ant-abcdefghijklmnopqrstuvwx\n", {
      events,
      clock: systemClock,
    });
    assert.equal(process.stdinText, "token sk-ant-abcdefghijklmnopqrstuvwx\n");
    const [recorded] = inputs(stored);
    assert.ok(recorded.startsWith("token "));
    assert.ok(!recorded.includes("abcdefghijklmnopqrstuvwx"), recorded);
  });
});

Deno.test("deliverRawInput() refuses a closed stdin and a backlog past MAX_PENDING_INPUT_BYTES (409)", async (t) => {
  await withSessionLog(async ({ events }) => {
    events.open("ses_a", 0);
    const deps = { events, clock: systemClock };
    await t.step("closed stdin", async () => {
      const live = newLiveSession(runningSessionRow("ses_a"), new FakeProcess(spawnRequest));
      live.stdin = null;
      await assert.rejects(
        deliverRawInput(live, "x\n", deps),
        (e) => e instanceof ServiceError && e.status === 409 && e.code === "session_input_closed",
      );
    });
    await t.step("backlog", async () => {
      const live = newLiveSession(runningSessionRow("ses_a"), new FakeProcess(spawnRequest));
      live.pendingInput = MAX_PENDING_INPUT_BYTES; // A child that reads nothing.
      await assert.rejects(
        deliverRawInput(live, "x\n", deps),
        (e) =>
          e instanceof ServiceError && e.status === 409 && e.code === "session_input_backlogged" &&
          e.details?.pendingBytes === MAX_PENDING_INPUT_BYTES,
      );
    });
  });
});

Deno.test("endInput() closes stdin and records the partial line the redactor held", async () => {
  await withSessionLog(async ({ sessions, events, stored }) => {
    sessions.insert(runningSessionRow("ses_a"));
    events.open("ses_a", 0);
    const live = newLiveSession(runningSessionRow("ses_a"), new FakeProcess(spawnRequest));
    await deliverRawInput(live, "no newline yet", { events, clock: systemClock });
    assert.notEqual(live.inputIdleTimer, null);
    endInput(live, events);
    assert.equal(live.stdin, null);
    await events.append("ses_a", "marker", {}); // Durable after the flushed input.
    assert.deepEqual(inputs(stored), ["no newline yet"]);
  });
});

Deno.test("writePrompt() writes a stdin prompt; a closed stdin ends input instead of throwing", async () => {
  const process = new FakeProcess(spawnRequest);
  const live = newLiveSession(runningSessionRow("ses_a"), process);
  await writePrompt(live, "hello\n");
  assert.equal(process.stdinText, "hello\n");
  await live.stdin!.close();
  await writePrompt(live, "more\n");
  assert.equal(live.stdin, null);
});
