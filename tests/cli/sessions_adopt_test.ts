/** `svc sessions discover` and `svc sessions adopt` as real processes against `svc serve` (D33). */
import assert from "node:assert/strict";
import { join } from "node:path";
import { claudeProjectDir } from "../../src/sessions/adoption/claude_store.ts";
import { waitForEnd } from "../helpers/daemon.ts";
import { removeTree, tempHome } from "../helpers/home.ts";
import { place } from "../sessions/adoption/store_fixtures.ts";
import { startCliDaemon } from "./cli_daemon.ts";

const AGENT_SESSION = "0a0b0c0d-0000-4000-8000-00000000c1a0";

Deno.test("svc sessions discover lists an agent's sessions safely; adopt makes one a svc session", async (t) => {
  const claudeConfigDir = await tempHome();
  await using d = await startCliDaemon({ CLAUDE_CONFIG_DIR: claudeConfigDir });
  try {
    // A transcript whose title tries to write an OSC 52 clipboard sequence to the terminal.
    const lines = [
      {
        type: "user",
        cwd: d.project,
        message: { role: "user", content: "\u001b]52;c;aGk=\u0007hello" },
      },
      {
        type: "assistant",
        message: { id: "m", role: "assistant", content: [{ type: "text", text: "hi" }] },
      },
    ];
    await place(
      join(claudeConfigDir, "projects", claudeProjectDir(d.project), `${AGENT_SESSION}.jsonl`),
      lines.map((line) => JSON.stringify(line)).join("\n") + "\n",
    );

    await t.step("discover prints one row, control characters shown, never sent", async () => {
      const result = await d.svc([
        "sessions",
        "discover",
        "--harness",
        "agent",
        "--cwd",
        d.project,
      ]);
      assert.equal(result.code, 0, result.stderr);
      const [header, row, ...rest] = result.stdout.trimEnd().split("\n");
      assert.match(header, /^HARNESS +AGENT SESSION +LAST ACTIVITY +CWD +TITLE$/);
      assert.deepEqual(rest, []);
      assert.ok(row.startsWith(`agent    ${AGENT_SESSION}`), row);
      assert.ok(!result.stdout.includes("\u001b") && !result.stdout.includes("\u0007"), row);
      assert.match(row, /\^\[\]52;c;aGk=\^Ghello$/);
      const json = await d.svc(["sessions", "discover", "--harness", "agent", "--json"]);
      assert.equal(JSON.parse(json.stdout).sessions[0].agentSessionId, AGENT_SESSION);
    });

    await t.step("adopt resumes it and names the svc session", async () => {
      const result = await d.svc([
        "sessions",
        "adopt",
        "--harness",
        "agent",
        "--agent-session",
        AGENT_SESSION,
      ]);
      assert.equal(result.code, 0, result.stderr);
      const id = /^Adopted as (ses_\w+), running again/.exec(result.stdout)?.[1];
      assert.ok(id, result.stdout);
      await d.client.post(`/sessions/${id}/close`, {});
      assert.equal((await waitForEnd(d.client, id)).status, "completed");
    });

    await t.step("refusals: missing flags, an unknown agent session", async () => {
      const missing = await d.svc(["sessions", "adopt", "--harness", "agent"]);
      assert.equal(missing.code, 2, missing.stderr);
      assert.match(missing.stderr, /Missing "--agent-session ID"/);
      const unknown = await d.svc([
        "sessions",
        "adopt",
        "--harness",
        "agent",
        "--agent-session",
        "0a0b0c0d-0000-4000-8000-0000000000ff",
      ]);
      assert.notEqual(unknown.code, 0);
      assert.match(unknown.stderr, /agent_session_not_found|has no session/);
    });
  } finally {
    await removeTree(claudeConfigDir);
  }
});
