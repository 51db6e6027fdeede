/** `svc sessions …` as a real process against a real `svc serve` (D1, D7). */
import assert from "node:assert/strict";
import { waitForEnd } from "../helpers/daemon.ts";
import { removeTree, tempHome } from "../helpers/home.ts";
import { runSvc } from "../helpers/process.ts";
import { startCliDaemon, textReader } from "./cli_daemon.ts";

Deno.test("sessionsCommand: start, list, show, input, kill and --follow", async (t) => {
  await using d = await startCliDaemon();

  await t.step("start prints the id; show and list find the session", async () => {
    const id = await d.start("fixture", "out hello; exit 0");
    assert.equal((await waitForEnd(d.client, id)).status, "completed");

    const show = await d.svc(["sessions", "show", id]);
    assert.equal(show.code, 0, show.stderr);
    assert.match(show.stdout, new RegExp(`^id: +${id}$`, "m"));
    assert.match(show.stdout, /^status: +completed$/m);
    assert.match(show.stdout, /^exit_code: +0$/m);
    assert.match(show.stdout, /^model: +-$/m);
    assert.match(show.stdout, new RegExp(`^project_root: +${d.project}$`, "m"));

    const list = await d.svc(["sessions", "list"]);
    assert.equal(list.code, 0, list.stderr);
    const [header, ...rows] = list.stdout.trimEnd().split("\n");
    assert.match(header, /^ID +STATUS +ACTIVITY +HARNESS +CREATED +RESUMABLE +TITLE$/);
    const row = rows.find((line) => line.startsWith(id));
    assert.ok(row, list.stdout);
    assert.match(
      row,
      /completed +- +fixture +\d{4}-\d\d-\d\d \d\d:\d\d \S+ +- +out hello; exit 0$/,
    );

    const running = await d.svc(["sessions", "list", "--status", "running", "--limit", "5"]);
    assert.equal(running.code, 0, running.stderr);
    assert.ok(!running.stdout.includes(id), running.stdout);

    // --json is the raw response; --home works as well as SVC_HOME.
    const json = await runSvc(["sessions", "list", "--json", "--home", d.home]);
    assert.equal(json.code, 0, json.stderr);
    assert.ok(JSON.parse(json.stdout).some((s: { id: string }) => s.id === id));
    const record = JSON.parse((await d.svc(["sessions", "show", id, "--json"])).stdout);
    assert.equal(record.id, id);
    assert.equal(record.exit_code, 0);
  });

  await t.step("start --follow prints the output and exits 0 when the session ends", async () => {
    const result = await d.svc([
      "sessions",
      "start",
      "--project-root",
      d.project,
      "--harness",
      "fixture",
      "--title",
      "followed",
      "--follow",
      "out hello; err oops; exit 0",
    ]);
    assert.equal(result.code, 0, result.stderr);
    const [id, ...output] = result.stdout.split("\n");
    assert.match(id, /^ses_/);
    assert.equal(output.join("\n"), "hello\n");
    assert.match(result.stderr, /oops\n/);
    assert.match(result.stderr, /^\[1\] session\.started \{.*"harness":"fixture"/m);
    assert.match(result.stderr, /\] session\.ended \{"status":"completed","exitCode":0/);
    assert.ok(!result.stderr.includes("\x1b["), "no ANSI codes with NO_COLOR");
    const record = JSON.parse((await d.svc(["sessions", "show", id, "--json"])).stdout);
    assert.equal(record.title, "followed");
  });

  await t.step("start --follow --json prints the record, then JSONL events", async () => {
    const result = await d.svc([
      "sessions",
      "start",
      "--project-root",
      d.project,
      "--harness",
      "fixture",
      "--follow",
      "--json",
      "out hi; exit 3",
    ]);
    assert.equal(result.code, 0, result.stderr);
    const [record, ...events] = result.stdout.trimEnd().split("\n").map((line) => JSON.parse(line));
    assert.equal(record.status, "running");
    assert.deepEqual(events.map((e) => e.seq), events.map((_, i) => i + 1));
    assert.ok(events.every((e) => e.session_id === record.id));
    assert.equal(events.at(-1).kind, "session.ended");
    assert.equal(JSON.parse(events.at(-1).payload_json).exitCode, 3);
  });

  await t.step("the prompt comes from --prompt-file or from stdin with -", async () => {
    const file = `${d.project}/prompt.txt`;
    await Deno.writeTextFile(file, "out from-file; exit 0\n");
    const base = ["sessions", "start", "--project-root", d.project, "--harness", "fixture"];
    const fromFile = await d.svc([...base, "--prompt-file", file, "--follow"]);
    assert.equal(fromFile.code, 0, fromFile.stderr);
    assert.match(fromFile.stdout, /^from-file$/m);

    const child = d.spawn([...base, "--follow", "-"]);
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode("out from-stdin; exit 0"));
    await writer.close();
    const fromStdin = await child.output();
    assert.equal(fromStdin.code, 0, new TextDecoder().decode(fromStdin.stderr));
    assert.match(new TextDecoder().decode(fromStdin.stdout), /^from-stdin$/m);

    const both = await d.svc([...base, "--prompt-file", file, "extra"]);
    assert.equal(both.code, 2);
    const missing = await d.svc([...base, "--prompt-file", `${d.project}/nope.txt`]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /Cannot read prompt file/);
  });

  await t.step("input writes TEXT and a newline to the session's stdin", async () => {
    const id = await d.start("fixture-stdin", "ignored");
    const sent = await d.svc(["sessions", "input", id, "hello", "world"]);
    assert.equal(sent.code, 0, sent.stderr);
    assert.equal(sent.stdout, `Sent 12 bytes to ${id}\n`);
    const partial = await d.svc(["sessions", "input", id, "par", "--no-newline"]);
    assert.equal(partial.code, 0, partial.stderr);
    const json = await d.svc(["sessions", "input", id, "tial", "--json"]);
    assert.deepEqual(JSON.parse(json.stdout), { ok: true, accepted: true });
    assert.equal((await d.svc(["sessions", "input", id, "quit"])).code, 0);

    const follow = await d.svc(["events", id, "--follow"]);
    assert.equal(follow.code, 0, follow.stderr);
    assert.equal(follow.stdout, "got: hello world\ngot: partial\n");
    assert.match(follow.stderr, /\] input \{"data":"hello world\\n"\}/);
    assert.equal((await waitForEnd(d.client, id)).status, "completed");

    const late = await d.svc(["sessions", "input", id, "again"]);
    assert.equal(late.code, 1);
    assert.match(late.stderr, /^session_not_live: /);
  });

  await t.step("kill ends a running session as killed; a second kill is refused", async () => {
    const id = await d.start("fixture", "sleep 60000");
    const killed = await d.svc(["sessions", "kill", id, "--signal", "SIGKILL"]);
    assert.equal(killed.code, 0, killed.stderr);
    assert.equal(killed.stdout, `Sent SIGKILL to ${id}\n`);
    assert.equal((await waitForEnd(d.client, id)).status, "killed");
    const again = await d.svc(["sessions", "kill", id]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /session_not_live/);
  });

  await t.step("daemon refusals exit 1 with the error code", async () => {
    for (
      const args of [
        ["sessions", "show", "ses_nope"],
        ["sessions", "input", "ses_nope", "x"],
        ["sessions", "kill", "ses_nope"],
      ]
    ) {
      const result = await d.svc(args);
      assert.equal(result.code, 1, args.join(" "));
      assert.match(result.stderr, /^session_not_found: /, args.join(" "));
    }
    const json = await d.svc(["sessions", "show", "ses_nope", "--json"]);
    assert.equal(json.code, 1);
    assert.equal(JSON.parse(json.stderr).error.code, "session_not_found");
    const harness = await d.svc([
      "sessions",
      "start",
      "--project-root",
      d.project,
      "--harness",
      "nope",
      "x",
    ]);
    assert.equal(harness.code, 1);
    assert.match(harness.stderr, /^invalid_request: .*\(field "harness"\)/);
  });

  await t.step("bad usage exits 2 with the usage", async () => {
    const cases = [
      ["sessions"],
      ["sessions", "frob"],
      ["sessions", "list", "--bogus"],
      ["sessions", "list", "--status", "bogus"],
      ["sessions", "list", "--limit", "0"],
      ["sessions", "show"],
      ["sessions", "show", "a", "b"],
      ["sessions", "start", "--harness", "fixture", "x"],
      ["sessions", "start", "--project-root", d.project, "x"],
      ["sessions", "start", "--project-root", d.project, "--harness", "fixture"],
      ["sessions", "kill", "ses_x", "--signal", "SIGHUP"],
      ["sessions", "input"],
    ];
    for (const args of cases) {
      const result = await d.svc(args);
      assert.equal(result.code, 2, `${args.join(" ")}: ${result.stderr}`);
      assert.match(result.stderr, /Usage: svc sessions/, args.join(" "));
    }
  });
});

Deno.test("sessionsCommand: exits 3 when no daemon answers", async () => {
  const home = await tempHome();
  try {
    for (const args of [["sessions", "list"], ["sessions", "show", "ses_x"]]) {
      const result = await runSvc([...args, "--home", home]);
      assert.equal(result.code, 3, result.stderr);
      assert.match(result.stderr, /svc is not running: no daemon answers on/);
    }
  } finally {
    await removeTree(home);
  }
});

Deno.test("sessionsCommand: --follow stops on Ctrl-C with exit 130", async () => {
  await using d = await startCliDaemon();
  const child = d.spawn([
    "sessions",
    "start",
    "--project-root",
    d.project,
    "--harness",
    "fixture",
    "--follow",
    "out ready; sleep 60000",
  ]);
  await child.stdin.close();
  const stdout = textReader(child.stdout);
  const stderr = textReader(child.stderr);
  const id = (await stdout.until("ready\n")).split("\n")[0];
  child.kill("SIGINT");
  const [status, errText] = await Promise.all([child.status, stderr.rest(), stdout.rest()]);
  assert.equal(status.code, 130);
  assert.ok(!/error|at /i.test(errText.replace(/\[\d+\] session\.started .*\n/, "")), errText);
  // Ctrl-C stops following, not the session.
  const show = await d.svc(["sessions", "show", id, "--json"]);
  assert.equal(JSON.parse(show.stdout).status, "running");
  assert.equal((await d.svc(["sessions", "kill", id])).code, 0);
  await waitForEnd(d.client, id);
});
