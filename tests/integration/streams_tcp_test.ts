/**
 * A client nobody here wrote reads the streams (issue 11, D19): the
 * `eventsource` package over the loopback TCP listener (D14), including its
 * automatic reconnect with `Last-Event-ID` after the server drops it.
 */
import assert from "node:assert/strict";
import { EventSource } from "eventsource";
import {
  allEvents,
  fixtureHarnesses,
  freePort,
  startTestDaemon,
  waitForEnd,
} from "../helpers/daemon.ts";
import { removeTree, tempHome } from "../helpers/home.ts";

type Json = Record<string, unknown>;

Deno.test("the eventsource package reads a session over TCP and resumes after a drop (D14, D19)", async () => {
  const port = freePort();
  await using t = await startTestDaemon({
    configJson: { harnesses: fixtureHarnesses() },
    tcp: { hostname: "127.0.0.1", port },
  });
  const project = await Deno.realPath(await tempHome());
  try {
    const launched = await t.client.post<Json>("/sessions", {
      projectRoot: project,
      harness: "fixture",
      prompt: "flood 300; exit 0",
    });
    const id = launched.body.id as string;
    await waitForEnd(t.client, id);
    const log = await allEvents(t.client, id);

    const seen: number[] = [];
    let connections = 0;
    let dropped = false;
    const url = `http://127.0.0.1:${port}/api/v1/sessions/${id}/events/stream`;
    const done = Promise.withResolvers<void>();
    const source = new EventSource(url, {
      // Drops the first connection after 100 events, as a flaky network would.
      fetch: async (input, init) => {
        connections++;
        const response = await fetch(input, init);
        if (dropped) return response;
        dropped = true;
        // Passes exactly the first 100 event frames through, then ends the body.
        let text = "";
        const cut = response.body!.pipeThrough(new TextDecoderStream()).pipeThrough(
          new TransformStream<string, Uint8Array>({
            transform(chunk, controller) {
              text += chunk;
              let end = 0;
              for (let frames = 0; frames < 100; frames++) {
                const next = text.indexOf("\n\n", end);
                if (next < 0) return;
                end = next + 2;
              }
              controller.enqueue(new TextEncoder().encode(text.slice(0, end)));
              controller.terminate();
            },
          }),
        );
        return new Response(cut, { status: response.status, headers: response.headers });
      },
    });
    for (const event of new Set(log.map((e) => e.kind))) {
      source.addEventListener(event, (message) => seen.push(Number(message.lastEventId)));
    }
    source.addEventListener("end", () => done.resolve());
    source.onerror = () => {}; // The drop: eventsource reconnects by itself.
    const timer = setTimeout(() => done.reject(new Error("no end event")), 20_000);
    await done.promise;
    clearTimeout(timer);
    source.close();
    assert.deepEqual(seen, log.map((e) => e.seq), "every event once, in order, across the drop");
    // A reconnect from the start would have repeated events 1-100: it resumed after the last.
    assert.equal(connections, 2, "eventsource reconnected once");
  } finally {
    await removeTree(project);
  }
});
