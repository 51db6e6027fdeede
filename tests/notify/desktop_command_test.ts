import assert from "node:assert/strict";
import type { Notification } from "../../src/notify/content.ts";
import { desktopCommand, desktopProgram } from "../../src/notify/desktop_command.ts";

const notification = { title: `"$(x)"`, body: "-n body" } as Notification;

Deno.test("desktopCommand() passes title and body as their own arguments or variables", () => {
  assert.deepEqual(desktopCommand("linux", notification).argv, [
    "notify-send",
    "--app-name=svc",
    "--",
    `"$(x)"`,
    "-n body",
  ]);
  assert.deepEqual(desktopCommand("darwin", notification).argv.slice(-2), [`"$(x)"`, "-n body"]);
  const windows = desktopCommand("windows", notification);
  assert.ok(!windows.argv.join(" ").includes("$(x)"), "never spliced into the script");
  assert.deepEqual(windows.env, { SVC_NOTIFY_TITLE: `"$(x)"`, SVC_NOTIFY_BODY: "-n body" });
  assert.equal(desktopProgram("darwin"), "osascript");
});
