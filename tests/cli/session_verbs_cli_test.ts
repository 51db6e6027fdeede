/**
 * The verbs issue 27 item 11 added, as real processes against a real `svc
 * serve`: `svc sessions interrupt|close`, `--approvals` on `svc chat` and
 * `svc sessions start`, `svc automations pause|activate` (activate asks on
 * a terminal, driven in tmux; elsewhere it needs `--yes`).
 */
import assert from "node:assert/strict";
import { allEvents, waitForEnd } from "../helpers/daemon.ts";
import { removeTree, tempHome } from "../helpers/home.ts";
import { type CliDaemon, startCliDaemon, withInput } from "./cli_daemon.ts";
import { tmuxPanes } from "./tmux_panes.ts";
import { TMUX_INSTALLED } from "../helpers/tmux.ts";
import { routineDefinition } from "../helpers/routine.ts";

/** Waits until the session's log holds an event of `kind`; returns its payload. */
async function eventOf(d: CliDaemon, id: string, kind: string): Promise<Record<string, unknown>> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const found = (await allEvents(d.client, id)).find((event) => event.kind === kind);
    if (found) return found.payload;
    if (Date.now() > deadline) throw new Error(`No ${kind} event in ${id}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

Deno.test("sessionsCommand: interrupt and close a conversation by id", async () => {
  await using d = await startCliDaemon();
  const id = await d.start("agent", "hang");
  await eventOf(d, id, "agent.started");
  const interrupted = await d.svc(["sessions", "interrupt", id]);
  assert.equal(interrupted.code, 0, interrupted.stderr);
  assert.equal(interrupted.stdout.trim(), `Interrupted the current turn of ${id}`);
  assert.equal((await eventOf(d, id, "agent.turn")).status, "interrupted");

  const closed = await d.svc(["sessions", "close", id]);
  assert.equal(closed.code, 0, closed.stderr);
  assert.equal(closed.stdout.trim(), `Closing ${id}: it ends once the agent is idle`);
  assert.equal((await waitForEnd(d.client, id)).status, "completed");

  const again = await d.svc(["sessions", "interrupt", id, "--json"]);
  assert.equal(again.code, 1);
  assert.equal(JSON.parse(again.stderr).error.code, "session_not_live");
  assert.equal((await d.svc(["sessions", "close"])).code, 2, "missing ID is bad usage");
  const unknown = await d.svc(["sessions", "close", "ses_nope"]);
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /^session_not_found: /);
});

Deno.test("chatCommand and sessions start: --approvals allow|deny answers for the user", async () => {
  await using d = await startCliDaemon();
  const denied = await withInput(
    d,
    ["chat", "--harness", "agent", "--project-root", d.project, "--approvals", "deny"],
    "ask Bash touch x\n/close\n",
  );
  assert.match(denied.stdout, /^agent › denied: /m, denied.stdout + denied.stderr);
  assert.equal(denied.code, 0, denied.stderr);

  const started = await d.svc([
    "sessions",
    "start",
    "--project-root",
    d.project,
    "--harness",
    "agent",
    "--approvals",
    "allow",
    "--json",
    "ask Bash touch y",
  ]);
  assert.equal(started.code, 0, started.stderr);
  const id = JSON.parse(started.stdout).id;
  await eventOf(d, id, "agent.turn");
  const messages = (await allEvents(d.client, id)).filter((event) =>
    event.kind === "agent.message"
  );
  assert.equal(messages.at(-1)?.payload.text, "allowed");
  await d.svc(["sessions", "close", id]);
  await waitForEnd(d.client, id);

  const starts = [
    ["chat", "--harness", "agent"],
    ["sessions", "start", "--project-root", d.project, "--harness", "agent"],
  ];
  for (const args of starts) {
    const bad = await d.svc([...args, "--approvals", "sometimes", "x"]);
    assert.equal(bad.code, 2, bad.stderr);
    assert.match(bad.stderr, /"--approvals" must be one of ask, deny, allow, got "sometimes"/);
  }
});

/** A PAUSED routine of the fixture harness, created through the CLI. */
async function createRoutine(d: CliDaemon): Promise<void> {
  const file = `${d.project}/routine.json`;
  await Deno.writeTextFile(
    file,
    JSON.stringify(routineDefinition("nightly", {
      name: "Nightly checks",
      rrule: "FREQ=DAILY;BYHOUR=9",
      timeoutMinutes: 10,
      prompt: "out hi; exit 0",
      cwd: d.project,
    })),
  );
  const created = await d.svc(["automations", "create", "-f", file]);
  assert.equal(created.code, 0, created.stderr);
}

async function routineStatus(d: CliDaemon): Promise<string> {
  const got = await d.svc(["automations", "get", "nightly", "--json"]);
  return JSON.parse(got.stdout).result.routine.status;
}

Deno.test("automationsCommand: activate needs --yes off a terminal; pause pauses", async () => {
  await using d = await startCliDaemon();
  await createRoutine(d);
  const unconfirmed = await d.svc(["automations", "activate", "nightly"]);
  assert.equal(unconfirmed.code, 2);
  assert.match(
    unconfirmed.stderr,
    /Activating needs confirmation: run it on a terminal, or pass "--yes"/,
  );
  assert.equal(await routineStatus(d), "PAUSED");

  const activated = await d.svc(["automations", "activate", "nightly", "--yes"]);
  assert.equal(activated.code, 0, activated.stderr);
  assert.equal(activated.stdout.trim(), 'Routine "nightly" is now ACTIVE');
  assert.equal(await routineStatus(d), "ACTIVE");
  const again = await d.svc(["automations", "activate", "nightly", "--yes"]);
  assert.equal(again.stdout.trim(), 'Routine "nightly" is already ACTIVE');

  const paused = await d.svc(["automations", "pause", "nightly"]);
  assert.equal(paused.code, 0, paused.stderr);
  assert.equal(paused.stdout.trim(), 'Routine "nightly" is now PAUSED');
  assert.equal(await routineStatus(d), "PAUSED");

  const unknown = await d.svc(["automations", "pause", "nope"]);
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /^routine_not_found: Routine "nope" does not exist/);
});

Deno.test({
  name: "automationsCommand in tmux: activate shows the definition and asks",
  ignore: !TMUX_INSTALLED,
  async fn() {
    await using d = await startCliDaemon();
    await createRoutine(d);
    const dir = await tempHome();
    const tmux = tmuxPanes(dir);
    try {
      const args = ["automations", "activate", "nightly"];
      await tmux.start("no", { home: d.home, cwd: d.project, args });
      let screen = await tmux.waitFor("no", /Activate routine "nightly"\? \[y\/N\] $/m);
      assert.match(screen, /^prompt: +out hi; exit 0$/m);
      assert.match(screen, /^status: +PAUSED$/m);
      await tmux.typeLine("no", "n");
      screen = await tmux.waitFor("no", /^exit=\d+$/m);
      assert.match(screen, /^Not activated$/m);
      assert.match(screen, /^exit=1$/m);
      assert.equal(await routineStatus(d), "PAUSED");

      await tmux.start("yes", { home: d.home, cwd: d.project, args });
      await tmux.waitFor("yes", /\[y\/N\] $/m);
      await tmux.typeLine("yes", "y");
      screen = await tmux.waitFor("yes", /^exit=\d+$/m);
      assert.match(screen, /^Routine "nightly" is now ACTIVE$/m);
      assert.match(screen, /^exit=0$/m);
      assert.equal(await routineStatus(d), "ACTIVE");
    } finally {
      await tmux.kill();
      await removeTree(dir);
    }
  },
});
