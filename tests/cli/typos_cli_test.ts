/**
 * What a mistyped command line gets from the real CLI (issue 27 item 12):
 * a suggestion instead of the whole help or the argument parser's text, the
 * enabled harnesses for an unknown one, `svc serve` when no daemon runs, and
 * each subcommand's own --help.
 */
import assert from "node:assert/strict";
import { removeTree, tempHome } from "../helpers/home.ts";
import { runSvc } from "../helpers/process.ts";
import { startCliDaemon } from "./cli_daemon.ts";

Deno.test("svc: a mistyped command or subcommand suggests the one meant", async () => {
  const command = await runSvc(["sesions", "list"]);
  assert.equal(command.code, 2);
  assert.equal(
    command.stderr,
    'svc: unknown command "sesions" (did you mean sessions?)\nRun "svc help" for the list of commands\n',
  );
  const far = await runSvc(["frobnicate"]);
  assert.equal(far.code, 2);
  assert.match(far.stderr, /^svc: unknown command "frobnicate"\nRun "svc help"/);
  const sub = await runSvc(["sessions", "lsit"]);
  assert.equal(sub.code, 2);
  assert.match(sub.stderr, /^svc sessions: Unknown subcommand "lsit" \(did you mean list\?\)\n/);
});

Deno.test("svc: an unknown option names itself and the option meant, for every command", async () => {
  const cases: Array<[string[], string]> = [
    [
      ["chat", "--harnes", "claude"],
      "svc chat: unknown option --harnes (did you mean --harness?)",
    ],
    [
      ["sessions", "start", "--harnes", "x"],
      "svc sessions: unknown option --harnes (did you mean --harness?)",
    ],
    [
      ["events", "ses_1", "--folow"],
      "svc events: unknown option --folow (did you mean --follow?)",
    ],
    [["status", "--hmoe", "/x"], "svc status: unknown option --hmoe (did you mean --home?)"],
  ];
  for (const [args, expected] of cases) {
    const result = await runSvc(args);
    assert.equal(result.code, 2, result.stderr);
    assert.equal(result.stderr.split("\n")[0], expected);
    assert.doesNotMatch(result.stderr, /positional argument|place it at the end/);
  }
});

Deno.test("svc: each subcommand's --help is its own", async () => {
  const kill = await runSvc(["sessions", "kill", "--help"]);
  assert.equal(kill.code, 0);
  assert.match(kill.stdout, /^Usage: svc sessions kill ID \[--signal SIGTERM\|SIGKILL\]\n/);
  assert.doesNotMatch(kill.stdout, /Subcommands:|sessions list/);
  const activate = await runSvc(["automations", "activate", "-h"]);
  assert.match(activate.stdout, /^Usage: svc automations activate ID \[--yes\]/);
  const whole = await runSvc(["sessions", "--help"]);
  assert.match(whole.stdout, /^Usage: svc sessions <subcommand>/);
});

Deno.test("svc chat: an unknown harness lists the enabled ones; the banner labels harness and protocol", async () => {
  await using d = await startCliDaemon();
  const unknown = await d.svc(["chat", "--harness", "claud", "--project-root", d.project, "hi"]);
  assert.equal(unknown.code, 1);
  assert.match(
    unknown.stderr,
    /^invalid_request: Harness "claud" is not supported; enabled harnesses: (\S+, )*agent(, \S+)* \(field "harness"\)$/m,
  );
});

Deno.test("svc status: without a daemon, suggests svc serve", async () => {
  const home = await tempHome();
  try {
    const status = await runSvc(["status"], { SVC_HOME: home });
    assert.equal(status.code, 3);
    assert.match(status.stderr, /no daemon answers on .*; start it with "svc serve"/);
  } finally {
    await removeTree(home);
  }
});
