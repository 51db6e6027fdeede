/** Routines this machine cannot run are refused at create/update, every field at once (issue 27 item 6). */
import assert from "node:assert/strict";
import { checkRoutine, type FileProbe } from "../../src/automations/routine_checks.ts";
import { parseDefinition } from "../../src/automations/definition.ts";
import { ServiceError } from "../../src/errors.ts";
import { routineDefinition } from "../helpers/routine.ts";
import { startCliDaemon } from "./cli_daemon.ts";

// deno-lint-ignore no-explicit-any
type Json = Record<string, any>;

function definition(cwd: string, overrides: Json = {}): Json {
  return routineDefinition("nightly", {
    name: "Nightly",
    status: "ACTIVE",
    rrule: "FREQ=DAILY;BYHOUR=9",
    prompt: "out hi",
    cwd,
    ...overrides,
  });
}

Deno.test("checkRoutine() names the runtime, a missing cwd and worktree isolation outside git", () => {
  const files: FileProbe = {
    kind: (path) =>
      path === "/repo" || path === "/plain" ? "dir" : path === "/repo/.git" ? "dir" : null,
  };
  const known = { knownRuntimes: ["fixture"], files };
  const all = checkRoutine(
    parseDefinition(definition("/gone", { runtime: "claud", isolation: "worktree" })),
    known,
  );
  assert.deepEqual(all.problems.map((p) => p.field), ["definition.runtime", "definition.cwd"]);
  const paused = checkRoutine(parseDefinition(definition("/gone", { status: "PAUSED" })), known);
  assert.deepEqual(paused.problems, []);
  assert.match(paused.warnings[0], /cwd "\/gone" does not exist/);
  const plain = checkRoutine(
    parseDefinition(definition("/plain", { isolation: "worktree" })),
    known,
  );
  assert.deepEqual(plain.problems.map((p) => p.field), ["definition.isolation"]);
  const repo = checkRoutine(parseDefinition(definition("/repo", { isolation: "worktree" })), known);
  assert.deepEqual(repo, { problems: [], warnings: [] });
});

Deno.test("parseDefinition() reports every invalid field at once", () => {
  let thrown: ServiceError | undefined;
  try {
    parseDefinition(definition("relative", { timezone: "mars", bogus: 1 }));
  } catch (caught) {
    assert.ok(caught instanceof ServiceError);
    thrown = caught;
  }
  const fields = (thrown!.details.fields as Array<{ field: string }>).map((f) => f.field).sort();
  assert.deepEqual(fields, ["definition.bogus", "definition.cwd", "definition.timezone"]);
});

Deno.test("svc automations create refuses what would fail at the first run; health warns", async () => {
  await using d = await startCliDaemon();
  const file = `${d.project}/routine.json`;
  await Deno.writeTextFile(
    file,
    JSON.stringify(definition(`${d.project}/gone`, { runtime: "claud", isolation: "worktree" })),
  );
  const refused = await d.svc(["automations", "create", "-f", file]);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /^invalid_request: 2 invalid fields$/m);
  assert.match(refused.stderr, /^ {2}definition.runtime: Unknown runtime "claud"/m);
  assert.match(refused.stderr, /^ {2}definition.cwd: Directory ".*\/gone" does not exist$/m);

  await Deno.writeTextFile(file, JSON.stringify(definition(d.project, { isolation: "worktree" })));
  const notGit = await d.svc(["automations", "create", "-f", file]);
  assert.equal(notGit.code, 1);
  assert.match(
    notGit.stderr,
    /needs cwd ".*" to be inside a git repository \(field "definition.isolation"\)/,
  );

  await Deno.writeTextFile(
    file,
    JSON.stringify(definition(`${d.project}/later`, { status: "PAUSED" })),
  );
  const paused = await d.svc(["automations", "create", "-f", file]);
  assert.equal(paused.code, 0, paused.stderr);
  assert.match(
    paused.stderr,
    /^warning: cwd ".*\/later" does not exist: runs will fail until it does$/m,
  );
  const health = await d.svc(["automations", "health", "nightly"]);
  assert.match(health.stdout, /^warnings: +cwd ".*\/later" does not exist/m);
  const run = await d.svc(["automations", "run", "nightly"]);
  assert.equal(run.code, 1);
});

Deno.test("svc inbox shows a failed run's error in RESULT", async () => {
  await using d = await startCliDaemon();
  const file = `${d.project}/routine.json`;
  await Deno.writeTextFile(
    file,
    JSON.stringify(
      definition(d.project, {
        status: "PAUSED",
        prompt: "out partial; exit 3",
        outputTarget: { kind: "inbox" },
      }),
    ),
  );
  assert.equal((await d.svc(["automations", "create", "-f", file])).code, 0);
  const ran = await d.svc(["automations", "run", "nightly", "--json"]);
  const runId = JSON.parse(ran.stdout).result.runId as string;
  const deadline = Date.now() + 20_000;
  let inbox = "";
  while (Date.now() < deadline && !inbox.includes(runId)) {
    inbox = (await d.svc(["inbox"])).stdout;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.match(
    inbox,
    new RegExp(
      `${runId} +nightly +failed .* session_failed: Session ended failed with exit code 3$`,
      "m",
    ),
  );
});
