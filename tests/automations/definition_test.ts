import assert from "node:assert/strict";
import { ServiceError } from "../../src/errors.ts";
import { parseDefinition } from "../../src/automations/definition.ts";

const VALID = {
  schemaVersion: 1,
  id: "daily-triage",
  name: "Daily triage",
  status: "ACTIVE",
  rrule: "RRULE:FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=9;BYMINUTE=0",
  timezone: "local",
  misfire: "latest",
  overlap: "forbid",
  timeoutMinutes: 60,
  runtime: "codex",
  prompt: "Label the new issues",
};

/** Asserts that `input` is refused on `field` with a message that names it. */
function assertRefused(input: unknown, field: string, fragment?: string, prefix?: string) {
  assert.throws(() => parseDefinition(input, prefix), (error: unknown) => {
    assert.ok(error instanceof ServiceError);
    assert.equal(error.code, "invalid_request");
    assert.equal(error.status, 400);
    assert.deepEqual(error.details, { field });
    assert.ok(error.message.includes(`"${field}"`), `${error.message} does not name ${field}`);
    if (fragment) assert.ok(error.message.includes(fragment), `${error.message} lacks ${fragment}`);
    assert.ok(!error.message.endsWith("."));
    assert.match(error.message, /^[A-Z]/);
    return true;
  });
}

Deno.test("parseDefinition() accepts a full definition and keeps it as given", () => {
  const full = {
    ...VALID,
    familiarId: "fam-1",
    cwd: "/home/me/code/app",
    model: "gpt-5.1-codex",
    tags: ["triage", "daily"],
    isolation: "worktree",
    outputTarget: { kind: "file", path: "/abs/results" },
  };
  assert.deepEqual(parseDefinition(full), full);
  assert.deepEqual(parseDefinition(VALID), VALID);
});

Deno.test("parseDefinition() accepts and refuses each bound at its edge", async (t) => {
  const cases: [field: string, ok: unknown[], refused: unknown[]][] = [
    ["schemaVersion", [1], [0, 2, "1", 1.5]],
    [
      "id",
      ["a", "x".repeat(96), "A.b_c-9"],
      ["", "x".repeat(97), "has space", "slash/id", "é", 5],
    ],
    ["name", ["n", "x".repeat(160)], ["", "x".repeat(161), null]],
    ["status", ["ACTIVE", "PAUSED"], ["active", "RUNNING", ""]],
    ["rrule", ["FREQ=DAILY;BYHOUR=0"], ["FREQ=DAILY;BYHOUR=24", "", 9]],
    ["timezone", ["local", "utc"], ["UTC", "America/New_York", ""]],
    ["misfire", ["latest"], ["all", "skip", ""]],
    ["overlap", ["forbid"], ["allow", "queue", ""]],
    ["timeoutMinutes", [1, 44640], [0, 44641, -1, 1.5, "60", null]],
    ["runtime", ["c", "x".repeat(64)], ["", "x".repeat(65)]],
    ["prompt", ["p", "x".repeat(256 * 1024)], ["", 1, "x".repeat(256 * 1024 + 1)]],
    ["familiarId", [undefined, "f", "x".repeat(64)], ["", "x".repeat(65), null]],
    ["cwd", [undefined], ["", "relative/dir", "./app", "~/code", "C:code", null]],
    ["model", [undefined, "m", "x".repeat(64)], ["", "x".repeat(65), 5]],
    [
      "tags",
      [undefined, [], Array(32).fill("t"), ["x".repeat(64)]],
      [Array(33).fill("t"), "t", null],
    ],
    [
      "outputTarget",
      [undefined, { kind: "inbox" }, { kind: "file", path: "/abs/dir" }],
      [[], "x", null, 5],
    ],
    ["isolation", [undefined, "none", "worktree"], ["", "git", null, 1]],
  ];
  for (const [field, accepted, refused] of cases) {
    for (const value of accepted) {
      const shown = JSON.stringify(value)?.slice(0, 40);
      await t.step(`${field} = ${shown} is accepted`, () => {
        assert.deepEqual(parseDefinition({ ...VALID, [field]: value })[field as "id"], value);
      });
    }
    for (const value of refused) {
      const shown = JSON.stringify(value)?.slice(0, 40);
      await t.step(`${field} = ${shown} is refused`, () => {
        assertRefused({ ...VALID, [field]: value }, `definition.${field}`);
      });
    }
  }
});

Deno.test("parseDefinition() takes cwd and outputTarget.path as absolute on the host only (issue 28)", async (t) => {
  const cases: Array<[string, string, boolean]> = [
    ["linux", "/home/me/code", true],
    ["linux", "/", true],
    ["linux", "C:/x", false],
    ["linux", "C:\\code\\app", false],
    ["linux", "\\\\server\\share", false],
    ["darwin", "/Users/me", true],
    ["darwin", "d:/code", false],
    ["windows", "C:\\code\\app", true],
    ["windows", "d:/code", true],
    ["windows", "\\\\server\\share\\dir", true],
    ["windows", "/home/me/code", false],
    ["windows", "C:code", false],
  ];
  for (const [os, path, ok] of cases) {
    await t.step(`${os}: ${JSON.stringify(path)} ${ok ? "accepted" : "refused"}`, () => {
      const host = os as typeof Deno.build.os;
      const withCwd = { ...VALID, cwd: path };
      const withTarget = { ...VALID, outputTarget: { kind: "file", path } };
      if (ok) {
        assert.equal(parseDefinition(withCwd, "definition", host).cwd, path);
        assert.deepEqual(
          parseDefinition(withTarget, "definition", host).outputTarget,
          withTarget.outputTarget,
        );
        return;
      }
      for (const [input, field] of [[withCwd, "cwd"], [withTarget, "outputTarget.path"]] as const) {
        assert.throws(() => parseDefinition(input, "definition", host), (error: unknown) => {
          assert.ok(error instanceof ServiceError);
          assert.equal(error.status, 400);
          assert.deepEqual(error.details, { field: `definition.${field}` });
          assert.match(error.message, /absolute path/);
          return true;
        });
      }
    });
  }
});

Deno.test("parseDefinition() names a missing required field", async (t) => {
  for (const field of Object.keys(VALID)) {
    await t.step(field, () => {
      const input: Record<string, unknown> = { ...VALID };
      delete input[field];
      assertRefused(input, `definition.${field}`, "is required");
    });
  }
});

Deno.test("parseDefinition() names an unknown key", () => {
  assertRefused({ ...VALID, bogus: true }, "definition.bogus", "Unknown field");
  assertRefused({ ...VALID, createdBy: "someone" }, "definition.createdBy");
  // The read-only fields of a stored routine are dropped, so get → update round-trips.
  assert.deepEqual(
    parseDefinition({ ...VALID, createdAt: "x", updatedAt: "y" }),
    parseDefinition(VALID),
  );
});

Deno.test("parseDefinition() names the offending tag by index", () => {
  assertRefused({ ...VALID, tags: ["ok", ""] }, "definition.tags.1");
  assertRefused({ ...VALID, tags: [5] }, "definition.tags.0");
});

Deno.test("parseDefinition() refuses an rrule naming the part", () => {
  assertRefused(
    { ...VALID, rrule: "FREQ=DAILY;BYHOUR=9;INTERVAL=2" },
    "definition.rrule",
    'Unsupported RRULE part "INTERVAL=2"',
  );
});

Deno.test("parseDefinition() refuses a non-object", async (t) => {
  for (const input of [null, [], "definition", 1]) {
    await t.step(JSON.stringify(input), () => assertRefused(input, "definition"));
  }
});

Deno.test("parseDefinition() prefixes fields as asked", () => {
  assertRefused({ ...VALID, timeoutMinutes: 0 }, "routine.timeoutMinutes", undefined, "routine");
  assertRefused({ ...VALID, timeoutMinutes: 0 }, "timeoutMinutes", undefined, "");
});

Deno.test("parseDefinition() names the outputTarget field at fault (D21)", () => {
  const cases: Array<[unknown, string]> = [
    [{}, "definition.outputTarget.kind"],
    [{ type: "x" }, "definition.outputTarget.kind"],
    [{ kind: "mail" }, "definition.outputTarget.kind"],
    [{ kind: "file" }, "definition.outputTarget.path"],
    [{ kind: "file", path: "relative/dir" }, "definition.outputTarget.path"],
    [{ kind: "inbox", extra: 1 }, "definition.outputTarget.extra"],
  ];
  for (const [outputTarget, field] of cases) {
    assert.throws(
      () => parseDefinition({ ...VALID, outputTarget }),
      (error: ServiceError) => error.code === "invalid_request" && error.details.field === field,
      JSON.stringify(outputTarget),
    );
  }
});

Deno.test("parseDefinition() refuses an rrule over 256 characters before parsing it (D12)", () => {
  const hours = Array.from({ length: 24 }, (_, h) => h).join(",");
  const days = "MO,TU,WE,TH,FR,SA,SU";
  const rule = `FREQ=WEEKLY;BYDAY=${days};BYHOUR=${hours};BYMINUTE=0;BYSECOND=0`;
  assert.ok(rule.length <= 256);
  assert.equal(parseDefinition({ ...VALID, rrule: rule }).rrule, rule);
  const long = rule + ";BYDAY=" + Array(60).fill("MO").join(",");
  assert.throws(
    () => parseDefinition({ ...VALID, rrule: long }),
    (error: ServiceError) =>
      error.details.field === "definition.rrule" && /at most 256 characters/.test(error.message),
  );
});
