/**
 * Probing the real CLIs (issue 9): `/health` answers before the version
 * probes finish, and all four installed built-ins end up `enabled` on this
 * machine size (gemini and opencode used to time out as `degraded`).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { SvcClient } from "../../src/client/client.ts";
import { HARNESSES } from "../../scripts/agents_install.ts";
import { removeTree, tempHome } from "../helpers/home.ts";
import { startServe } from "../helpers/process.ts";
import { agentsPath } from "./agent_bins.ts";
import { requireAgent, runAgentTests } from "./agents_gate.ts";

type Health = { probing: boolean; capabilities: Array<{ id: string; status: string }> };

Deno.test({
  name: "health answers while probing; every installed built-in probes enabled",
  ignore: !runAgentTests,
}, async () => {
  for (const cli of HARNESSES) requireAgent(cli);
  const home = await tempHome();
  const serve = await startServe(home, [], {
    PATH: `${agentsPath()}:${Deno.env.get("PATH")}`,
  });
  const client = new SvcClient({ socketPath: join(home, "svc.sock") });
  try {
    const first = await client.get<Health>("/health");
    assert.equal(first.status, 200);
    assert.equal(typeof first.body.probing, "boolean");
    const deadline = Date.now() + 60_000;
    let health = first.body;
    while (health.probing) {
      assert.ok(Date.now() < deadline, "probing never finished");
      await new Promise((resolve) => setTimeout(resolve, 100));
      health = (await client.get<Health>("/health")).body;
    }
    const statuses = Object.fromEntries(
      health.capabilities.filter((c) => c.id.startsWith("svc.harness."))
        .map((c) => [c.id.slice("svc.harness.".length), c.status]),
    );
    assert.deepEqual(statuses, {
      claude: "enabled",
      codex: "enabled",
      gemini: "enabled",
      opencode: "enabled",
    });
  } finally {
    client.close();
    await serve.stop();
    await removeTree(home);
  }
});
