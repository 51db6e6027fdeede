import assert from "node:assert/strict";
import { IdleRelease } from "../src/idle_release.ts";
import { FakeClock } from "./fakes/clock.ts";

Deno.test("IdleRelease releases once per idle period, never while busy or soon after a request (issue 26)", async () => {
  const clock = new FakeClock(0);
  let busy = true;
  let released = 0;
  const idle = new IdleRelease(clock, {
    idleMs: 10_000,
    busy: () => busy,
    release: () => released++,
  });
  const stop = new AbortController();
  const running = idle.run(stop.signal);
  await clock.advance(60_000);
  assert.equal(released, 0, "never while something is live");
  busy = false;
  await clock.advance(20_000);
  assert.equal(released, 1, "within two idle periods once nothing is live");
  await clock.advance(60_000);
  assert.equal(released, 1, "once per idle period");
  // Checks fall at multiples of 10 s; a request at 145 s holds the one at 150 s back.
  await clock.advance(5_000);
  idle.touch();
  await clock.advance(9_000);
  assert.equal(released, 1, "a request restarts the idle time");
  await clock.advance(11_000);
  assert.equal(released, 2, "released again after the next activity");
  stop.abort();
  await running;
  assert.equal(clock.pending, 0);
});

Deno.test("IdleRelease reports a failed release and keeps going", async () => {
  const clock = new FakeClock(0);
  const errors: unknown[] = [];
  let calls = 0;
  const idle = new IdleRelease(clock, {
    idleMs: 1000,
    busy: () => false,
    release: () => {
      calls++;
      throw new Error("store closed");
    },
  });
  const stop = new AbortController();
  const running = idle.run(stop.signal, (error) => errors.push(error));
  await clock.advance(2000);
  idle.touch();
  await clock.advance(3000);
  assert.equal(calls, 2);
  assert.equal(errors.length, 2);
  stop.abort();
  await running;
});
