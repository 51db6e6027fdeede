import assert from "node:assert/strict";
import { denoCommandRunner } from "../../src/service/command_runner.ts";

Deno.test("denoCommandRunner runs argv and collects its output", async (t) => {
  await t.step("exit code, stdout and stderr", async () => {
    const outcome = await denoCommandRunner.run([
      Deno.execPath(),
      "eval",
      "console.log('out'); console.error('err'); Deno.exit(3)",
    ]);
    assert.deepEqual(outcome, { started: true, code: 3, stdout: "out\n", stderr: "err\n" });
  });
  await t.step("a missing program is reported, not thrown", async () => {
    const outcome = await denoCommandRunner.run(["svc-no-such-program-here", "--version"]);
    assert.equal(outcome.started, false);
    assert.match(
      outcome.started ? "" : outcome.reason,
      /"svc-no-such-program-here" is not installed or not on PATH/,
    );
  });
});
