import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { AcpSessionList } from "../../../src/sessions/adoption/acp_session_list.ts";
import { AcpStore, OpencodeStore } from "../../../src/sessions/adoption/acp_stores.ts";
import type { HarnessSpec } from "../../../src/sessions/harnesses.ts";
import { denoSpawner } from "../../../src/sessions/spawner.ts";
import { removeTree, tempHome } from "../../helpers/home.ts";
import { recording } from "./store_fixtures.ts";

const RECORDED = "ses_dddb56c7effe2P1dIPpoI2dVPK";
const agentScript = new URL("../../fixtures/acp_agent.ts", import.meta.url).pathname;

function acpHarness(args: string[]): HarnessSpec {
  return {
    id: "acp-agent",
    label: "ACP fixture",
    builtin: false,
    protocol: "acp",
    command: [Deno.execPath(), "run", "-A", agentScript, ...args],
    prompt: "none",
    versionArgs: null,
    probeEnv: {},
  };
}

Deno.test("AcpSessionList pages through session/list, filtered by cwd, and ends the agent", async () => {
  const dir = await Deno.realPath(await tempHome());
  try {
    const sessions = ["a", "b", "c"].map((n, i) => ({
      sessionId: `ses-${n}`,
      cwd: i === 1 ? "/elsewhere" : dir,
      title: `\u001b[31mtitle ${n}`,
      updatedAt: `2026-11-28T1${i}:00:00Z`,
    }));
    sessions.push({ sessionId: "", cwd: dir, title: "no id", updatedAt: "" });
    await Deno.writeTextFile(join(dir, "sessions.json"), JSON.stringify(sessions));
    const list = new AcpSessionList({
      harness: acpHarness([`--list=${join(dir, "sessions.json")}`]),
      spawner: denoSpawner,
      defaultCwd: dir,
    });
    const all = await list.list({ limit: 10 });
    assert.deepEqual(all.map((s) => s.agentSessionId), ["ses-a", "ses-b", "ses-c"]);
    assert.deepEqual(all[0], {
      agentSessionId: "ses-a",
      harness: "acp-agent",
      cwd: dir,
      title: "\u001b[31mtitle a",
      lastActivityAt: "2026-11-28T10:00:00.000Z",
    });
    assert.deepEqual((await list.list({ cwd: dir, limit: 10 })).map((s) => s.agentSessionId), [
      "ses-a",
      "ses-c",
    ]);
    assert.equal((await list.list({ limit: 1 })).length, 1);
    assert.equal((await list.find("ses-b"))?.cwd, "/elsewhere");
    assert.equal(await list.find("ses-b", dir), null);
  } finally {
    await removeTree(dir);
  }
});

Deno.test("AcpSessionList: an agent without session/list is refused, a silent one times out", async () => {
  const dir = await Deno.realPath(await tempHome());
  try {
    const unlisted = new AcpSessionList({
      harness: acpHarness([]),
      spawner: denoSpawner,
      defaultCwd: dir,
    });
    await assert.rejects(() => unlisted.list({ limit: 10 }), { code: "discover_unsupported" });
    const silent = new AcpSessionList({
      harness: { ...acpHarness([]), command: ["sleep", "30"] },
      spawner: denoSpawner,
      defaultCwd: dir,
      timeoutMs: 300,
    });
    const started = Date.now();
    await assert.rejects(() => silent.list({ limit: 10 }), { code: "agent_list_failed" });
    assert.ok(Date.now() - started < 5000);
    const missing = new AcpSessionList({
      harness: { ...acpHarness([]), command: ["/nonexistent/agent"] },
      spawner: denoSpawner,
      defaultCwd: dir,
    });
    await assert.rejects(() => missing.list({ limit: 10 }), { code: "agent_list_failed" });
  } finally {
    await removeTree(dir);
  }
});

Deno.test("OpencodeStore reads a conversation's messages from opencode's store", async () => {
  const dataHome = await tempHome();
  const project = await tempHome();
  try {
    await Deno.mkdir(join(dataHome, "opencode"));
    const db = new DatabaseSync(join(dataHome, "opencode", "opencode.db"));
    db.exec(await recording("opencode_store.sql", project));
    db.close();
    const list = new AcpSessionList({
      harness: acpHarness(["--list=/nonexistent"]),
      spawner: denoSpawner,
      defaultCwd: project,
    });
    const store = new OpencodeStore(list, dataHome);
    const session = {
      agentSessionId: RECORDED,
      harness: "opencode",
      cwd: project,
      title: "Fake title",
      lastActivityAt: null,
    };
    assert.deepEqual((await store.history(session))!.map((m) => `${m.role}: ${m.text}`), [
      'user: "hello direct"',
      "assistant: Answer direct",
    ]);
    assert.deepEqual(await store.history({ ...session, agentSessionId: "ses_other" }), []);
    const empty = new OpencodeStore(list, project);
    assert.equal(await empty.history(session), null, "no store: nothing to import");
    assert.equal(await new AcpStore(list).history(), null, "a configured agent's: none");
  } finally {
    await removeTree(dataHome);
    await removeTree(project);
  }
});
