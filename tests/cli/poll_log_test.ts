/** `pollLog` (events.ts), which `svc events --follow`, `svc chat` and `svc attach` follow logs with. */
import assert from "node:assert/strict";
import { pollLog } from "../../src/cli/events.ts";
import type { EventRecord } from "../../src/store/events_store.ts";
import { fixtureHarnesses, startTestDaemon, waitForEnd } from "../helpers/daemon.ts";
import { removeTree, tempHome } from "../helpers/home.ts";
import { openSse } from "../helpers/sse.ts";

Deno.test("pollLog() follows a session on its stream, or with long polls when no stream slot is free", async (t) => {
  await using d = await startTestDaemon({
    configJson: { harnesses: fixtureHarnesses(), maxStreams: 1 },
  });
  const project = await Deno.realPath(await tempHome());
  const launch = async (prompt: string) =>
    (await d.client.post<{ id: string }>("/sessions", {
      projectRoot: project,
      harness: "fixture",
      prompt,
    })).body.id;
  const follow = async (sessionId: string, afterSeq = 0) => {
    const events: EventRecord[] = [];
    const end = await pollLog(d.client, sessionId, {
      afterSeq,
      signal: AbortSignal.timeout(30_000),
      onEvent: (event) => events.push(event),
    });
    return { events, end };
  };
  const page = async (sessionId: string) =>
    (await d.client.get<{ events: EventRecord[] }>(`/sessions/${sessionId}/events`)).body.events;
  try {
    await t.step("on the stream: every event, then session.ended", async () => {
      const id = await launch("out one; sleep 200; flood 50; exit 0");
      const { events, end } = await follow(id);
      assert.deepEqual(events, await page(id));
      assert.deepEqual(end, { ended: events.at(-1) });
    });

    await t.step("with the only stream slot taken: the same, by long polls", async () => {
      const blocker = await launch("sleep 60000");
      const held = await openSse(d.socket, `/sessions/${blocker}/events/stream`);
      try {
        assert.equal(held.status, 200);
        const refused = await openSse(d.socket, `/sessions/${blocker}/events/stream`);
        await refused.close();
        assert.equal(refused.status, 503, "no stream slot is free");
        const id = await launch("out one; sleep 200; flood 50; exit 0");
        const { events, end } = await follow(id);
        assert.deepEqual(events, await page(id));
        assert.deepEqual(end, { ended: events.at(-1) });
      } finally {
        await held.close();
        await d.client.post(`/sessions/${blocker}/kill`, {});
        await waitForEnd(d.client, blocker);
      }
    });

    await t.step("past the end of an ended log: nothing, ended null", async () => {
      const id = await launch("exit 0");
      await waitForEnd(d.client, id);
      assert.deepEqual(await follow(id, 1000), { events: [], end: { ended: null } });
    });

    await t.step("an unknown session: the refusal", async () => {
      const { end } = await follow("ses_none");
      assert.equal(
        (end as { refused: { error: { code: string } } }).refused.error.code,
        "session_not_found",
      );
    });
  } finally {
    await removeTree(project);
  }
});
