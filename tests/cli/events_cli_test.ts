/** `svc events …` as a real process against a real `svc serve` (D1, D8). */
import assert from "node:assert/strict";
import { waitForEnd } from "../helpers/daemon.ts";
import { removeTree, tempHome } from "../helpers/home.ts";
import { runSvc } from "../helpers/process.ts";
import { startCliDaemon, textReader } from "./cli_daemon.ts";

interface EventLine {
  seq: number;
  id: string;
  session_id: string;
  kind: string;
  payload_json: string;
}

const jsonLines = (text: string): EventLine[] =>
  text.trimEnd().split("\n").map((line) => JSON.parse(line));

Deno.test("eventsCommand: prints, pages and follows a session's events", async (t) => {
  await using d = await startCliDaemon();
  const ended = await d.start("fixture", "out hello; err oops; part tail; exit 0");
  await waitForEnd(d.client, ended);

  await t.step("output goes raw to its stream, other events as lines on stderr", async () => {
    const result = await d.svc(["events", ended]);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, "hello\ntail");
    const lines = result.stderr.split("\n");
    assert.match(lines[0], /^\[1\] session\.started \{"harness":"fixture","pid":\d+,/);
    assert.ok(lines.includes("oops"), result.stderr);
    assert.match(result.stderr, /\] session\.ended \{"status":"completed","exitCode":0,/);
    assert.ok(!result.stderr.includes("\x1b["), "no ANSI codes with NO_COLOR");
  });

  await t.step("--json prints one event record per line", async () => {
    const result = await d.svc(["events", ended, "--json"]);
    assert.equal(result.code, 0, result.stderr);
    const events = jsonLines(result.stdout);
    assert.deepEqual(events.map((e) => e.seq), events.map((_, i) => i + 1));
    assert.equal(events[0].kind, "session.started");
    assert.equal(events.at(-1)!.kind, "session.ended");
    assert.ok(events.every((e) => e.session_id === ended && e.id.startsWith("evt_")));
  });

  await t.step("--after and --limit select a window", async () => {
    const all = jsonLines((await d.svc(["events", ended, "--json"])).stdout);
    const first = jsonLines((await d.svc(["events", ended, "--json", "--limit", "1"])).stdout);
    assert.deepEqual(first.map((e) => e.seq), [1]);
    const window = await d.svc(["events", ended, "--json", "--after", "1", "--limit", "2"]);
    assert.deepEqual(jsonLines(window.stdout).map((e) => e.seq), [2, 3]);
    const tail = await d.svc(["events", ended, "--json", "--after", String(all.length - 1)]);
    assert.deepEqual(jsonLines(tail.stdout).map((e) => e.kind), ["session.ended"]);
    const none = await d.svc(["events", ended, "--after", String(all.length)]);
    assert.equal(none.code, 0);
    assert.equal(none.stdout + none.stderr, "");
  });

  await t.step("--follow waits for new events and exits 0 at session.ended", async () => {
    const id = await d.start("fixture", "out first; sleep 300; out second; exit 0");
    const result = await d.svc(["events", id, "--follow"]);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, "first\nsecond\n");
    assert.match(result.stderr.trimEnd().split("\n").at(-1)!, /\] session\.ended /);
  });

  await t.step("--follow of an ended session prints its log and exits 0", async () => {
    const all = await d.svc(["events", ended, "--follow", "--json"]);
    assert.equal(all.code, 0, all.stderr);
    assert.equal(jsonLines(all.stdout).at(-1)!.kind, "session.ended");
    const past = await d.svc(["events", ended, "--follow", "--after", "1000"]);
    assert.equal(past.code, 0, past.stderr);
    assert.equal(past.stdout, "");
  });

  await t.step("--follow stops on Ctrl-C with exit 130 and no stack trace", async () => {
    const id = await d.start("fixture", "out ready; sleep 60000");
    const child = d.spawn(["events", id, "--follow"]);
    await child.stdin.close();
    const stdout = textReader(child.stdout);
    const stderr = textReader(child.stderr);
    await stdout.until("ready\n");
    child.kill("SIGINT");
    const [status, errText] = await Promise.all([child.status, stderr.rest(), stdout.rest()]);
    assert.equal(status.code, 130);
    assert.ok(!/error|\n\s+at /i.test(errText), errText);
    assert.equal((await d.svc(["sessions", "kill", id])).code, 0);
    await waitForEnd(d.client, id);
  });

  await t.step("an unknown session exits 1 with session_not_found", async () => {
    for (const args of [["events", "ses_nope"], ["events", "ses_nope", "--follow"]]) {
      const result = await d.svc(args);
      assert.equal(result.code, 1, args.join(" "));
      assert.match(result.stderr, /^session_not_found: /);
    }
    const json = await d.svc(["events", "ses_nope", "--json"]);
    assert.equal(json.code, 1);
    assert.equal(JSON.parse(json.stderr).error.code, "session_not_found");
  });

  await t.step("bad usage exits 2 with the usage", async () => {
    const cases = [
      ["events"],
      ["events", ended, "extra"],
      ["events", ended, "--bogus"],
      ["events", ended, "--after", "-1"],
      ["events", ended, "--after", "x"],
      ["events", ended, "--limit", "0"],
      ["events", ended, "--limit", "5", "--follow"],
    ];
    for (const args of cases) {
      const result = await d.svc(args);
      assert.equal(result.code, 2, `${args.join(" ")}: ${result.stderr}`);
      assert.match(result.stderr, /Usage: svc events/, args.join(" "));
    }
  });
});

Deno.test("eventsCommand: exits 3 when no daemon answers", async () => {
  const home = await tempHome();
  try {
    const result = await runSvc(["events", "ses_x", "--follow", "--home", home]);
    assert.equal(result.code, 3, result.stderr);
    assert.match(result.stderr, /svc is not running: no daemon answers on/);
  } finally {
    await removeTree(home);
  }
});
