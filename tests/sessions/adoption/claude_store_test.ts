import assert from "node:assert/strict";
import { join } from "node:path";
import { claudeProjectDir, ClaudeStore } from "../../../src/sessions/adoption/claude_store.ts";
import { removeTree, tempHome } from "../../helpers/home.ts";
import { place, recording, touch } from "./store_fixtures.ts";

const RECORDED = "db00716f-debf-4a65-a01e-0aed04fb5e3b";
const OTHER = "0a0b0c0d-0000-4000-8000-000000000002";

Deno.test("claudeProjectDir() turns every character but letters and digits into -", () => {
  assert.equal(
    claudeProjectDir("/root/.cache/svc/agents/homes/x_y/project"),
    "-root--cache-svc-agents-homes-x-y-project",
  );
});

Deno.test("ClaudeStore lists, finds and reads Claude Code's transcripts", async (t) => {
  const config = await tempHome();
  const project = await tempHome();
  const elsewhere = await tempHome();
  try {
    const projects = join(config, "projects");
    const recorded = join(projects, claudeProjectDir(project), `${RECORDED}.jsonl`);
    await place(recorded, await recording("claude_transcript.jsonl", project));
    await touch(recorded, Date.parse("2026-11-28T13:14:00Z"));
    // A second conversation elsewhere: a reply written as two lines, a tool result, a hostile title.
    const lines = [
      {
        type: "user",
        cwd: elsewhere,
        message: { role: "user", content: "\u001b]52;c;aGk=\u0007fix the bug" },
      },
      {
        type: "assistant",
        message: { id: "m1", role: "assistant", content: [{ type: "text", text: "Part one" }] },
      },
      {
        type: "assistant",
        message: { id: "m1", role: "assistant", content: [{ type: "tool_use", name: "Bash" }] },
      },
      {
        type: "assistant",
        message: { id: "m1", role: "assistant", content: [{ type: "text", text: "part two" }] },
      },
      {
        type: "user",
        message: { role: "user", content: [{ type: "tool_result", content: "ok" }] },
      },
      { type: "user", isMeta: true, message: { role: "user", content: "<meta>" } },
      { type: "user", isSidechain: true, message: { role: "user", content: "a sub-agent's" } },
    ];
    const other = join(projects, claudeProjectDir(elsewhere), `${OTHER}.jsonl`);
    await place(other, lines.map((l) => JSON.stringify(l)).join("\n") + '\nnot json\n{"cut');
    await touch(other, Date.parse("2026-11-28T14:00:00Z"));
    await place(join(projects, claudeProjectDir(project), "notes.txt"), "not a transcript");
    const store = new ClaudeStore(config);

    await t.step("list: newest first, each with its cwd, title and last activity", async () => {
      const sessions = await store.list({ limit: 10 });
      assert.deepEqual(sessions.map((s) => s.agentSessionId), [OTHER, RECORDED]);
      assert.deepEqual(sessions[1], {
        agentSessionId: RECORDED,
        harness: "claude",
        cwd: project,
        title: "hello direct",
        lastActivityAt: "2026-11-28T13:14:00.000Z",
      });
      assert.equal(sessions[0].title, "\u001b]52;c;aGk=\u0007fix the bug", "text stays text");
    });

    await t.step("list: by cwd, and bounded by limit", async () => {
      assert.deepEqual(
        (await store.list({ cwd: project, limit: 10 })).map((s) => s.agentSessionId),
        [RECORDED],
      );
      assert.equal((await store.list({ limit: 1 })).length, 1);
      assert.deepEqual(await store.list({ cwd: "/nowhere", limit: 10 }), []);
    });

    await t.step("find: by id, in its cwd or any", async () => {
      assert.equal((await store.find(RECORDED))?.cwd, project);
      assert.equal((await store.find(RECORDED, project))?.agentSessionId, RECORDED);
      assert.equal(await store.find(RECORDED, elsewhere), null);
      assert.equal(await store.find("0a0b0c0d-0000-4000-8000-00000000dead"), null);
      assert.equal(await store.find("../../etc/passwd"), null);
    });

    await t.step(
      "history: the typed turns and replies, not tools, meta or sub-agents",
      async () => {
        const recordedSession = (await store.find(RECORDED))!;
        assert.deepEqual(
          (await store.history(recordedSession))!.map((m) => `${m.role}: ${m.text}`),
          ["user: hello direct", "assistant: Answer direct"],
        );
        const otherSession = (await store.find(OTHER))!;
        assert.deepEqual((await store.history(otherSession))!.map((m) => `${m.role}: ${m.text}`), [
          "user: \u001b]52;c;aGk=\u0007fix the bug",
          "assistant: Part one\npart two",
        ]);
      },
    );
  } finally {
    await removeTree(config);
    await removeTree(project);
    await removeTree(elsewhere);
  }
});
