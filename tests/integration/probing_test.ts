/** Probing never delays listening (issue 9): health says `probing` until version probes end. */
import assert from "node:assert/strict";
import type { ProgramProber } from "../../src/sessions/harness_probe.ts";
import { startTestDaemon } from "../helpers/daemon.ts";

type Health = { probing: boolean; capabilities: Array<{ id: string; status: string }> };

Deno.test("the daemon listens before version probes finish; health reports probing (D5)", async () => {
  let release!: (answered: boolean) => void;
  const versions = new Promise<boolean>((resolve) => release = resolve);
  const prober: ProgramProber = {
    find: (program) => Promise.resolve(program === "claude" ? "/usr/bin/claude" : null),
    runVersion: () => versions,
  };
  await using t = await startTestDaemon({ prober });
  const during = (await t.client.get<Health>("/health")).body;
  assert.equal(during.probing, true);
  const claude = () => during.capabilities.find((c) => c.id === "svc.harness.claude")?.status;
  assert.equal(claude(), "enabled", "a program found is enabled before its version probe");
  release(false);
  for (;;) {
    const after = (await t.client.get<Health>("/health")).body;
    if (after.probing) continue;
    const status = after.capabilities.find((c) => c.id === "svc.harness.claude")?.status;
    assert.equal(status, "degraded", "a failed version probe demotes it");
    break;
  }
});
