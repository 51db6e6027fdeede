/**
 * Real sessions park on their provider's usage limit and resume when it
 * lifts (issue 39, D33), per built-in CLI against the fake provider
 * answering as that provider does (parking_rig.ts `LIMIT_CASES`). The daemon
 * runs in-process with a FakeClock, so a timer fires when the test moves the
 * clock past `parkedUntil` plus the 60 s jitter. Per CLI: with autoResume on
 * the timer resumes natively and re-sends the turn; with it off the session
 * stays parked until `unpark`; a daemon down at the timer's time fires it
 * once when it starts again. Run with
 * `deno test -A tests/real_agents/parking_test.ts`.
 */
import assert from "node:assert/strict";
import { HARNESSES } from "../../scripts/agents_install.ts";
import { runAgentTests } from "./agents_gate.ts";
import { eventsOf, ParkingRig } from "./parking_rig.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

const options = { ignore: !runAgentTests, sanitizeOps: false, sanitizeResources: false };

for (const cli of HARNESSES) {
  Deno.test(
    {
      name: `${cli}: a usage limit parks the session; autoResume re-sends the turn (D33)`,
      ...options,
    },
    async () => {
      await using rig = await ParkingRig.create(cli);
      const t = await rig.start(true);
      const { id, parked } = await rig.parkConversation();
      assert.deepEqual(parked.parked, rig.expectedPark(true), JSON.stringify(parked));

      await rig.crossMinute();
      await rig.passResumeTime();
      await rig.expectResent(id, 2);
      const [unparked] = await eventsOf(t, id, "session.unparked");
      assert.deepEqual(unparked, { by: "timer", turns: 1 });
      const record = (await t.client.get<Any>(`/sessions/${id}`)).body;
      assert.equal(record.parked, null);
      assert.equal(record.resumes, 1);
      await rig.close(id);
    },
  );

  Deno.test(
    { name: `${cli}: with autoResume off a parked session waits for unpark (D33)`, ...options },
    async () => {
      await using rig = await ParkingRig.create(cli);
      const t = await rig.start(false);
      const { id, parked } = await rig.parkConversation();
      assert.deepEqual(parked.parked, rig.expectedPark(false), JSON.stringify(parked));

      await rig.crossMinute();
      await rig.passResumeTime();
      await new Promise((resolve) => setTimeout(resolve, 500));
      const still = (await t.client.get<Any>(`/sessions/${id}`)).body;
      assert.equal(still.status, "parked", JSON.stringify(still));
      rig.expectNoResume();

      const unpark = await t.client.post<Any>(`/sessions/${id}/unpark`, {});
      assert.equal(unpark.status, 200, JSON.stringify(unpark.body));
      await rig.expectResent(id, 2);
      const [unparked] = await eventsOf(t, id, "session.unparked");
      assert.deepEqual(unparked, { by: "owner", turns: 1 });
      await rig.close(id);
    },
  );

  Deno.test(
    { name: `${cli}: a daemon down at the timer's time fires it once on start (D33)`, ...options },
    async () => {
      await using rig = await ParkingRig.create(cli);
      await rig.start(true);
      const { id } = await rig.parkConversation();
      await rig.stop();

      await rig.crossMinute();
      await rig.passResumeTime();
      const t = await rig.start(true);
      await rig.clock.advance(1); // The restarted daemon armed the overdue timer at `now`.
      await rig.expectResent(id, 2);
      await rig.clock.advance(5 * 60_000); // Nothing else is due: it fired once.
      await new Promise((resolve) => setTimeout(resolve, 500));
      assert.equal((await eventsOf(t, id, "session.unparked")).length, 1);
      const record = (await t.client.get<Any>(`/sessions/${id}`)).body;
      assert.equal(record.resumes, 1);
      await rig.close(id);
    },
  );
}
