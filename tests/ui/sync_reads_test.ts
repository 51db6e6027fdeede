/**
 * UiSync's reads after notices: a notice that arrives while the same read is
 * under way is not lost (that read may have been answered before the change
 * it announces). The race needs a read held open, so the client is scripted
 * at the `UiClient` seam: a feed the test writes to, and `GET`s it answers
 * when it chooses.
 */
import assert from "node:assert/strict";
import type { ClientResponse, FeedItem } from "../../src/client/client.ts";
import { FocusStore } from "../../src/ui/focus.ts";
import { UiStore } from "../../src/ui/store.ts";
import { type UiClient, UiSync } from "../../src/ui/sync.ts";
import { fleetLists, session } from "./fixtures.ts";

const ID = "ses_01RACE0000000000000000000";

/** A client whose feed the test writes and whose session reads wait for the test. */
function scriptedClient() {
  const feed: FeedItem[] = [];
  let wake: (() => void) | null = null;
  const sessionReads: Array<(status: string) => void> = [];
  const client: UiClient = {
    get: <T>(path: string) => {
      if (path === `/sessions/${ID}`) {
        return new Promise<ClientResponse<T>>((resolve) =>
          sessionReads.push((status) =>
            resolve({ status: 200, ok: true, body: session({ id: ID, status }) as unknown as T })
          )
        );
      }
      const body = path.startsWith("/health")
        ? fleetLists().daemon
        : path.startsWith("/sessions")
        ? [session({ id: ID })]
        : {};
      return Promise.resolve({ status: 200, ok: true, body: body as T });
    },
    post: <T>() => Promise.resolve({ status: 200, ok: true, body: { result: {} } as T }),
    async *streamFeed({ signal }) {
      while (!signal?.aborted) {
        const item = feed.shift();
        if (item) yield item;
        else await new Promise<void>((resolve) => wake = resolve);
      }
    },
    // deno-lint-ignore require-yield
    async *streamSessionEvents() {
      return;
    },
  };
  const push = (item: FeedItem) => {
    feed.push(item);
    wake?.();
  };
  return { client, push, sessionReads };
}

async function until(what: string, probe: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

Deno.test("UiSync reads a session once more when its notice came during the read", async () => {
  const { client, push, sessionReads } = scriptedClient();
  const store = new UiStore({ notifyIntervalMs: 0 });
  const sync = new UiSync({ client, store, focus: new FocusStore() });
  const stop = new AbortController();
  const running = sync.run(stop.signal);
  try {
    push({ type: "connected", instanceId: "inst_1", reconnected: false });
    await until("the first sync", () => store.snapshot().connection === "connected");
    const updated = { type: "notice", kind: "session.updated", data: { sessionId: ID } } as const;
    push(updated);
    await until("the first read", () => sessionReads.length === 1);
    // The session ends while its record is being read; two more notices say so.
    push(updated);
    push(updated);
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(sessionReads.length, 1, "never two reads of one thing at once");
    sessionReads[0]("running"); // Answered before the end.
    await until("one more read", () => sessionReads.length === 2);
    sessionReads[1]("completed");
    await until("the end", () => store.snapshot().sessions.get(ID)?.status === "completed");
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(sessionReads.length, 2, "the burst cost one read more, not one per notice");
  } finally {
    stop.abort();
    push({ type: "disconnected", reason: "end", retryInMs: 0 });
    await running;
  }
});
