/**
 * Paths are judged for the daemon's host (issue 28 item 9): on Unix `C:/x`
 * is not absolute, so a routine's `outputTarget.path` or `cwd`, a run's
 * `cwd` and a launch's paths in that form are refused with 400 naming the
 * field, instead of landing under the daemon's working directory.
 */
import assert from "node:assert/strict";
import { fixtureHarnesses, startTestDaemon } from "../helpers/daemon.ts";
import { removeTree, tempHome } from "../helpers/home.ts";
import { routineDefinition } from "../helpers/routine.ts";

// deno-lint-ignore no-explicit-any
type Json = Record<string, any>;

/** Asserts the contract's action or error envelope: 400 `invalid_request` naming `field`. */
function assertRefused(response: { status: number; body: Json }, field: string): void {
  assert.equal(response.status, 400, JSON.stringify(response.body));
  assert.equal(response.body.error.code, "invalid_request");
  assert.equal(response.body.error.details.field, field);
  assert.match(response.body.error.message, /absolute path/);
}

Deno.test({
  name: "a Windows path is refused on Unix with 400 naming the field, through the daemon",
  ignore: Deno.build.os === "windows",
  fn: async () => {
    const project = await Deno.realPath(await tempHome());
    await using t = await startTestDaemon({
      configJson: { harnesses: fixtureHarnesses() },
      scheduler: false,
    });
    try {
      const create = (overrides: Json) =>
        t.client.post<Json>("/actions", {
          action: "svc.automations.create",
          definition: routineDefinition("paths", { cwd: project, ...overrides }),
        });
      const target = await create({ outputTarget: { kind: "file", path: "C:/x" } });
      assertRefused(target, "definition.outputTarget.path");
      assert.equal(target.body.ok, false);
      assert.equal(target.body.status, "rejected");
      assertRefused(await create({ cwd: "C:/x" }), "definition.cwd");

      assert.equal((await create({})).status, 200);
      const run = await t.client.post<Json>("/actions", {
        action: "svc.automations.run",
        id: "paths",
        cwd: "C:\\x",
      });
      assertRefused(run, "cwd");

      const launch = (fields: Json) =>
        t.client.post<Json>("/sessions", { harness: "fixture", prompt: "exit 0", ...fields });
      assertRefused(await launch({ projectRoot: "C:/x" }), "projectRoot");
      assertRefused(await launch({ projectRoot: project, cwd: "C:/x" }), "cwd");

      const sessions = (await t.client.get<Json[]>("/sessions")).body;
      assert.deepEqual(sessions, [], "nothing was launched");
      assert.equal(await Deno.stat("C:").then(() => true, () => false), false);
    } finally {
      await removeTree(project);
    }
  },
});
