import assert from "node:assert/strict";
import { join } from "node:path";
import { Discovery } from "../../../src/sessions/adoption/discovery.ts";
import { claudeProjectDir } from "../../../src/sessions/adoption/claude_store.ts";
import { CapabilityRegistry, type HarnessStatus } from "../../../src/sessions/capabilities.ts";
import { BUILTIN_HARNESSES, type HarnessSpec } from "../../../src/sessions/harnesses.ts";
import { denoSpawner } from "../../../src/sessions/spawner.ts";
import { removeTree, tempHome } from "../../helpers/home.ts";
import { place } from "./store_fixtures.ts";

const acpAgent = new URL("../../fixtures/acp_agent.ts", import.meta.url).pathname;

async function registry(statuses: Record<string, HarnessStatus["status"]>) {
  const list = Object.entries(statuses).map(([id, status]) => ({ id, label: id, status }));
  const capabilities = new CapabilityRegistry({
    find: () => Promise.resolve(list),
    verify: () => Promise.resolve(list),
  });
  await capabilities.refresh();
  return capabilities;
}

Deno.test("Discovery lists every installed built-in, names those that cannot list, keeps to the roots", async () => {
  const agentHome = await tempHome();
  const roots = await Deno.realPath(await tempHome());
  const outside = await Deno.realPath(await tempHome());
  try {
    const claudeConfigDir = join(agentHome, ".claude");
    for (
      const [dir, id] of [[roots, "11111111-0000-4000-8000-000000000001"], [
        outside,
        "22222222-0000-4000-8000-000000000002",
      ]]
    ) {
      await place(
        join(claudeConfigDir, "projects", claudeProjectDir(dir), `${id}.jsonl`),
        JSON.stringify({ type: "user", cwd: dir, message: { role: "user", content: "hi" } }) + "\n",
      );
    }
    const builtins = new Map(BUILTIN_HARNESSES.map((h) => [h.id, h]));
    // opencode's place taken by the ACP fixture, which does not advertise session/list.
    const opencode: HarnessSpec = {
      ...builtins.get("opencode")!,
      command: [Deno.execPath(), "run", "-A", acpAgent],
    };
    builtins.set("opencode", opencode);
    const discovery = new Discovery({
      homes: {
        claudeConfigDir,
        codexHome: join(agentHome, ".codex"),
        geminiHome: agentHome,
        dataHome: join(agentHome, "data"),
      },
      harnesses: () => builtins,
      capabilities: await registry({
        claude: "enabled",
        codex: "disabled",
        gemini: "degraded",
        opencode: "enabled",
      }),
      spawner: denoSpawner,
      projectRoots: () => [roots],
      defaultCwd: roots,
    });
    const found = await discovery.discover({ limit: 10 });
    assert.deepEqual(found.sessions.map((s) => s.agentSessionId), [
      "11111111-0000-4000-8000-000000000001",
    ]);
    assert.deepEqual(found.unavailable.map((u) => [u.harness, u.code]), [
      ["opencode", "discover_unsupported"],
    ]);
    await assert.rejects(
      () => discovery.discover({ harness: "opencode", limit: 10 }),
      { code: "discover_unsupported" },
    );
    await assert.rejects(() => discovery.discover({ harness: "codex", limit: 10 }), {
      code: "invalid_request",
      message: 'Harness "codex" is not installed: its program was not found',
    });
    await assert.rejects(() => discovery.discover({ cwd: outside, limit: 10 }), {
      code: "invalid_request",
    });
    await assert.rejects(() => discovery.discover({ cwd: "relative/dir", limit: 10 }), {
      code: "invalid_request",
    });
  } finally {
    await removeTree(agentHome);
    await removeTree(roots);
    await removeTree(outside);
  }
});
