/**
 * Short ids (issue 27 item 9, issue 38 item 13): unique prefixes of session,
 * routine, run, approval rule and request ids, on every command that takes one.
 */
import assert from "node:assert/strict";
import { AmbiguousIdError, normalizeTaggedId } from "../../src/cli/id_prefix.ts";
import { allEvents, waitForEnd } from "../helpers/daemon.ts";
import { startCliDaemon, withInput } from "./cli_daemon.ts";
import { routineDefinition } from "../helpers/routine.ts";

type Json = Record<string, unknown>;

/** The shortest prefix of `id` that no other of `ids` starts with. */
function uniquePrefix(id: string, ids: string[]): string {
  for (let length = 5; length <= id.length; length++) {
    const prefix = id.slice(0, length);
    if (ids.every((other) => other === id || !other.startsWith(prefix))) return prefix;
  }
  return id;
}

/** Polls until `check` returns a value, for at most 20 s. */
async function eventually<T>(what: string, check: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    assert.ok(Date.now() < deadline, `Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

Deno.test("normalizeTaggedId() adds the tag and upper-cases the ULID part", () => {
  assert.equal(normalizeTaggedId("ses", "01m8"), "ses_01M8");
  assert.equal(normalizeTaggedId("ses", "ses_01m8"), "ses_01M8");
  assert.equal(normalizeTaggedId("run", "run_01M8"), "run_01M8");
  assert.equal(normalizeTaggedId("ses", "nightly-2"), "nightly-2");
  const error = new AmbiguousIdError("session", "ses_", ["ses_A", "ses_B"], true);
  assert.match(error.message, /^Session ID "ses_" is ambiguous: it matches more than 2 sessions:/);
});

Deno.test("svc resolves unique id prefixes of sessions, routines and runs; ambiguity exits 2", async (t) => {
  await using d = await startCliDaemon();
  const first = await d.start("fixture", "out one");
  const second = await d.start("fixture", "out two");
  await waitForEnd(d.client, first);
  await waitForEnd(d.client, second);

  await t.step(
    "sessions: a unique prefix, lower case without the tag, an ambiguous one",
    async () => {
      const prefix = uniquePrefix(first, [first, second]);
      const shown = await d.svc(["sessions", "show", prefix]);
      assert.equal(shown.code, 0, shown.stderr);
      assert.match(shown.stdout, new RegExp(`^id:\\s+${first}$`, "m"));
      const bare = await d.svc(["events", prefix.slice(4).toLowerCase(), "--json"]);
      assert.equal(bare.code, 0, bare.stderr);
      assert.equal(JSON.parse(bare.stdout.split("\n")[0]).session_id, first);
      const ambiguous = await d.svc(["sessions", "show", "ses_"]);
      assert.equal(ambiguous.code, 2);
      assert.match(ambiguous.stderr, /Session ID "ses_" is ambiguous: it matches 2 sessions:/);
      assert.ok(ambiguous.stderr.includes(first) && ambiguous.stderr.includes(second));
      const unknown = await d.svc(["sessions", "show", "ses_ZZZZ"]);
      assert.equal(unknown.code, 1);
      assert.match(unknown.stderr, /session_not_found/);
    },
  );

  await t.step("the daemon filters GET /sessions by idPrefix, and refuses a bad one", async () => {
    const listed = await d.client.get<Json[]>(`/sessions?idPrefix=${first}`);
    assert.deepEqual(listed.body.map((session) => session.id), [first]);
    const bad = await d.client.get<Json>("/sessions?idPrefix=a%2Fb");
    assert.equal(bad.status, 400);
  });

  await t.step(
    "routines: an exact id wins over a longer one; a shared prefix is ambiguous",
    async () => {
      for (const id of ["nightly", "nightly-2"]) {
        const created = await d.client.post<Json>("/actions", {
          action: "svc.automations.create",
          definition: routineDefinition(id, {
            rrule: "FREQ=DAILY;BYHOUR=9",
            prompt: "out hi",
            cwd: d.project,
            outputTarget: { kind: "inbox" },
          }),
        });
        assert.equal(created.status, 200, JSON.stringify(created.body));
      }
      const exact = await d.svc(["automations", "get", "nightly"]);
      assert.match(exact.stdout, /^id:\s+nightly$/m);
      const longer = await d.svc(["automations", "health", "nightly-"]);
      assert.match(longer.stdout, /^id:\s+nightly-2$/m);
      const ambiguous = await d.svc(["automations", "get", "night"]);
      assert.equal(ambiguous.code, 2);
      assert.match(ambiguous.stderr, /Routine ID "night" is ambiguous: it matches 2 routines:/);
    },
  );

  await t.step("runs: svc inbox show takes a prefix of the run id", async () => {
    const ran = await d.svc(["automations", "run", "nightly-2", "--json"]);
    assert.equal(ran.code, 0, ran.stderr);
    const runId = JSON.parse(ran.stdout).result.runId as string;
    await eventually("the run's result", async () => {
      const inbox = await d.svc(["inbox", "--json"]);
      return inbox.stdout.includes(runId) ? true : undefined;
    });
    const shown = await d.svc(["inbox", "show", runId.slice(0, 20).toLowerCase()]);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, new RegExp(runId));
  });

  await t.step("svc completions ids lists live ids", async () => {
    const sessions = await d.svc(["completions", "ids", "session"]);
    const ids = sessions.stdout.trim().split("\n");
    // The two started here and the run's session.
    assert.equal(ids.length, 3);
    assert.ok(ids.includes(first) && ids.includes(second), sessions.stdout);
    const routines = await d.svc(["completions", "ids", "routine", "nightly-"]);
    assert.equal(routines.stdout, "nightly-2\n");
  });
});

Deno.test("svc approve with no arguments or a request prefix answers the one pending request", async () => {
  await using d = await startCliDaemon();
  const launch = async () => {
    const launched = await d.client.post<Json>("/sessions", {
      projectRoot: d.project,
      harness: "agent",
      prompt: "ask Bash touch x",
      approvals: "ask",
    });
    return launched.body.id as string;
  };
  const pending = async (count: number) =>
    await eventually(`${count} pending requests`, async () => {
      const listed = await d.client.post<{ result: { approvals: Json[] } }>("/actions", {
        action: "svc.sessions.approvals",
      });
      return listed.body.result.approvals.length === count ? true : undefined;
    });
  const none = await d.svc(["approve"]);
  assert.equal(none.code, 1);
  assert.match(none.stderr, /No pending approvals/);

  const first = await launch();
  await pending(1);
  const only = await d.svc(["approve", "--deny"]);
  assert.equal(only.code, 0, only.stderr);
  assert.equal(only.stdout, `Denied Bash: touch x (${first} req_1)\n`);

  const second = await launch();
  const third = await launch();
  await pending(2);
  const ambiguous = await d.svc(["approve", "req"]);
  assert.equal(ambiguous.code, 2);
  assert.match(ambiguous.stderr, /Request ID "req" is ambiguous: it matches 2 requests:/);
  assert.ok(ambiguous.stderr.includes(`${second} req_1`), ambiguous.stderr);
  const bySession = await d.svc(["approve", second.slice(0, 29), "req"]);
  assert.equal(bySession.code, 0, bySession.stderr);
  assert.equal(bySession.stdout, `Allowed Bash: touch x (${second} req_1)\n`);
  const byOnePrefix = await d.svc(["approve", third.slice(4).toLowerCase(), "--deny"]);
  assert.equal(byOnePrefix.code, 0, byOnePrefix.stderr);
  for (const id of [first, second, third]) await d.client.post(`/sessions/${id}/kill`, {});
});

Deno.test("every command that takes an id takes a unique prefix of it (issue 38 item 13)", async (t) => {
  await using d = await startCliDaemon();
  /** A unique prefix of session `id` among the daemon's sessions now. */
  const short = async (id: string) => {
    const sessions = await d.client.get<Json[]>("/sessions");
    return uniquePrefix(id, sessions.body.map((session) => session.id as string));
  };
  const raw = await d.start("fixture-stdin", "waits for input");

  await t.step("sessions input and kill; worktrees diff, land, discard", async () => {
    const sent = await d.svc(["sessions", "input", await short(raw), "hello"]);
    assert.equal(sent.code, 0, sent.stderr);
    assert.equal(sent.stdout.trim(), `Sent 6 bytes to ${raw}`);
    // Found, so refused for what it lacks (no worktree), not as an unknown session.
    for (const verb of ["diff", "land", "discard"]) {
      const refused = await d.svc(["worktrees", verb, await short(raw)]);
      assert.equal(refused.code, 1, verb);
      assert.match(refused.stderr, /^worktree_not_found: /, `${verb}: ${refused.stderr}`);
    }
    const killed = await d.svc(["sessions", "kill", (await short(raw)).slice(4).toLowerCase()]);
    assert.equal(killed.code, 0, killed.stderr);
    assert.equal(killed.stdout.trim(), `Sent SIGTERM to ${raw}`);
    await waitForEnd(d.client, raw);
  });

  await t.step("chat, sessions interrupt, close and resume, attach", async () => {
    const conversation = await d.start("agent", "hang");
    await eventually("the agent's start", async () => {
      const events = await allEvents(d.client, conversation);
      return events.some((event) => event.kind === "agent.started") ? true : undefined;
    });
    const interrupted = await d.svc(["sessions", "interrupt", await short(conversation)]);
    assert.equal(interrupted.code, 0, interrupted.stderr);
    assert.equal(interrupted.stdout.trim(), `Interrupted the current turn of ${conversation}`);
    const chat = await withInput(d, ["chat", await short(conversation)], "/quit\n");
    assert.equal(chat.code, 0, chat.stderr);
    assert.match(chat.stderr, new RegExp(`^Detached: session ${conversation} keeps running`, "m"));
    const closed = await d.svc(["sessions", "close", await short(conversation)]);
    assert.equal(closed.code, 0, closed.stderr);
    assert.equal(closed.stdout.trim(), `Closing ${conversation}: it ends once the agent is idle`);
    assert.equal((await waitForEnd(d.client, conversation)).status, "completed");
    const resumed = await d.svc(["sessions", "resume", await short(conversation)]);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.match(resumed.stdout, new RegExp(`^Resumed ${conversation} `));
    const attached = await withInput(d, ["attach", await short(conversation)], "/close\n");
    assert.equal(attached.code, 0, attached.stderr);

    const ambiguous = await d.svc(["chat", "ses_"]);
    assert.equal(ambiguous.code, 2);
    assert.match(ambiguous.stderr, /^svc chat: Session ID "ses_" is ambiguous: it matches 2 /);
    const unknown = await d.svc(["chat", "ses_ZZZZ"]);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /^session_not_found: /);
    const prompt = await d.svc(["chat", "hello"]);
    assert.equal(prompt.code, 2);
    assert.match(prompt.stderr, /Missing "--harness ID" \(no session ID starts with "hello"\)/);
  });

  await t.step(
    "approvals --session, approvals log --session, rules add --session, rules rm",
    async () => {
      // Asked: approvals.interactive is "ask" by default.
      const id = await d.start("agent", "ask Bash touch x");
      const pending = await eventually("the pending request", async () => {
        const listed = await d.svc(["approvals", "--session", await short(id), "--json"]);
        const requests = JSON.parse(listed.stdout) as Json[];
        return requests.length === 1 ? requests : undefined;
      });
      assert.equal(pending[0].sessionId, id);
      const denied = await d.svc(["approve", await short(id), "--deny"]);
      assert.equal(denied.code, 0, denied.stderr);
      const log = await d.svc(["approvals", "log", "--session", await short(id), "--json"]);
      assert.equal(log.code, 0, log.stderr);
      const entries = JSON.parse(log.stdout).entries as Json[];
      assert.deepEqual(entries.map((entry) => [entry.sessionId, entry.decision]), [[id, "deny"]]);

      const added = await d.svc([
        ...["approvals", "rules", "add", "--allow", "--tool", "Bash"],
        ...["--session", await short(id), "--json"],
      ]);
      assert.equal(added.code, 0, added.stderr);
      const rule = JSON.parse(added.stdout).result.rule as Json;
      assert.equal(rule.sessionId, id);
      const other = await d.svc([
        "approvals",
        "rules",
        "add",
        "--deny",
        "--tool",
        "Edit",
        "--json",
      ]);
      const otherId = JSON.parse(other.stdout).result.rule.id as string;
      const ambiguous = await d.svc(["approvals", "rules", "rm", "apr_"]);
      assert.equal(ambiguous.code, 2);
      assert.match(ambiguous.stderr, /Rule ID "apr_" is ambiguous: it matches 2 rules:/);
      const prefix = uniquePrefix(rule.id as string, [rule.id as string, otherId]);
      const removed = await d.svc(["approvals", "rules", "rm", prefix.slice(4).toLowerCase()]);
      assert.equal(removed.code, 0, removed.stderr);
      assert.equal(removed.stdout.trim(), `Removed ${rule.id}`);
      const unknown = await d.svc(["approvals", "rules", "rm", "apr_ZZZZ"]);
      assert.equal(unknown.code, 1);
      assert.match(unknown.stderr, /^approval_rule_not_found: /);
      await d.client.post(`/sessions/${id}/kill`, {});
    },
  );

  await t.step("automations activate, pause, run, runs, delete; worktrees --routine", async () => {
    const created = await d.client.post<Json>("/actions", {
      action: "svc.automations.create",
      definition: routineDefinition("weekly-report", {
        prompt: "out hi",
        cwd: d.project,
        outputTarget: { kind: "inbox" },
      }),
    });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const activated = await d.svc(["automations", "activate", "week", "--yes"]);
    assert.equal(activated.code, 0, activated.stderr);
    assert.equal(activated.stdout.trim(), 'Routine "weekly-report" is now ACTIVE');
    const paused = await d.svc(["automations", "pause", "week"]);
    assert.equal(paused.code, 0, paused.stderr);
    assert.equal(paused.stdout.trim(), 'Routine "weekly-report" is now PAUSED');
    const unknown = await d.svc(["automations", "pause", "month"]);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /^routine_not_found: Routine "month" does not exist/);

    const ran = await d.svc(["automations", "run", "week", "--json"]);
    assert.equal(ran.code, 0, ran.stderr);
    const runId = JSON.parse(ran.stdout).result.runId as string;
    const runs = await d.svc(["automations", "runs", "week", "--json"]);
    assert.deepEqual((JSON.parse(runs.stdout) as Json[]).map((run) => run.id), [runId]);
    await eventually("the run's result", async () => {
      const read = await d.svc(["inbox", "read", runId.slice(0, 20)]);
      return read.code === 0 && read.stdout.includes(runId) ? true : undefined;
    });
    for (const verb of ["list", "prune"]) {
      const worktrees = await d.svc(["worktrees", verb, "--routine", "week"]);
      assert.equal(worktrees.code, 0, `${verb}: ${worktrees.stderr}`);
    }
    const deleted = await d.svc(["automations", "delete", "week"]);
    assert.equal(deleted.code, 0, deleted.stderr);
    assert.equal(deleted.stdout.trim(), 'Deleted routine "weekly-report" and its run history');
  });
});
