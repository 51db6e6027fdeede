import assert from "node:assert/strict";
import { join } from "node:path";
import { CodexStore } from "../../../src/sessions/adoption/codex_store.ts";
import { removeTree, tempHome } from "../../helpers/home.ts";
import { place, recording, touch } from "./store_fixtures.ts";

const RECORDED = "01a2224a-77e5-7bf0-aa38-595d8dee486b";
const OTHER = "01a2224a-0000-7000-8000-000000000002";

Deno.test("CodexStore lists, finds and reads Codex's rollout files", async (t) => {
  const codexHome = await tempHome();
  const project = await tempHome();
  try {
    const day = join(codexHome, "sessions", "2026", "11", "28");
    const recorded = join(day, `rollout-2026-11-28T13-13-55-${RECORDED}.jsonl`);
    await place(recorded, await recording("codex_rollout.jsonl", project));
    await touch(recorded, Date.parse("2026-11-28T13:13:56Z"));
    // An older day's thread whose meta names another id than its file: not listed.
    const lying = join(
      codexHome,
      "sessions",
      "2026",
      "11",
      "27",
      `rollout-2026-11-27T09-00-00-${OTHER}.jsonl`,
    );
    await place(
      lying,
      JSON.stringify({ type: "session_meta", payload: { id: RECORDED, cwd: project } }) + "\n",
    );
    await place(join(day, "notes.jsonl"), "{}\n");
    const store = new CodexStore(codexHome);

    await t.step("list: the thread, its cwd and its first typed message as the title", async () => {
      assert.deepEqual(await store.list({ limit: 10 }), [{
        agentSessionId: RECORDED,
        harness: "codex",
        cwd: project,
        title: "hello direct",
        lastActivityAt: "2026-11-28T13:13:56.000Z",
      }]);
      assert.deepEqual(await store.list({ cwd: "/elsewhere", limit: 10 }), []);
    });

    await t.step("find: by id, and by id and cwd", async () => {
      assert.equal((await store.find(RECORDED))?.cwd, project);
      assert.equal(await store.find(RECORDED, "/elsewhere"), null);
      assert.equal(await store.find(OTHER), null);
      assert.equal(await store.find("../x"), null);
    });

    await t.step(
      "history: the user's and the model's messages, not codex's own context",
      async () => {
        const session = (await store.find(RECORDED))!;
        assert.deepEqual(
          (await store.history(session))!.map((m) => `${m.role}: ${m.text}`),
          ["user: hello direct", "assistant: Answer direct"],
        );
      },
    );
  } finally {
    await removeTree(codexHome);
    await removeTree(project);
  }
});
