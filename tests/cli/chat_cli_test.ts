/**
 * `svc chat`, `svc attach` and the transcript of `svc events` as real
 * processes against a real `svc serve` with the scripted stream-json agent
 * (D16, D17). stdin and stdout are pipes here: the plain mode. The terminal
 * mode is driven in tmux (chat_tmux_test.ts).
 */
import assert from "node:assert/strict";
import { waitForEnd } from "../helpers/daemon.ts";
import { removeTree, tempHome } from "../helpers/home.ts";
import { MAIN, runSvc } from "../helpers/process.ts";
import { type CliDaemon, startCliDaemon, textReader } from "./cli_daemon.ts";

const decoder = new TextDecoder();

/** `promise`, or a failure naming `what` after 20 s: no wait here is unbounded. */
async function within<T>(what: string, promise: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Timed out waiting for ${what}`)), 20_000);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Starts `svc ARGS` with `NO_COLOR` empty (colour is allowed, so plain
 * output proves the pipe check) and pipes stdin/stdout/stderr.
 */
function spawnPlain(d: CliDaemon, args: string[], options: { cwd?: string } = {}) {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", MAIN, ...args],
    cwd: options.cwd,
    env: { NO_COLOR: "", SVC_HOME: d.home },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

/** Runs `svc ARGS` with `stdin` as its whole input. */
async function runWithInput(
  d: CliDaemon,
  args: string[],
  stdin: string,
  options: { cwd?: string } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = spawnPlain(d, args, options);
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(stdin));
  await writer.close();
  const output = await within(`svc ${args.join(" ")}`, child.output());
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

const TURN = (n: number, status: string) =>
  new RegExp(`^  [✓✗⊘] turn ${n} ${status}( \\(\\w+\\))?( · [\\d.]+ s)?( · .*)?$`);

function sessionIdOf(stderr: string): string {
  const match = stderr.match(/^session (ses_[0-9A-Z]{26})$/m);
  assert.ok(match, stderr);
  return match[1];
}

Deno.test("chatCommand: a conversation through pipes, in plain text", async (t) => {
  await using d = await startCliDaemon();

  await t.step("PROMPT, a typed turn and /close: the transcript, exit 0", async () => {
    const result = await runWithInput(
      d,
      ["chat", "--harness", "agent", "--project-root", d.project, "hello"],
      "second\n/close\n",
    );
    assert.equal(result.code, 0, result.stderr);
    assert.ok(!result.stdout.includes("\x1b") && !result.stderr.includes("\x1b"), "no ANSI");
    const lines = result.stdout.trimEnd().split("\n");
    const expected: Array<string | RegExp> = [
      /^· session started · agent · pid \d+$/,
      "you › hello",
      "· agent started · claude · model fixture-model · session fixture-session-1",
      "agent › echo: hello",
      TURN(1, "completed"),
      "you › second",
      "agent › echo: second",
      TURN(2, "completed"),
      "· session completed · exit 0",
    ];
    assert.equal(lines.length, expected.length, result.stdout);
    expected.forEach((line, i) => {
      if (typeof line === "string") assert.equal(lines[i], line);
      else assert.match(lines[i], line);
    });
    assert.match(lines[4], / · in 12 \(2 cached\) \/ out 5 tokens · \$0\.0100$/);
    const id = sessionIdOf(result.stderr);
    const record = JSON.parse((await d.svc(["sessions", "show", id, "--json"])).stdout);
    assert.equal(record.status, "completed");
    assert.equal(record.turns, 2);
  });

  await t.step("no PROMPT: the first line is; end of input closes; the root is cwd", async () => {
    const result = await runWithInput(
      d,
      ["chat", "--harness", "agent"],
      "\nfirst words\n",
      { cwd: d.project },
    );
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^you › first words$/m);
    assert.match(result.stdout, /^agent › echo: first words$/m);
    const record = JSON.parse(
      (await d.svc(["sessions", "show", sessionIdOf(result.stderr), "--json"])).stdout,
    );
    assert.equal(record.project_root, d.project);
    assert.equal(record.status, "completed");
  });

  await t.step("SIGINT interrupts the turn; /quit detaches; attach resumes", async () => {
    const child = spawnPlain(d, ["chat", "--harness", "agent", "--project-root", d.project]);
    const writer = child.stdin.getWriter();
    const stdout = textReader(child.stdout);
    const stderr = textReader(child.stderr);
    await writer.write(new TextEncoder().encode("hang\n"));
    await within("the hang turn", stdout.until("you › hang\n"));
    child.kill("SIGINT");
    const interrupted = await within("the interrupt", stdout.until(" turn 1 interrupted"));
    assert.match(interrupted, /^ {2}⊘ turn 1 interrupted/m);
    await writer.write(new TextEncoder().encode("/quit\n"));
    await writer.close();
    const [status, errText] = await within(
      "the detach",
      Promise.all([child.status, stderr.rest(), stdout.rest()]),
    );
    assert.equal(status.code, 0, errText);
    const id = sessionIdOf(errText);
    assert.match(errText, new RegExp(`^Detached: session ${id} keeps running\\. `, "m"));
    assert.match(errText, new RegExp(`Re-attach: svc attach ${id}$`, "m"));
    assert.equal(
      JSON.parse((await d.svc(["sessions", "show", id, "--json"])).stdout).status,
      "running",
    );

    // stdin of `d.svc` is empty: attach prints the transcript so far, then closes the session.
    const attached = await within("svc attach", d.svc(["attach", id]));
    assert.equal(attached.code, 0, attached.stderr);
    assert.match(attached.stdout, /^you › hang\n/m);
    assert.match(attached.stdout, /^ {2}⊘ turn 1 interrupted/m);
    assert.match(attached.stdout, /· session completed · exit 0\n$/);
  });

  await t.step("SIGINT twice within 2 s detaches", async () => {
    const child = spawnPlain(d, [
      "chat",
      "--harness",
      "agent",
      "--project-root",
      d.project,
      "hang",
    ]);
    const stdout = textReader(child.stdout);
    const stderr = textReader(child.stderr);
    await within("the hang turn", stdout.until("you › hang\n"));
    child.kill("SIGINT");
    // Signals are not queued: the second is sent once the first was taken.
    await within("the first Ctrl-C", stderr.until("Interrupting the turn"));
    child.kill("SIGINT");
    const [status, errText] = await within(
      "the detach",
      Promise.all([child.status, stderr.rest(), stdout.rest()]),
    );
    assert.equal(status.code, 0, errText);
    assert.match(errText, /^Detached: /m);
    await child.stdin.close();
    const id = sessionIdOf(errText);
    assert.equal((await d.svc(["sessions", "kill", id])).code, 0);
    await waitForEnd(d.client, id);
  });

  await t.step("a session that does not complete exits 1", async () => {
    const result = await runWithInput(
      d,
      ["chat", "--harness", "agent", "--project-root", d.project, "exit 3"],
      "",
    );
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stdout.trimEnd().split("\n").at(-1)!, /^! session failed · exit 3/);
  });

  await t.step("bad usage exits 2, a refused launch 1", async () => {
    const missingHarness = await d.svc(["chat", "hello"]);
    assert.equal(missingHarness.code, 2);
    assert.match(missingHarness.stderr, /Missing "--harness ID"[\s\S]*Usage: svc chat/);
    const noPrompt = await d.svc(["chat", "--harness", "agent", "--project-root", d.project]);
    assert.equal(noPrompt.code, 2);
    assert.match(noPrompt.stderr, /Missing PROMPT/);
    const unknown = await d.svc(["chat", "--harness", "nope", "--project-root", d.project, "x"]);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /^\w+: .*nope/m);
    assert.equal((await d.svc(["attach"])).code, 2);
    assert.equal((await d.svc(["attach", "a", "b"])).code, 2);
    const missing = await d.svc(["attach", "ses_nope"]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /^session_not_found: /);
  });
});

Deno.test("eventsCommand: a conversation reads as a transcript; --raw and --json as records", async (t) => {
  await using d = await startCliDaemon();
  // --follow of a conversation prints its transcript until the session ends: close it.
  const follower = spawnPlain(d, [
    "sessions",
    "start",
    "--project-root",
    d.project,
    "--harness",
    "agent",
    "--follow",
    "hello",
  ]);
  await follower.stdin.close();
  const followed = textReader(follower.stdout);
  const id = (await within("turn 1", followed.until(" turn 1 completed"))).split("\n")[0];
  assert.match(id, /^ses_/);
  assert.equal((await d.client.post(`/sessions/${id}/close`, {})).status, 200);
  const [followStatus, followText] = await within(
    "the end of --follow",
    Promise.all([follower.status, followed.rest()]),
  );
  await follower.stderr.cancel();

  await t.step("sessions start --follow prints the transcript", () => {
    assert.equal(followStatus.code, 0);
    assert.match(followText, /^you › hello\n(· .*\n)?agent › echo: hello\n/m);
    assert.match(followText, /· session completed · exit 0\n$/);
  });

  await t.step("events: the transcript, without the protocol's lines", async () => {
    const result = await d.svc(["events", id]);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stderr, "");
    assert.match(result.stdout, /^you › hello$/m);
    assert.match(result.stdout, /^agent › echo: hello$/m);
    assert.ok(!result.stdout.includes('"type"'), "no vendor JSON lines");
    const followed = await d.svc(["events", id, "--follow", "--after", "1"]);
    assert.equal(followed.code, 0, followed.stderr);
    assert.ok(!followed.stdout.includes("session started"), "--after skips the first event");
    assert.match(followed.stdout, /· session completed · exit 0\n$/);
  });

  await t.step("--raw: output as written, other events as [seq] lines", async () => {
    const result = await d.svc(["events", id, "--raw"]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^\{"type":"result"/m);
    assert.match(result.stderr, /^\[1\] session\.started \{/);
    assert.match(result.stderr, /^\[\d+\] agent\.turn \{"turn":1,"status":"completed"/m);
  });

  await t.step("--json: the records; --json with --raw is bad usage", async () => {
    const result = await d.svc(["events", id, "--json"]);
    assert.equal(result.code, 0, result.stderr);
    const kinds = result.stdout.trimEnd().split("\n").map((line) => JSON.parse(line).kind);
    assert.ok(kinds.includes("agent.message") && kinds.includes("output"), kinds.join());
    const both = await d.svc(["events", id, "--json", "--raw"]);
    assert.equal(both.code, 2);
    assert.match(both.stderr, /"--raw" cannot be combined with "--json"/);
  });
});

Deno.test("chatCommand and attachCommand: exit 3 when no daemon answers", async () => {
  const home = await tempHome();
  try {
    for (const args of [["chat", "--harness", "agent", "hi"], ["attach", "ses_x"]]) {
      const result = await runSvc([...args, "--home", home]);
      assert.equal(result.code, 3, result.stderr);
      assert.match(result.stderr, /svc is not running: no daemon answers on/);
    }
  } finally {
    await removeTree(home);
  }
});

Deno.test("chatCommand: y answers a waiting permission request inline (D18)", async () => {
  await using d = await startCliDaemon();
  const child = spawnPlain(d, [
    "chat",
    "--harness",
    "agent",
    "--project-root",
    d.project,
    "ask Bash touch x",
  ]);
  const stderr = textReader(child.stderr);
  const stdout = textReader(child.stdout);
  const writer = child.stdin.getWriter();
  await within("the question", stderr.until("Allow Bash: touch x? [y]es / [n]o / [a]lways\n"));
  await writer.write(new TextEncoder().encode("y\n"));
  await within("the allowed reply", stdout.until("agent › allowed"));
  await writer.write(new TextEncoder().encode("/close\n"));
  await writer.close();
  assert.equal((await within("chat to exit", child.status)).code, 0);
  await stdout.rest();
  await stderr.rest();
});

Deno.test("chatCommand: piped turns and answers wait for the turn or the question (issue 27 item 3)", async () => {
  await using d = await startCliDaemon();
  // All input is there at once: y must wait for the question, not go as a turn before it.
  const started = Date.now();
  const result = await runWithInput(
    d,
    ["chat", "--harness", "agent", "--project-root", d.project],
    "hi\nask Bash touch p.txt\ny\n/close\n",
  );
  assert.equal(result.code, 0, result.stderr);
  assert.ok(Date.now() - started < 15_000, "ends within seconds");
  assert.match(result.stderr, /^Allow Bash: touch p\.txt\? \[y\]es/m);
  const lines = result.stdout.split("\n");
  const you = lines.filter((line) => line.startsWith("you › "));
  assert.deepEqual(you, ["you › hi", "you › ask Bash touch p.txt"], "y was an answer, not a turn");
  assert.ok(lines.includes("agent › allowed"), result.stdout);
  assert.match(result.stdout, /· session completed · exit 0\n$/);

  // A line piped while a turn runs waits for it; Ctrl-C still interrupts the turn meanwhile.
  const child = spawnPlain(d, ["chat", "--harness", "agent", "--project-root", d.project, "hang"]);
  const stdout = textReader(child.stdout);
  const stderr = textReader(child.stderr);
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode("after\n/close\n"));
  await writer.close();
  await within("the hang turn", stdout.until("you › hang\n"));
  child.kill("SIGINT");
  const [status, out] = await within(
    "the chat to end",
    Promise.all([child.status, stdout.rest(), stderr.rest()]),
  );
  assert.equal(status.code, 0);
  assert.match(out, /^ {2}⊘ turn 1 interrupted[^\n]*\nyou › after\n/m, "sent after the turn");
});
