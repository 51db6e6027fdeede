/** List commands print arrays with --json; one time format, --utc; costs to 1e-6 (issue 27 item 10). */
import assert from "node:assert/strict";
import { costText, timeText } from "../../src/cli/output.ts";
import { waitForEnd } from "../helpers/daemon.ts";
import { startCliDaemon } from "./cli_daemon.ts";
import { routineDefinition } from "../helpers/routine.ts";

Deno.test("costText() rounds to 1e-6; timeText() is local, or UTC with --utc", () => {
  assert.equal(costText(0.1 + 0.2), "$0.3");
  assert.equal(costText(0.0123456789), "$0.012346");
  assert.equal(costText(null), "-");
  assert.equal(timeText("2026-01-05T09:00:00.000Z", true), "2026-01-05 09:00 UTC");
  assert.match(timeText("2026-01-05T09:00:00.000Z", false), /^\d{4}-\d\d-\d\d \d\d:\d\d \S+$/);
});

Deno.test("every list command's --json is an array", async () => {
  await using d = await startCliDaemon();
  const sessionId = await d.start("fixture", "out hi");
  await waitForEnd(d.client, sessionId);
  const created = await d.client.post<Record<string, unknown>>("/actions", {
    action: "svc.automations.create",
    definition: routineDefinition("nightly", {
      name: "Nightly",
      rrule: "FREQ=DAILY;BYHOUR=9",
      prompt: "out hi",
      cwd: d.project,
    }),
  });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  const lists: Array<[string[], number]> = [
    [["sessions", "list"], 1],
    [["approvals"], 0],
    [["automations", "list"], 1],
    [["automations", "runs", "nightly"], 0],
    [["inbox"], 0],
    [["worktrees", "list"], 0],
    [["capabilities"], -1],
  ];
  for (const [args, length] of lists) {
    const result = await d.svc([...args, "--json"]);
    assert.equal(result.code, 0, `${args.join(" ")}: ${result.stderr}`);
    const json = JSON.parse(result.stdout);
    assert.ok(Array.isArray(json), `${args.join(" ")} --json: ${result.stdout}`);
    if (length >= 0) assert.equal(json.length, length, args.join(" "));
  }
});

Deno.test("svc sessions list prints CREATED as local time, --utc in UTC", async () => {
  await using d = await startCliDaemon();
  const sessionId = await d.start("fixture", "out hi");
  await waitForEnd(d.client, sessionId);
  const record = await d.client.get<{ created_at: string }>(`/sessions/${sessionId}`);
  const utc = await d.svc(["sessions", "list", "--utc"]);
  assert.equal(utc.code, 0, utc.stderr);
  assert.ok(utc.stdout.includes(timeText(record.body.created_at, true)), utc.stdout);
  const shown = await d.svc(["sessions", "show", sessionId, "--utc"]);
  assert.match(
    shown.stdout,
    new RegExp(`^created_at:\\s+${timeText(record.body.created_at, true)}$`, "m"),
  );
});
