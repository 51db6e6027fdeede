import assert from "node:assert/strict";
import { closeStdin, newLiveSession, signalStart } from "../../src/sessions/live_session.ts";
import { MarkedReaper } from "../../src/sessions/process_tree.ts";
import { FakeProcess } from "../fakes/spawner.ts";
import { runningSessionRow } from "../helpers/rows.ts";
import { removeTree, tempHome } from "../helpers/home.ts";

const spawnRequest = { argv: ["x"], cwd: "/", env: {} };

Deno.test("newLiveSession() holds the start's generation and an open stdin, nothing queued", () => {
  const row = { ...runningSessionRow("ses_a"), resumes: 2 };
  const live = newLiveSession(row, new FakeProcess(spawnRequest));
  assert.equal(live.generation, 2);
  assert.ok(live.stdin);
  assert.equal(live.pendingInput, 0);
  assert.equal(live.killRequested, false);
  assert.equal(live.conversation, null);
});

Deno.test("closeStdin() ends the child's input once; later closes do nothing", async () => {
  const process = new FakeProcess(spawnRequest);
  const live = newLiveSession(runningSessionRow("ses_a"), process);
  const writer = live.stdin!;
  closeStdin(live);
  assert.equal(live.stdin, null);
  closeStdin(live);
  await writer.closed;
});

Deno.test("signalStart() signals the start's process group", async () => {
  const home = await tempHome();
  try {
    const process = new FakeProcess(spawnRequest);
    const live = newLiveSession(runningSessionRow("ses_a"), process);
    signalStart(live, new MarkedReaper(home), "SIGTERM");
    assert.deepEqual(process.signals, ["SIGTERM"]);
    await new Promise((resolve) => setTimeout(resolve, 10)); // The reaper's scan runs.
  } finally {
    await removeTree(home);
  }
});
