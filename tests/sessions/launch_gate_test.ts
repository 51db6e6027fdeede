import assert from "node:assert/strict";
import { ServiceError } from "../../src/errors.ts";
import { LaunchGate } from "../../src/sessions/launch_gate.ts";

Deno.test("LaunchGate admits until closed, then refuses with 503 daemon_stopping", () => {
  const gate = new LaunchGate();
  gate.enter("launch");
  assert.equal(gate.inFlight, 1);
  void gate.close();
  assert.equal(gate.open, false);
  assert.throws(
    () => gate.enter("resume"),
    (error) =>
      error instanceof ServiceError && error.status === 503 && error.code === "daemon_stopping" &&
      error.message === "Cannot resume: the daemon is stopping; start it again and retry",
  );
  assert.equal(gate.inFlight, 1);
});

Deno.test("LaunchGate.close() resolves once every admitted one has left", async () => {
  const gate = new LaunchGate();
  await gate.close(); // Nothing in flight: at once.
  const busy = new LaunchGate();
  busy.enter("launch");
  busy.enter("resume");
  let drained = false;
  const closing = busy.close().then(() => drained = true);
  busy.leave();
  await Promise.resolve();
  assert.equal(drained, false);
  busy.leave();
  await closing;
  assert.equal(drained, true);
});

Deno.test("LaunchGate.closing aborts once the stop begins, so a waiting resume stops waiting", () => {
  const gate = new LaunchGate();
  assert.equal(gate.closing.aborted, false);
  gate.enter("resume");
  void gate.close();
  assert.equal(gate.closing.aborted, true);
  gate.leave();
});
