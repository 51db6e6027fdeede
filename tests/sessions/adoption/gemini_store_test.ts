import assert from "node:assert/strict";
import { join } from "node:path";
import { GeminiStore } from "../../../src/sessions/adoption/gemini_store.ts";
import { removeTree, tempHome } from "../../helpers/home.ts";
import { place, recording, touch } from "./store_fixtures.ts";

const RECORDED = "663907cd-ece6-44ae-b16f-dc31ced0de82";

Deno.test("GeminiStore lists, finds and reads Gemini CLI's chat files", async (t) => {
  const home = await tempHome();
  const project = await tempHome();
  try {
    const tmp = join(home, ".gemini", "tmp");
    await place(join(tmp, "project", ".project_root"), project);
    const chat = join(tmp, "project", "chats", "session-2026-11-28T13-13-663907cd.jsonl");
    await place(chat, await recording("gemini_chat.jsonl", project));
    await touch(chat, Date.parse("2026-11-28T13:14:00.021Z"));
    // Another project whose .project_root is not a path, and a chat rewritten by `$set`.
    await place(join(tmp, "odd", ".project_root"), "not/a/path\n/second");
    const rewritten = [
      { sessionId: "11111111-2222-4333-8444-555555555555", startTime: "x", kind: "main" },
      { id: "a", type: "user", content: [{ text: "first words" }] },
      { id: "b", type: "gemini", content: "first answer" },
      { $set: { messages: [{ id: "c", type: "user", content: "compressed" }] } },
      { id: "d", type: "gemini", content: "after" },
      { id: "d", type: "gemini", content: "after, rewritten" },
      { id: "e", type: "info", content: "not a message" },
    ];
    await place(
      join(tmp, "odd", "chats", "session-2026-11-28T12-00-11111111.jsonl"),
      rewritten.map((l) => JSON.stringify(l)).join("\n") + "\n",
    );
    const store = new GeminiStore(home);

    await t.step("list: the chat, its project's directory, its first typed message", async () => {
      const sessions = await store.list({ limit: 10 });
      assert.deepEqual(sessions.find((s) => s.agentSessionId === RECORDED), {
        agentSessionId: RECORDED,
        harness: "gemini",
        cwd: project,
        title: "hello direct",
        lastActivityAt: "2026-11-28T13:14:00.021Z",
      });
      assert.equal(sessions.find((s) => s.agentSessionId !== RECORDED)?.cwd, null);
      assert.deepEqual((await store.list({ cwd: project, limit: 10 })).length, 1);
    });

    await t.step("find and history: the log replayed, gemini's own context left out", async () => {
      const session = (await store.find(RECORDED, project))!;
      assert.deepEqual(
        (await store.history(session))!.map((m) => `${m.role}: ${m.text}`),
        ["user: hello direct", "assistant: Answer direct"],
      );
      const odd = (await store.find("11111111-2222-4333-8444-555555555555"))!;
      assert.deepEqual(
        (await store.history(odd))!.map((m) => `${m.role}: ${m.text}`),
        ["user: compressed", "assistant: after, rewritten"],
      );
      assert.equal(await store.find(RECORDED, "/elsewhere"), null);
      assert.equal(await store.find("663907cd-0000-4000-8000-000000000000"), null);
    });
  } finally {
    await removeTree(home);
    await removeTree(project);
  }
});
