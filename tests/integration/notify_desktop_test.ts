/**
 * The desktop channel runs the `notify-send` found on the daemon's PATH with
 * the title and body as separate arguments (issue 35, D31): a recording
 * `notify-send` put first on PATH shows that quotes, `$()` and newlines in a
 * hostile session title arrive as plain text, and that nothing ran them.
 * Also `svc notifications test` through the real CLI.
 */
import assert from "node:assert/strict";
import { basename, join } from "node:path";
import { ContractClient } from "../helpers/contract.ts";
import { removeTree, tempHome } from "../helpers/home.ts";
import { runSvc, startServe } from "../helpers/process.ts";
import { cliHarnesses } from "../cli/cli_daemon.ts";

type Json = Record<string, unknown>;

Deno.test({
  name: "the desktop channel calls notify-send from PATH with separate arguments (D31)",
  ignore: Deno.build.os === "windows",
}, async () => {
  const bin = await tempHome();
  const project = await Deno.realPath(await tempHome());
  const home = await tempHome();
  const record = join(bin, "calls.jsonl");
  // A recording notify-send: each call's argv as one JSON line.
  await Deno.writeTextFile(
    join(bin, "record.ts"),
    `await Deno.writeTextFile(${
      JSON.stringify(record)
    }, JSON.stringify(Deno.args) + "\\n", { append: true });\n`,
  );
  await Deno.writeTextFile(
    join(bin, "notify-send"),
    `#!/bin/sh\nexec '${Deno.execPath()}' run -A '${join(bin, "record.ts")}' "$@"\n`,
  );
  await Deno.chmod(join(bin, "notify-send"), 0o755);
  await Deno.writeTextFile(
    join(home, "config.json"),
    JSON.stringify({
      harnesses: cliHarnesses(),
      notifications: { afterSeconds: 0, channels: [{ kind: "desktop", name: "screen" }] },
    }),
  );
  const serve = await startServe(home, [], { PATH: `${bin}:${Deno.env.get("PATH")}` });
  const client = new ContractClient({ socketPath: join(home, "svc.sock") });
  try {
    const hostile = `it's "quoted" $(touch pwned) \`touch pwned2\`\nline two; rm -rf ~`;
    const launched = await client.post<Json>("/sessions", {
      projectRoot: project,
      harness: "agent",
      title: hostile,
      approvals: "ask",
      prompt: "ask Bash echo $(id) > 'out'",
    });
    assert.equal(launched.status, 201, JSON.stringify(launched.body));
    const calls = async () =>
      (await Deno.readTextFile(record).catch(() => "")).split("\n").filter(Boolean)
        .map((line) => JSON.parse(line) as string[]);
    const deadline = Date.now() + 20_000;
    while ((await calls()).length === 0) {
      assert.ok(Date.now() < deadline, `notify-send never ran\n${serve.stderr()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const [argv] = await calls();
    assert.deepEqual(argv, [
      "--app-name=svc",
      "--",
      `agent in ${basename(project)} (it's "quoted" $(touch pwned) \`touch pwned2\`<U+000A>` +
      `line two; rm -rf ~) needs approval: Bash`,
      "echo $(id) > 'out'",
    ]);
    for (const dir of [project, home, bin]) {
      for (const name of ["pwned", "pwned2", "out"]) {
        assert.equal(await Deno.stat(join(dir, name)).then(() => true, () => false), false);
      }
    }

    const tested = await runSvc(["notifications", "test", "--channel", "1", "--home", home], {
      PATH: `${bin}:${Deno.env.get("PATH")}`,
    });
    assert.equal(tested.code, 0, tested.stderr);
    assert.match(tested.stdout, /test\s+-\s+screen\s+sent/);
    assert.deepEqual((await calls())[1], [
      "--app-name=svc",
      "--",
      "svc test notification",
      "svc can reach you on this channel",
    ]);
    const unknown = await runSvc(["notifications", "test", "--channel", "nope", "--home", home]);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /invalid_request: No notification channel "nope"/);
  } finally {
    client.close();
    const status = await serve.stop();
    await removeTree(home);
    await removeTree(project);
    await removeTree(bin);
    assert.equal(status.code, 0, serve.stderr());
  }
});
