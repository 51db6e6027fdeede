/**
 * `X` in the land view (D34): asks, then cancels the selected item through
 * `POST /land-queue/{id}/cancel`; an item being landed or done is not offered.
 */
import assert from "node:assert/strict";
import type { LandQueueItem } from "../../src/ui/land_queue_view.ts";
import { fleetLists } from "./fixtures.ts";
import { renderApp } from "./render_app.tsx";

function item(itemId: string, state: LandQueueItem["state"], position: number): LandQueueItem {
  return {
    itemId,
    sessionId: `ses_${itemId}`,
    position,
    state,
    attempts: 0,
    maxAttempts: 2,
    lastError: null,
    landedCommit: null,
  };
}

Deno.test("svc ui: X in the land view asks, then cancels the selected item (D34)", async () => {
  const app = renderApp(fleetLists());
  app.store.landQueue([item("lnd_a", "landed", 1), item("lnd_b", "queued", 2)]);
  await app.press("7", "X");
  assert.match(app.frame(), /Only a queued, sent back or failed land can be cancelled/);
  await app.press("j", "X");
  assert.match(app.frame(), /Cancel the land of ses_lnd_b \(… queued\)\? y cancels, n keeps it/);
  await app.press("n");
  assert.equal(app.calls.filter((call) => call.path.endsWith("/cancel")).length, 0);
  await app.press("X", "y");
  assert.deepEqual(app.calls.at(-1), { path: "/land-queue/lnd_b/cancel", body: {} });
  assert.match(app.frame(), /Cancelled the land/);
  app.unmount();
});
