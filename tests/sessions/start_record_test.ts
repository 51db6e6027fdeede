import assert from "node:assert/strict";
import { NO_USAGE } from "../../src/agents/protocol.ts";
import { systemClock } from "../../src/clock.ts";
import { silentLogger } from "../../src/log.ts";
import { BUILTIN_HARNESSES } from "../../src/sessions/harnesses.ts";
import { newSessionRow, recordLaunch, recordResume } from "../../src/sessions/start_record.ts";
import type { LaunchSpec } from "../../src/sessions/supervisor.ts";
import { withSessionLog } from "../helpers/session_log.ts";

const claude = BUILTIN_HARNESSES.find((h) => h.id === "claude")!;

function spec(overrides: Partial<LaunchSpec> = {}): LaunchSpec {
  return {
    projectRoot: "/p",
    cwd: "/p",
    harness: claude,
    prompt: "hi",
    model: null,
    title: "t",
    familiarId: null,
    origin: "api",
    oneShot: false,
    approvals: "deny",
    ...overrides,
  };
}

Deno.test("newSessionRow() starts a protocol session `starting` with no usage yet; a raw one has neither", () => {
  const row = newSessionRow(spec(), { id: "ses_a", now: "2026-01-01T00:00:00.000Z" });
  assert.equal(row.status, "running");
  assert.equal(row.activity, "starting");
  assert.equal(row.approvals, "deny");
  assert.deepEqual(JSON.parse(row.usage_json!), NO_USAGE);
  const raw = newSessionRow(spec({ harness: { ...claude, protocol: "raw" } }), {
    id: "ses_b",
    now: "2026-01-01T00:00:00.000Z",
  });
  assert.equal(raw.activity, null);
  assert.equal(raw.usage_json, null);
  assert.equal(raw.approvals, null);
});

Deno.test("recordLaunch() inserts the row, tells the feed and links the routine run; recordResume() reopens it", async () => {
  await withSessionLog(async ({ sessions, events, stored }) => {
    const published: { kind: string }[] = [];
    const deps = {
      sessions,
      events,
      clock: systemClock,
      log: silentLogger,
      publish: (kind: string, data: Record<string, unknown>) => published.push({ kind, ...data }),
    };
    const row = recordLaunch(deps, spec({ id: "ses_a", routineId: "rtn_1", runId: "run_1" }));
    assert.equal(sessions.get("ses_a")?.run_id, "run_1");
    assert.deepEqual(published.map((p) => p.kind), ["session.created"]);
    sessions.update("ses_a", { status: "completed", activity: null, agent_session_id: "abc" });
    const ended = sessions.get("ses_a")!;
    ended.last_seq = 1; // run.linked
    await recordResume(deps, ended, "opus");
    assert.equal(ended.status, "running");
    assert.equal(ended.resumes, row.resumes + 1);
    assert.equal(sessions.get("ses_a")?.model, "opus");
    const kinds = stored.readAfter("ses_a", 0, 10).map((e) => [e.seq, e.kind]);
    assert.deepEqual(kinds, [[1, "run.linked"], [2, "session.resumed"]]);
    assert.deepEqual(published.map((p) => p.kind), ["session.created", "session.updated"]);
  });
});
