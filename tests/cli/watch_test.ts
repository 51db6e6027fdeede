/** `svc watch`: the daemon-wide feed on the command line (D19). */
import assert from "node:assert/strict";
import { SvcClient } from "../../src/client/client.ts";
import { describeNotice, watchFeed } from "../../src/cli/watch.ts";
import { captureIo } from "../helpers/capture_io.ts";
import {
  fixtureHarnesses,
  restartTestDaemon,
  startTestDaemon,
  type TestDaemon,
  waitForEnd,
} from "../helpers/daemon.ts";
import { removeTree, tempHome } from "../helpers/home.ts";
import { runSvc } from "../helpers/process.ts";
import { startCliDaemon, textReader } from "./cli_daemon.ts";

const DEADLINE_MS = 30_000;

async function until(condition: () => boolean, message: () => string): Promise<void> {
  const deadline = Date.now() + DEADLINE_MS;
  while (!condition()) {
    assert.ok(Date.now() < deadline, message());
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

Deno.test("watchCommand: prints session.created for a launched session, until Ctrl-C (exit 130)", async (t) => {
  await using d = await startCliDaemon();
  for (const json of [false, true]) {
    await t.step(json ? "--json: one object per notice" : "one line per notice", async () => {
      const child = d.spawn(json ? ["watch", "--json"] : ["watch"]);
      // Past the deadline the child is killed: its output ends, so every read below ends too.
      const watchdog = setTimeout(() => child.kill("SIGKILL"), DEADLINE_MS);
      await child.stdin.close();
      const stdout = textReader(child.stdout);
      const stderr = textReader(child.stderr);
      try {
        await stderr.until("svc watch: connected");
        const id = await d.start("fixture", "exit 0");
        const text = await stdout.until(`${id}`);
        const line = text.split("\n").find((l) => l.includes("session.created"))!;
        if (json) {
          const notice = JSON.parse(line);
          assert.equal(notice.kind, "session.created");
          assert.deepEqual(notice.data, {
            sessionId: id,
            harness: "fixture",
            status: "running",
            activity: null,
          });
          assert.ok(!Number.isNaN(Date.parse(notice.at)));
        } else {
          assert.match(
            line,
            new RegExp(`^\\d\\d:\\d\\d:\\d\\d session\\.created ${id} fixture · running$`),
          );
        }
        await waitForEnd(d.client, id);
      } finally {
        child.kill("SIGINT");
      }
      const [status, errText] = await Promise.all([child.status, stderr.rest(), stdout.rest()]);
      clearTimeout(watchdog);
      assert.equal(status.code, 130);
      assert.ok(!/error|\n\s+at /i.test(errText), errText);
    });
  }
});

Deno.test("watchCommand: exits 3 when no daemon answers", async () => {
  const home = await tempHome();
  try {
    const result = await runSvc(["watch", "--home", home]);
    assert.equal(result.code, 3, result.stderr);
    assert.match(result.stderr, /svc is not running: no daemon answers on/);
  } finally {
    await removeTree(home);
  }
});

Deno.test("watchFeed() reconnects to a restarted daemon and says so", async () => {
  const home = await tempHome();
  const project = await Deno.realPath(await tempHome());
  const configJson = { harnesses: fixtureHarnesses() };
  let daemon: TestDaemon = await startTestDaemon({ home, configJson });
  const client = new SvcClient({ socketPath: daemon.socket });
  const captured = captureIo({});
  const controller = new AbortController();
  const deadline = setTimeout(() => controller.abort(), DEADLINE_MS);
  const watching = watchFeed(client, captured.io, { signal: controller.signal });
  const launch = async () => {
    const response = await client.post<{ id: string }>("/sessions", {
      projectRoot: project,
      harness: "fixture",
      prompt: "exit 0",
    });
    assert.equal(response.status, 201);
    return response.body.id;
  };
  const output = () => `stdout: ${captured.stdout()}\nstderr: ${captured.stderr()}`;
  try {
    await until(() => captured.stderr().includes("connected"), output);
    const first = await launch();
    await until(() => captured.stdout().includes(`session.created ${first}`), output);
    await waitForEnd(client, first);
    await daemon.daemon.stop();
    daemon.client.close();
    daemon = await restartTestDaemon({ home, configJson });
    await until(() => captured.stderr().includes("reconnected to a restarted daemon"), output);
    const second = await launch();
    await until(() => captured.stdout().includes(`session.created ${second}`), output);
    await waitForEnd(client, second);
    controller.abort();
    assert.equal(await watching, 130);
    assert.match(
      captured.stderr(),
      /svc watch: the connection closed before the end of the stream; reconnecting/,
    );
  } finally {
    clearTimeout(deadline);
    controller.abort();
    await watching.catch(() => {});
    client.close();
    daemon.client.close();
    await daemon.daemon.stop();
    await removeTree(home);
    await removeTree(project);
  }
});

Deno.test("describeNotice() puts each kind's ids first, then what changed", () => {
  const cases: Array<[string, Record<string, unknown>, string]> = [
    [
      "session.created",
      { sessionId: "ses_1", harness: "claude", status: "running", activity: null },
      "session.created ses_1 claude · running",
    ],
    [
      "session.updated",
      { sessionId: "ses_1", status: "running", activity: "working" },
      "session.updated ses_1 running · working",
    ],
    [
      "session.updated",
      { sessionId: "ses_1", status: "killed", activity: null },
      "session.updated ses_1 killed",
    ],
    [
      "approval.requested",
      { sessionId: "ses_1", requestId: "req_1", tool: "Bash" },
      "approval.requested ses_1 req_1 · Bash",
    ],
    [
      "approval.resolved",
      { sessionId: "ses_1", requestId: "req_1", decision: "allow", by: "owner" },
      "approval.resolved ses_1 req_1 · allow · by owner",
    ],
    [
      "automations.changed",
      { action: "svc.automations.create" },
      "automations.changed svc.automations.create",
    ],
    [
      "run.started",
      { runId: "run_1", routineId: "nightly", sessionId: "ses_1" },
      "run.started run_1 routine nightly · ses_1",
    ],
    [
      "run.ended",
      { runId: "run_1", routineId: "nightly", sessionId: null, status: "failed" },
      "run.ended run_1 routine nightly · failed",
    ],
    [
      "inbox.read",
      { runId: "run_1", routineId: "nightly", readAt: "2026-11-28T12:00:00.000Z" },
      "inbox.read run_1 routine nightly",
    ],
    ["future.kind", { a: 1 }, 'future.kind {"a":1}'],
    [
      "approval.requested",
      { sessionId: "ses_1", requestId: "req_1", tool: "B\x1b[31mash\nrm" },
      "approval.requested ses_1 req_1 · B^[[31mash rm",
    ],
  ];
  for (const [kind, data, line] of cases) assert.equal(describeNotice(kind, data), line);
});
