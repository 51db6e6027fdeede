/** The CLI resolves paths against the user's directory, also under `deno task` (issue 27 item 8). */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { cliWorkingDirectory, resolveCliPath } from "../../src/cli/working_dir.ts";
import { removeTree, tempHome } from "../helpers/home.ts";
import { startCliDaemon } from "./cli_daemon.ts";

const CONFIG = fileURLToPath(new URL("../../deno.json", import.meta.url));

Deno.test("cliWorkingDirectory() is INIT_CWD when deno task set it, else Deno.cwd()", () => {
  assert.equal(cliWorkingDirectory({ env: () => undefined }), Deno.cwd());
  assert.equal(
    cliWorkingDirectory({ env: (name) => name === "INIT_CWD" ? "/u" : undefined }),
    "/u",
  );
  // A relative INIT_CWD is not a directory anyone ran in: ignored.
  assert.equal(cliWorkingDirectory({ env: () => "rel" }), Deno.cwd());
  assert.equal(resolveCliPath({ env: () => "/u" }, "a/b"), "/u/a/b");
  assert.equal(resolveCliPath({ env: () => "/u" }, "/abs"), "/abs");
});

Deno.test("deno task svc sessions start resolves --project-root . against the user's directory", async () => {
  await using cli = await startCliDaemon();
  const user = await Deno.realPath(await tempHome());
  try {
    await Deno.mkdir(`${user}/sub`);
    const output = await new Deno.Command(Deno.execPath(), {
      args: [
        "task",
        "--quiet",
        "--config",
        CONFIG,
        "svc",
        "sessions",
        "start",
        "--project-root",
        ".",
        "--cwd",
        "sub",
        "--harness",
        "fixture",
        "out hi",
      ],
      cwd: user,
      env: { NO_COLOR: "1", SVC_HOME: cli.home },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(output.stderr);
    assert.equal(output.code, 0, stderr);
    const sessionId = new TextDecoder().decode(output.stdout).trim();
    const session = await cli.client.get<Record<string, unknown>>(`/sessions/${sessionId}`);
    assert.equal(session.body.project_root, user);
    assert.equal(session.body.cwd, `${user}/sub`);
  } finally {
    await removeTree(user);
  }
});
