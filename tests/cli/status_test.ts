/** `svc status` in-process against an in-process daemon (D1, D5, issue 7: next routine due). */
import assert from "node:assert/strict";
import { localTime } from "../../src/cli/automations.ts";
import { EXIT } from "../../src/cli/command.ts";
import { formatUptime, nextRoutine, statusCommand } from "../../src/cli/status.ts";
import { SvcClient } from "../../src/client/client.ts";
import { FakeClock } from "../fakes/clock.ts";
import { fixtureHarnesses, freePort, startTestDaemon } from "../helpers/daemon.ts";
import { removeTree, tempHome } from "../helpers/home.ts";
import { captureIo } from "../helpers/capture_io.ts";

async function svcStatus(home: string, args: string[] = []) {
  const captured = captureIo({ SVC_HOME: home, NO_COLOR: "1" });
  const code = await statusCommand.run(args, captured.io);
  return { code, stdout: captured.stdout(), stderr: captured.stderr() };
}

function routine(id: string, cwd: string, overrides: Record<string, unknown> = {}) {
  return {
    schemaVersion: 1,
    id,
    name: id,
    status: "ACTIVE",
    rrule: "FREQ=DAILY;BYHOUR=9",
    timezone: "utc",
    misfire: "latest",
    overlap: "forbid",
    timeoutMinutes: 10,
    runtime: "fixture",
    prompt: "out hi; exit 0",
    cwd,
    ...overrides,
  };
}

Deno.test("statusCommand: health lines, then the next routine due", async (t) => {
  const project = await Deno.realPath(await tempHome());
  await using d = await startTestDaemon({
    configJson: { harnesses: fixtureHarnesses() },
    scheduler: false,
    clock: new FakeClock(Date.parse("2026-01-05T08:58:00.000Z")),
  });
  const create = async (definition: Record<string, unknown>) => {
    const response = await d.client.post<{ ok: boolean }>("/actions", {
      action: "svc.automations.create",
      origin: "test",
      definition,
    });
    assert.equal(response.body.ok, true, JSON.stringify(response.body));
  };

  try {
    await t.step("no routine: next routine none", async () => {
      const status = await svcStatus(d.home);
      assert.equal(status.code, EXIT.ok, status.stderr);
      assert.match(status.stdout, /^svc is running$/m);
      assert.match(status.stdout, new RegExp(`^  endpoint: +${d.socket} \\(unix\\)$`, "m"));
      assert.match(status.stdout, new RegExp(`^  pid: +${Deno.pid}$`, "m"));
      assert.match(status.stdout, /^ {2}live sessions: 0$/m);
      assert.match(status.stdout, /^ {2}next routine: +none$/m);
    });

    await t.step("the ACTIVE routine due soonest, in local time", async () => {
      await create(routine("noon", project, { rrule: "FREQ=DAILY;BYHOUR=12" }));
      await create(routine("nightly", project));
      await create(routine("paused", project, { status: "PAUSED", rrule: "FREQ=DAILY;BYHOUR=8" }));
      const status = await svcStatus(d.home);
      assert.equal(status.code, EXIT.ok, status.stderr);
      const lines = status.stdout.trimEnd().split("\n");
      assert.equal(lines.at(-2), "  live sessions: 0");
      assert.equal(
        lines.at(-1),
        `  next routine:  nightly at ${localTime("2026-01-05T09:00:00.000Z")}`,
      );
    });

    await t.step("--json is the raw /health response, without the routine", async () => {
      const status = await svcStatus(d.home, ["--json"]);
      assert.equal(status.code, EXIT.ok, status.stderr);
      const health = JSON.parse(status.stdout);
      assert.equal(health.pid, Deno.pid);
      assert.equal(health.instanceId, d.daemon.instanceId);
      assert.ok(!status.stdout.includes("nightly"));
    });
  } finally {
    await removeTree(project);
  }
});

Deno.test("nextRoutine() is undefined when the daemon refuses the list (TCP is not the owner)", async () => {
  const port = freePort();
  await using d = await startTestDaemon({ tcp: { hostname: "127.0.0.1", port }, scheduler: false });
  const tcp = new SvcClient({ tcp: `127.0.0.1:${port}` });
  try {
    assert.equal(await nextRoutine(tcp), undefined);
    assert.equal(await nextRoutine(d.client), null);
  } finally {
    tcp.close();
  }
});

Deno.test("statusCommand: exits 3 when no daemon answers", async () => {
  const home = await tempHome();
  try {
    const status = await svcStatus(home);
    assert.equal(status.code, EXIT.unreachable);
    assert.equal(status.stdout, "");
    assert.equal(
      status.stderr,
      `svc is not running: no daemon answers on "${home}/svc.sock"; start it with "svc serve"` +
        ` (or install it as a service: "svc service install")\n`,
    );
  } finally {
    await removeTree(home);
  }
});

Deno.test("formatUptime() prints seconds, minutes and hours", () => {
  assert.equal(formatUptime(5.9), "5s");
  assert.equal(formatUptime(65), "1m 05s");
  assert.equal(formatUptime(3 * 3600 + 4 * 60 + 5), "3h 04m 05s");
});
