/** A run whose tool calls were denied says so everywhere (issue 27 item 7). */
import assert from "node:assert/strict";
import { deniedText } from "../../src/automations/delivery.ts";
import { runCli } from "../../src/cli/main.ts";
import { captureIo } from "../helpers/capture_io.ts";
import { startTestDaemon } from "../helpers/daemon.ts";
import { removeTree, tempHome } from "../helpers/home.ts";
import { cliHarnesses } from "./cli_daemon.ts";
import { routineDefinition } from "../helpers/routine.ts";

Deno.test("deniedText() counts the calls and names each tool once", () => {
  assert.equal(deniedText(0, []), null);
  assert.equal(deniedText(null, []), null);
  assert.equal(deniedText(1, ["Bash"]), "1 tool call denied by policy: Bash");
  assert.equal(
    deniedText(3, ["Bash", "Write", "Bash"]),
    "3 tool calls denied by policy: Bash, Write",
  );
});

Deno.test("svc automations runs, the inbox result and the notification show a run's denials", async () => {
  const project = await Deno.realPath(await tempHome());
  const notified = `${project}/notified.env`;
  await using t = await startTestDaemon({
    configJson: {
      harnesses: cliHarnesses(),
      notify: {
        command: ["sh", "-c", `env > "${notified}.tmp" && mv "${notified}.tmp" "${notified}"`],
        on: ["succeeded"],
      },
    },
  });
  const svc = async (...args: string[]) => {
    const captured = captureIo({ SVC_HOME: t.home });
    const code = await runCli(args, captured.io);
    return { code, stdout: captured.stdout(), stderr: captured.stderr() };
  };
  try {
    const definition = routineDefinition("asker", {
      name: "Asker",
      rrule: "FREQ=DAILY;BYHOUR=9",
      runtime: "agent",
      prompt: "ask Bash touch created.txt",
      cwd: project,
      outputTarget: { kind: "inbox" },
    });
    await Deno.writeTextFile(`${project}/asker.json`, JSON.stringify(definition));
    assert.equal((await svc("automations", "create", "-f", `${project}/asker.json`)).code, 0);
    const ran = await svc("automations", "run", "asker");
    assert.equal(ran.code, 0, ran.stderr);
    const runId = /^run: +(\S+)$/m.exec(ran.stdout)![1];
    await t.daemon.runner.settled();

    const runs = await svc("automations", "runs", "asker");
    assert.match(runs.stdout, /^ID +TRIGGER +STATUS +SCHEDULED +STARTED +SESSION +DENIED +ERROR$/m);
    assert.match(runs.stdout, new RegExp(`^${runId} +manual +succeeded .* ses_\\S+ +1 +-$`, "m"));

    const result = await svc("inbox", "show", runId);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /\*\*1 tool call denied by policy: Bash\*\*/);
    assert.match(result.stdout, /^Permissions {2}1 tool call denied by policy: Bash$/m);

    const deadline = Date.now() + 20_000;
    let env = "";
    while (Date.now() < deadline) {
      env = await Deno.readTextFile(notified).catch(() => "");
      if (env !== "") break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.match(env, /^SVC_PERMISSION_DENIALS=1$/m);
    assert.match(env, /^SVC_DENIED_TOOLS=Bash$/m);
    assert.match(env, /^SVC_STATUS=succeeded$/m);
  } finally {
    await removeTree(project);
  }
});
