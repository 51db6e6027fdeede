import assert from "node:assert/strict";
import {
  CapabilityRegistry,
  type HarnessProbes,
  type HarnessStatus,
} from "../../src/sessions/capabilities.ts";

/** Probes that count their runs; `verify` waits for `release` when one is given. */
function countingProbes(release?: Promise<void>): HarnessProbes & { runs: () => number } {
  let runs = 0;
  const claude = (status: HarnessStatus["status"]): HarnessStatus[] => [
    { id: "claude", label: "Claude Code", status },
  ];
  return {
    runs: () => runs,
    find: () => Promise.resolve(claude("enabled")),
    verify: async () => {
      runs++;
      await release;
      return claude("degraded");
    },
  };
}

const harnessStatus = (records: readonly { id: string; status: string }[]) =>
  records.find((record) => record.id === "svc.harness.claude")?.status;

Deno.test("CapabilityRegistry.latest() answers from the last probe without probing", async () => {
  const probes = countingProbes();
  const registry = new CapabilityRegistry(probes);
  await registry.refresh();
  assert.equal(probes.runs(), 1);
  for (let i = 0; i < 5; i++) {
    assert.equal(harnessStatus(await registry.latest()), "degraded");
  }
  assert.equal(probes.runs(), 1, "latest() never probes");
});

Deno.test("CapabilityRegistry.latest() waits for the refresh under way", async () => {
  let release!: () => void;
  const probes = countingProbes(new Promise((resolve) => release = resolve));
  const registry = new CapabilityRegistry(probes);
  const refreshing = registry.refresh();
  await registry.found();
  const latest = registry.latest();
  release();
  assert.equal(harnessStatus(await latest), "degraded", "the refresh's result, not the look-up's");
  await refreshing;
  assert.equal(probes.runs(), 1);
});
