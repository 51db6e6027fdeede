/** The CLI resolves paths against the user's directory, also under `deno task` (issue 27 item 8). */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { cliWorkingDirectory, resolveCliPath } from "../../src/cli/working_dir.ts";
import { removeTree, tempHome } from "../helpers/home.ts";
import { startCliDaemon } from "./cli_daemon.ts";

const CONFIG = fileURLToPath(new URL("../../deno.json", import.meta.url));

Deno.test("cliWorkingDirectory() is INIT_CWD when deno task set it, else Deno.cwd()", () => {
  const here = Deno.cwd();
  const initCwd = { env: (name: string) => name === "INIT_CWD" ? "/u" : undefined };
  assert.equal(cliWorkingDirectory({ env: () => undefined }, here), here);
  // deno task runs svc in the program's directory (the checkout): INIT_CWD is the user's.
  assert.equal(cliWorkingDirectory(initCwd, here), "/u");
  // Elsewhere INIT_CWD was only inherited (a child of a deno task): the cwd counts.
  assert.equal(cliWorkingDirectory(initCwd, "/the/checkout"), here);
  // A relative INIT_CWD is not a directory anyone ran in: ignored.
  assert.equal(cliWorkingDirectory({ env: () => "rel" }, here), here);
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
      // As from a user's shell: an INIT_CWD of the deno task running these tests is not kept.
      clearEnv: true,
      env: { ...withoutInitCwd(Deno.env.toObject()), NO_COLOR: "1", SVC_HOME: cli.home },
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

function withoutInitCwd(env: Record<string, string>): Record<string, string> {
  const { INIT_CWD: _, ...rest } = env;
  return rest;
}
