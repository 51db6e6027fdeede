/**
 * Issue 27 item 14 through the real CLI and daemon: the ACTIVITY column of
 * `svc sessions list`, the worktree `svc chat --worktree` announces, and the
 * daemon log's info lines for session, approval and run lifecycles (ids, no
 * prompt text).
 */
import assert from "node:assert/strict";
import { waitForEnd } from "../helpers/daemon.ts";
import { type CliDaemon, startCliDaemon } from "./cli_daemon.ts";
import { routineDefinition } from "../helpers/routine.ts";

/** The list row of `id`, once it matches `pattern` (activity changes as the agent works). */
async function rowOf(d: CliDaemon, id: string, pattern: RegExp): Promise<string> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const list = await d.svc(["sessions", "list"]);
    assert.equal(list.code, 0, list.stderr);
    const row = list.stdout.split("\n").find((line) => line.startsWith(id)) ?? "";
    if (pattern.test(row)) return row;
    if (Date.now() > deadline) throw new Error(`Row of ${id} never matched ${pattern}:\n${row}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function git(cwd: string, ...args: string[]): Promise<void> {
  const output = await new Deno.Command("git", { args, cwd, stdout: "null", stderr: "piped" })
    .output();
  assert.ok(output.success, new TextDecoder().decode(output.stderr));
}

Deno.test("sessions list: ACTIVITY is working, waiting approval, idle; the daemon log tells the lifecycle", async () => {
  await using d = await startCliDaemon();
  const header = (await d.svc(["sessions", "list"])).stdout.split("\n")[0];
  assert.match(header, /^ID +STATUS +ACTIVITY +HARNESS +CREATED +RESUMABLE +TITLE$/);

  const asking = await d.start("agent", "ask Bash touch SECRET_PROMPT_TEXT");
  await rowOf(d, asking, /^ses_\w+ +running +waiting approval +agent /);
  const approved = await d.svc(["approve", asking, "req_1"]);
  assert.equal(approved.code, 0, approved.stderr);
  await rowOf(d, asking, /^ses_\w+ +running +idle +agent /);
  assert.equal((await d.svc(["sessions", "close", asking])).code, 0);
  await waitForEnd(d.client, asking);
  await rowOf(d, asking, /^ses_\w+ +completed +- +agent /);

  const hanging = await d.start("agent", "hang");
  await rowOf(d, hanging, /^ses_\w+ +running +working +agent /);
  assert.equal((await d.svc(["sessions", "kill", hanging])).code, 0);
  await waitForEnd(d.client, hanging);

  const routine = `${d.project}/routine.json`;
  await Deno.writeTextFile(
    routine,
    JSON.stringify(routineDefinition("nightly", {
      name: "Nightly",
      rrule: "FREQ=DAILY;BYHOUR=9",
      timeoutMinutes: 10,
      prompt: "out hi; exit 0",
      cwd: d.project,
    })),
  );
  assert.equal((await d.svc(["automations", "create", "-f", routine])).code, 0);
  const run = await d.svc(["automations", "run", "nightly", "--json"]);
  assert.equal(run.code, 0, run.stderr);
  const { runId, sessionId: runSession } = JSON.parse(run.stdout).result;

  // The run's end is recorded just after `automations run` answers: wait for its line.
  const logFile = `${d.home}/logs/daemon.log`;
  const deadline = Date.now() + 10_000;
  while (
    !(await Deno.readTextFile(logFile)).includes(" INFO Run ended ") && Date.now() < deadline
  ) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const log = await Deno.readTextFile(logFile);
  const lines = log.split("\n");
  const has = (message: string, fields: Record<string, unknown>) =>
    assert.ok(
      lines.some((line) =>
        line.includes(` INFO ${message} `) &&
        Object.entries(fields).every(([key, value]) =>
          line.includes(`"${key}":${JSON.stringify(value)}`)
        )
      ),
      `no "${message}" ${JSON.stringify(fields)} in:\n${log}`,
    );
  has("Session launched", { sessionId: asking, harness: "agent", protocol: "claude" });
  has("Approval asked", { sessionId: asking, requestId: "req_1", tool: "Bash" });
  has("Approval answered", {
    sessionId: asking,
    requestId: "req_1",
    decision: "allow",
    by: "owner",
  });
  has("Session ended", { sessionId: asking, status: "completed" });
  has("Session kill requested", { sessionId: hanging, signal: "SIGTERM" });
  has("Session ended", { sessionId: hanging, status: "killed" });
  has("Run started", { runId, routineId: "nightly", sessionId: runSession });
  has("Run ended", { runId, routineId: "nightly", status: "succeeded" });
  assert.ok(!log.includes("SECRET_PROMPT_TEXT"), "no prompt or command text in the log");
});

Deno.test("chatCommand --worktree: names the worktree and its branch at the start", async () => {
  await using d = await startCliDaemon();
  await git(d.project, "init", "-q", "-b", "main");
  await Deno.writeTextFile(`${d.project}/README`, "hi\n");
  await git(d.project, "add", "README");
  await git(d.project, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init");
  const child = d.spawn([
    "chat",
    "--harness",
    "agent",
    "--project-root",
    d.project,
    "--worktree",
    "hi",
  ]);
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode("/close\n"));
  await writer.close();
  const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
  const output = await child.output();
  clearTimeout(timer);
  const stderr = new TextDecoder().decode(output.stderr);
  assert.equal(output.code, 0, stderr);
  const id = /^session (ses_\w+)$/m.exec(stderr)?.[1];
  assert.ok(id, stderr);
  assert.match(
    stderr,
    new RegExp(
      `^Worktree ${d.home}/worktrees/${id} \\(branch svc/session/${id}\\); your checkout is untouched$`,
      "m",
    ),
  );
});
