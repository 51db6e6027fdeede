/**
 * Issue 27 item 3 with a real agent: `printf 'hi\nRUN touch p.txt\ny\n/close\n' | svc chat
 * --harness claude` answers the permission request with the piped `y` (it is read only once the
 * question is asked, not sent as a turn), the file is created, and the chat ends within seconds.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { MAIN } from "../helpers/process.ts";
import { startAgentDaemon } from "./agent_daemon.ts";
import { requireAgent, runAgentTests } from "./agents_gate.ts";

Deno.test({
  name: "claude: a piped chat's y answers the question it waited for; the tool ran (issue 27)",
  ignore: !runAgentTests,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    requireAgent("claude");
    await using d = await startAgentDaemon("claude", {
      config: { turnTimeoutMinutes: 1, approvals: { timeoutSeconds: 60 } },
    });
    d.provider.script([
      { text: "Hello." },
      { toolCall: { name: "Bash", arguments: { command: "touch p.txt", description: "Touch" } } },
      { text: "Created p.txt." },
    ]);
    const chat = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--allow-all",
        MAIN,
        "chat",
        "--harness",
        "claude",
        "--project-root",
        d.project,
      ],
      env: { NO_COLOR: "1", SVC_HOME: d.home },
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const writer = chat.stdin.getWriter();
    await writer.write(new TextEncoder().encode("hi\nRUN touch p.txt\ny\n/close\n"));
    await writer.close();
    const timer = setTimeout(() => chat.kill("SIGKILL"), 90_000);
    const output = await chat.output();
    clearTimeout(timer);
    const stdout = new TextDecoder().decode(output.stdout);
    const stderr = new TextDecoder().decode(output.stderr);
    assert.equal(output.code, 0, `${stdout}\n${stderr}`);
    assert.ok(
      await Deno.stat(join(d.project, "p.txt")).then(() => true, () => false),
      `p.txt was created:\n${stdout}`,
    );
    // Had `y` gone out as a turn, the question would have waited out its 60 s and been denied.
    assert.match(stdout, /Created p\.txt\./);
  },
});
