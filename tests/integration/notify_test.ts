/** notify.command after runs, for the configured outcomes only (D21). */
import assert from "node:assert/strict";
import { fixtureHarnesses, startTestDaemon, waitForEnd } from "../helpers/daemon.ts";
import { removeTree, tempHome } from "../helpers/home.ts";
import { routineDefinition } from "../helpers/routine.ts";

type Json = Record<string, unknown>;

Deno.test("a failed run runs notify.command with its ids; a succeeded one does not by default (D21)", async () => {
  const dir = await Deno.realPath(await tempHome());
  const script = `${dir}/notify.ts`;
  await Deno.writeTextFile(
    script,
    `const keys = ["SVC_EVENT", "SVC_RUN_ID", "SVC_ROUTINE_ID", "SVC_STATUS", "SVC_RESULT_PATH"];
     const line = JSON.stringify(Object.fromEntries(keys.map((k) => [k, Deno.env.get(k)])));
     await Deno.writeTextFile(Deno.args[0], line + "\\n", { append: true });`,
  );
  const out = `${dir}/notified.jsonl`;
  await Deno.writeTextFile(out, "");
  await using t = await startTestDaemon({
    configJson: {
      harnesses: fixtureHarnesses(),
      notify: { command: [Deno.execPath(), "run", "-A", script, out] },
    },
    scheduler: false,
  });
  try {
    const run = async (id: string, prompt: string) => {
      await t.client.post("/actions", {
        action: "svc.automations.create",
        definition: routineDefinition(id, { prompt, cwd: dir }),
      });
      const started = await t.client.post<Json>("/actions", { action: "svc.automations.run", id });
      const result = started.body.result as Json;
      await waitForEnd(t.client, result.sessionId as string);
      await t.daemon.runner.settled();
      return result.runId as string;
    };
    await run("fine", "exit 0");
    const failed = await run("broken", "exit 3");
    const deadline = Date.now() + 20_000;
    let lines: Json[] = [];
    while (lines.length === 0) {
      assert.ok(Date.now() < deadline, "the notification never ran");
      await new Promise((resolve) => setTimeout(resolve, 50));
      lines = (await Deno.readTextFile(out)).split("\n").filter(Boolean).map((l) => JSON.parse(l));
    }
    await new Promise((resolve) => setTimeout(resolve, 300)); // A late second one would show.
    lines = (await Deno.readTextFile(out)).split("\n").filter(Boolean).map((l) => JSON.parse(l));
    assert.deepEqual(lines, [{
      SVC_EVENT: "failed",
      SVC_RUN_ID: failed,
      SVC_ROUTINE_ID: "broken",
      SVC_STATUS: "failed",
      SVC_RESULT_PATH: "",
    }]);
  } finally {
    await removeTree(dir);
  }
});
