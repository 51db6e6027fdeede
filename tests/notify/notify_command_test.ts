import assert from "node:assert/strict";
import type { Logger } from "../../src/log.ts";
import { commandNotifier, notify, type NotifyRunner } from "../../src/notify/notify_command.ts";

function memoryLog(): Logger & { lines: Array<[string, string, Record<string, unknown>]> } {
  const lines: Array<[string, string, Record<string, unknown>]> = [];
  const write = (level: string) => (message: string, fields: Record<string, unknown> = {}) =>
    lines.push([level, message, fields]);
  return { lines, info: write("info"), warn: write("warn"), error: write("error") };
}

Deno.test("notify() runs only for the configured events and sets SVC_EVENT", async () => {
  const calls: Array<[string[], Record<string, string>]> = [];
  const runner: NotifyRunner = (command, env) => {
    calls.push([command, env]);
    return Promise.resolve();
  };
  const config = { command: ["notify-send"], on: ["failed" as const] };
  assert.equal(notify(null, runner, "failed", {}), null);
  assert.equal(notify(config, runner, "succeeded", {}), null);
  await notify(config, runner, "failed", { SVC_RUN_ID: "run_1" });
  assert.deepEqual(calls, [[["notify-send"], { SVC_RUN_ID: "run_1", SVC_EVENT: "failed" }]]);
});

Deno.test("commandNotifier() logs a failing command and kills a hanging one", async () => {
  const log = memoryLog();
  const run = commandNotifier(log, { timeoutMs: 300 });
  await run([Deno.execPath(), "eval", "console.log('hi'); Deno.exit(3)"], { SVC_EVENT: "failed" });
  await run([Deno.execPath(), "eval", "await new Promise(() => setInterval(() => {}, 1000))"], {
    SVC_EVENT: "failed",
  });
  await run(["/nonexistent/notifier"], { SVC_EVENT: "failed" });
  assert.deepEqual(log.lines.map(([level, message]) => [level, message]), [
    ["warn", "Notification command failed"],
    ["warn", "Notification command killed after 300 ms"],
    ["warn", "Notification command could not start"],
  ]);
  assert.equal(log.lines[0][2].code, 3);
  assert.equal(log.lines[0][2].stdout, "hi\n");
});
