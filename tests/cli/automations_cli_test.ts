/** `svc automations …` in-process against an in-process daemon (D1, D10, D12, D13). */
import assert from "node:assert/strict";
import { localTime } from "../../src/cli/automations.ts";
import { FakeClock } from "../fakes/clock.ts";
import { fixtureHarnesses, startTestDaemon, waitForEnd } from "../helpers/daemon.ts";
import { removeTree, tempHome } from "../helpers/home.ts";
import { captureIo } from "../helpers/capture_io.ts";
import { runCli } from "../../src/cli/main.ts";

// deno-lint-ignore no-explicit-any
type Json = Record<string, any>;

/** Runs `svc automations ARGS` through the real command table with SVC_HOME = `home`. */
async function svcAutomations(home: string, args: string[]) {
  const captured = captureIo({ SVC_HOME: home });
  const code = await runCli(["automations", ...args], captured.io);
  return { code, stdout: captured.stdout(), stderr: captured.stderr() };
}

function definition(project: string, overrides: Json = {}): Json {
  return {
    schemaVersion: 1,
    id: "nightly",
    name: "Nightly checks",
    status: "PAUSED",
    rrule: "FREQ=DAILY;BYHOUR=9",
    timezone: "utc",
    misfire: "latest",
    overlap: "forbid",
    timeoutMinutes: 10,
    runtime: "fixture",
    prompt: "out hi; exit 0",
    cwd: project,
    tags: ["ci"],
    ...overrides,
  };
}

/** `text` as a literal inside a RegExp (zone names such as "GMT+5:30" hold "+"). */
function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** The data row of a table whose first cell is `id`. */
function row(table: string, id: string): string {
  const line = table.split("\n").find((l) => l.startsWith(`${id} `));
  assert.ok(line, table);
  return line;
}

Deno.test("localTime() prints an instant as YYYY-MM-DD HH:MM and the zone's short name", () => {
  assert.equal(localTime("2025-03-09T07:00:00.000Z", "America/New_York"), "2025-03-09 03:00 EDT");
  assert.equal(localTime("2025-01-15T14:30:59.999Z", "America/New_York"), "2025-01-15 09:30 EST");
  assert.equal(localTime("2026-01-05T09:00:00.000Z", "UTC"), "2026-01-05 09:00 UTC");
  assert.equal(localTime(null), "-");
  assert.match(localTime("2026-01-05T09:00:00.000Z"), /^\d{4}-\d\d-\d\d \d\d:\d\d \S+$/);
});

Deno.test("automationsCommand: create, list, get, update, run, runs, health, tick, delete", async (t) => {
  const project = await Deno.realPath(await tempHome());
  const files = await tempHome();
  const clock = new FakeClock(Date.parse("2026-01-05T08:58:00.000Z"));
  await using d = await startTestDaemon({
    configJson: { harnesses: fixtureHarnesses() },
    scheduler: false,
    clock,
  });
  const svc = (...args: string[]) => svcAutomations(d.home, args);
  const file = `${files}/nightly.json`;

  await t.step("create -f FILE creates the routine PAUSED", async () => {
    await Deno.writeTextFile(file, JSON.stringify(definition(project)));
    const created = await svc("create", "-f", file);
    assert.equal(created.code, 0, created.stderr);
    assert.match(created.stdout, /^Created routine "nightly" \(PAUSED\); review it/);
    const again = await svc("create", "--file", file);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /^routine_exists: Routine "nightly" already exists/);
  });

  await t.step("list shows a PAUSED routine without a next due time", async () => {
    const list = await svc("list");
    assert.equal(list.code, 0, list.stderr);
    const [header] = list.stdout.split("\n");
    assert.match(header, /^ID +STATUS +RRULE +TZ +NEXT DUE +NAME$/);
    assert.match(
      row(list.stdout, "nightly"),
      /^nightly +PAUSED +FREQ=DAILY;BYHOUR=9 +utc +- +Nightly checks$/,
    );
    // A list command's --json is the list (issue 27 item 10).
    const json = JSON.parse((await svc("list", "--json")).stdout);
    assert.deepEqual(json.map((r: Json) => r.id), ["nightly"]);
  });

  await t.step("get prints the stored routine as key: value lines", async () => {
    const get = await svc("get", "nightly");
    assert.equal(get.code, 0, get.stderr);
    assert.match(get.stdout, /^id: +nightly$/m);
    assert.match(get.stdout, /^rrule: +FREQ=DAILY;BYHOUR=9$/m);
    assert.match(get.stdout, new RegExp(`^cwd: +${project}$`, "m"));
    assert.match(get.stdout, /^tags: +\["ci"\]$/m);
    assert.match(get.stdout, /^createdAt: +2026-01-05T08:58:00\.000Z$/m);
    const json = JSON.parse((await svc("get", "nightly", "--json")).stdout);
    assert.equal(json.result.routine.name, "Nightly checks");
  });

  await t.step("update -f FILE with status ACTIVE; list shows the daemon's next due", async () => {
    await Deno.writeTextFile(file, JSON.stringify(definition(project, { status: "ACTIVE" })));
    const updated = await svc("update", "-f", file);
    assert.equal(updated.code, 0, updated.stderr);
    assert.equal(updated.stdout, 'Updated routine "nightly" (ACTIVE)\n');
    const list = await svc("list");
    const nextDue = localTime("2026-01-05T09:00:00.000Z");
    assert.match(row(list.stdout, "nightly"), /^nightly +ACTIVE +FREQ=DAILY;BYHOUR=9 +utc +/);
    assert.ok(row(list.stdout, "nightly").includes(`utc  ${nextDue}  Nightly checks`), list.stdout);
  });

  await t.step("run --cwd DIR starts a session; runs shows it succeeded", async () => {
    const run = await svc("run", "nightly", "--cwd", project);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^run: +run_[0-9A-Z]{26}$/m);
    assert.match(run.stdout, /^status: +running$/m);
    assert.match(run.stdout, /^error: +-$/m);
    const sessionId = /^session: +(ses_[0-9A-Z]{26})$/m.exec(run.stdout)?.[1];
    assert.ok(sessionId, run.stdout);
    assert.equal((await waitForEnd(d.client, sessionId)).status, "completed");
    await d.daemon.runner.settled();

    const runs = await svc("runs", "nightly");
    assert.equal(runs.code, 0, runs.stderr);
    const [header] = runs.stdout.split("\n");
    assert.match(header, /^ID +TRIGGER +STATUS +SCHEDULED +STARTED +SESSION +DENIED +ERROR$/);
    const runId = /^run: +(\S+)$/m.exec(run.stdout)![1];
    assert.match(
      row(runs.stdout, runId),
      new RegExp(
        `manual +succeeded +- +${
          escape(localTime("2026-01-05T08:58:00.000Z"))
        } +${sessionId} +0 +-$`,
      ),
    );
    const json = JSON.parse((await svc("runs", "nightly", "--limit", "1", "--json")).stdout);
    assert.equal(json.length, 1);
    assert.equal(json[0].status, "succeeded");
  });

  await t.step("health prints key: value lines", async () => {
    const health = await svc("health", "nightly");
    assert.equal(health.code, 0, health.stderr);
    assert.match(health.stdout, /^id: +nightly$/m);
    assert.match(health.stdout, /^status: +ACTIVE$/m);
    assert.ok(
      health.stdout.includes(`nextDueAt:           ${localTime("2026-01-05T09:00:00.000Z")}\n`),
      health.stdout,
    );
    assert.match(health.stdout, /^consecutiveFailures: +0$/m);
    assert.match(health.stdout, /^missedCount: +0$/m);
    assert.match(health.stdout, /^lease: +-$/m);
    assert.match(health.stdout, /^stale: +-$/m);
    assert.ok(!health.stdout.includes("lastRunAt:           -"), health.stdout);
  });

  await t.step("tick reports counts and one line per planned and claimed occurrence", async () => {
    const idle = await svc("tick");
    assert.equal(idle.code, 0, idle.stderr);
    assert.equal(idle.stdout, "planned 0, recovered 0, claimed 0, failures 0\n");

    await clock.advance(2 * 60_000); // past 09:00 UTC
    const due = await svc("tick");
    assert.equal(due.code, 0, due.stderr);
    const nine = localTime("2026-01-05T09:00:00.000Z");
    const [counts, planned, claimed] = due.stdout.trimEnd().split("\n");
    assert.equal(counts, "planned 1, recovered 0, claimed 1, failures 0");
    assert.equal(planned, `planned    nightly ${nine}`);
    assert.match(
      claimed,
      new RegExp(`^claimed    nightly run_[0-9A-Z]{26} ${escape(nine)} running$`),
    );
    const [run] = JSON.parse((await svc("runs", "nightly", "--json")).stdout);
    assert.equal(run.trigger, "schedule");
    assert.equal((await waitForEnd(d.client, run.sessionId)).status, "completed");
    await d.daemon.runner.settled();
  });

  await t.step("a failed run exits 1 and prints its error", async () => {
    await Deno.writeTextFile(
      file,
      JSON.stringify(definition(project, { id: "nocwd", cwd: undefined })),
    );
    assert.equal((await svc("create", "-f", file)).code, 0);
    const run = await svc("run", "nocwd");
    assert.equal(run.code, 1);
    assert.match(run.stdout, /^status: +failed$/m);
    assert.match(run.stderr, /^missing_cwd: Routine "nocwd" has no cwd/);
    const json = await svc("run", "nocwd", "--json");
    assert.equal(json.code, 1);
    assert.equal(JSON.parse(json.stdout).result.error.code, "missing_cwd");
    const runs = await svc("runs", "nocwd");
    assert.match(
      runs.stdout,
      /manual +failed +- +- +- +- +missing_cwd: Routine "nocwd" has no cwd/,
    );
  });

  await t.step("delete removes the routine; get then refuses", async () => {
    const deleted = await svc("delete", "nightly");
    assert.equal(deleted.code, 0, deleted.stderr);
    assert.equal(deleted.stdout, 'Deleted routine "nightly" and its run history\n');
    const get = await svc("get", "nightly");
    assert.equal(get.code, 1);
    assert.equal(get.stderr, 'routine_not_found: Routine "nightly" does not exist\n');
    const json = await svc("get", "nightly", "--json");
    assert.equal(json.code, 1);
    assert.equal(JSON.parse(json.stdout).result.routine, null);
  });

  await removeTree(project);
  await removeTree(files);
});

Deno.test("automationsCommand: import lists imported, skipped and failed (D13)", async () => {
  const codexHome = await tempHome();
  for (const name of ["daily-triage", "keep-going"]) {
    await Deno.mkdir(`${codexHome}/automations/${name}`, { recursive: true });
    await Deno.copyFile(
      new URL(`../fixtures/codex-automations/${name}/automation.toml`, import.meta.url),
      `${codexHome}/automations/${name}/automation.toml`,
    );
  }
  await using d = await startTestDaemon({ codexHome, scheduler: false });
  await Deno.mkdir(`${d.home}/import`);
  await Deno.writeTextFile(`${d.home}/import/bad.json`, JSON.stringify({ id: "bad" }));

  const first = await svcAutomations(d.home, ["import"]);
  assert.equal(first.code, 0, first.stderr);
  const lines = first.stdout.trimEnd().split("\n");
  assert.equal(lines[0], "imported 1 (PAUSED), skipped 1, failed 1");
  assert.equal(lines[1], "imported  daily-triage");
  assert.equal(lines[2], "skipped   keep-going (heartbeat)");
  assert.match(
    lines[3],
    new RegExp(
      `^failed    ${d.home}/import/bad\\.json: Invalid fields: Field "name" is required; Field "rrule"`,
    ),
  );

  const second = await svcAutomations(d.home, ["import", "--json"]);
  assert.equal(second.code, 0);
  const body = JSON.parse(second.stdout);
  assert.deepEqual(body.result.imported, []);
  assert.deepEqual(body.result.skipped[0], { id: "daily-triage", reason: "exists" });

  const list = await svcAutomations(d.home, ["list"]);
  assert.match(
    row(list.stdout, "daily-triage"),
    /^daily-triage +PAUSED +RRULE:FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=9;BYMINUTE=0 +local +- +Daily triage$/,
  );
  await removeTree(codexHome);
});

Deno.test("automationsCommand: usage errors exit 2, refusals 1, no daemon 3", async (t) => {
  const project = await Deno.realPath(await tempHome());
  const files = await tempHome();
  await using d = await startTestDaemon({
    configJson: { harnesses: fixtureHarnesses() },
    scheduler: false,
  });
  const svc = (...args: string[]) => svcAutomations(d.home, args);

  await t.step("a definition file that is not JSON is a usage error naming it", async () => {
    const file = `${files}/broken.json`;
    await Deno.writeTextFile(file, "{ not json");
    const result = await svc("create", "-f", file);
    assert.equal(result.code, 2);
    assert.ok(result.stderr.includes(`Definition file "${file}" is not JSON`), result.stderr);
    const missing = await svc("update", "-f", `${files}/absent.json`);
    assert.equal(missing.code, 2);
    assert.ok(missing.stderr.includes(`Cannot read definition file "${files}/absent.json"`));
  });

  await t.step("unknown routine: exit 1 with routine_not_found", async () => {
    for (const args of [["health", "ghost"], ["runs", "ghost"], ["delete", "ghost"]]) {
      const result = await svc(...args);
      assert.equal(result.code, 1, args.join(" "));
      assert.equal(result.stderr, 'routine_not_found: Routine "ghost" does not exist\n');
    }
    const run = await svc("run", "ghost");
    assert.equal(run.code, 1);
    assert.match(run.stdout, /^status: +failed$/m);
    assert.match(run.stderr, /^routine_not_found: /);
    const json = await svc("health", "ghost", "--json");
    assert.equal(json.code, 1);
    const envelope = JSON.parse(json.stderr);
    assert.equal(envelope.status, "rejected");
    assert.equal(envelope.error.code, "routine_not_found");
  });

  await t.step("an invalid rrule: exit 1 naming definition.rrule", async () => {
    const file = `${files}/hourly.json`;
    await Deno.writeTextFile(file, JSON.stringify(definition(project, { rrule: "FREQ=HOURLY" })));
    const result = await svc("create", "-f", file);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /^invalid_request: .*FREQ=HOURLY.*\(field "definition\.rrule"\)$/m);
  });

  await t.step("bad usage exits 2", async () => {
    for (
      const args of [
        ["frobnicate"],
        [],
        ["create"],
        ["get"],
        ["get", "a", "b"],
        ["list", "--bogus"],
        ["runs", "x", "--limit", "0"],
        ["run", "x", "--cwd"],
      ]
    ) {
      const result = await svc(...args);
      assert.equal(result.code, 2, `${args.join(" ")}: ${result.stderr}`);
    }
    assert.match((await svc("frobnicate")).stderr, /Unknown subcommand "frobnicate"/);
  });

  await t.step("no daemon on the home: exit 3", async () => {
    const empty = await tempHome();
    const result = await svcAutomations(empty, ["list"]);
    assert.equal(result.code, 3, result.stderr);
    await removeTree(empty);
  });

  await removeTree(project);
  await removeTree(files);
});
