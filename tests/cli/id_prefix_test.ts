/** Short ids (issue 27 item 9): unique prefixes of session, routine, run and request ids. */
import assert from "node:assert/strict";
import { AmbiguousIdError, normalizeTaggedId } from "../../src/cli/id_prefix.ts";
import { waitForEnd } from "../helpers/daemon.ts";
import { startCliDaemon } from "./cli_daemon.ts";
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
