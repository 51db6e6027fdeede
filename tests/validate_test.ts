import assert from "node:assert/strict";
import { z } from "zod";
import { ServiceError } from "../src/errors.ts";
import {
  absolutePath,
  type HostOs,
  isAbsoluteHostPath,
  isForeignAbsolutePath,
  parseInput,
} from "../src/validate.ts";

const schema = z.strictObject({
  name: z.string().min(1),
  items: z.array(z.strictObject({ size: z.int().min(1) })).optional(),
});

/** Runs `parseInput` expecting a 400 `invalid_request`, and returns it. */
function refusal(input: unknown, prefix?: string): ServiceError {
  try {
    parseInput(schema, input, prefix);
  } catch (error) {
    assert.ok(error instanceof ServiceError);
    assert.equal(error.code, "invalid_request");
    assert.equal(error.status, 400);
    return error;
  }
  assert.fail("parseInput() accepted the input");
}

Deno.test("parseInput() returns the parsed value of valid input", () => {
  assert.deepEqual(parseInput(schema, { name: "a", items: [{ size: 2 }] }), {
    name: "a",
    items: [{ size: 2 }],
  });
});

Deno.test("parseInput() names the offending field and its message", async (t) => {
  const cases: Array<
    { name: string; input: unknown; prefix?: string; field?: string; message: RegExp }
  > = [
    {
      name: "missing field",
      input: {},
      field: "name",
      message: /^Field "name" is required$/,
    },
    {
      name: "missing field under a prefix",
      input: {},
      prefix: "definition",
      field: "definition.name",
      message: /^Field "definition\.name" is required$/,
    },
    {
      name: "wrong type",
      input: { name: 7 },
      field: "name",
      message: /^Invalid "name": /,
    },
    {
      name: "unknown key names the key",
      input: { name: "a", bogus: 1 },
      field: "bogus",
      message: /^Unknown field "bogus"$/,
    },
    {
      name: "unknown key under a prefix",
      input: { name: "a", bogus: 1 },
      prefix: "definition",
      field: "definition.bogus",
      message: /^Unknown field "definition\.bogus"$/,
    },
    {
      name: "nested path with an array index",
      input: { name: "a", items: [{ size: 1 }, { size: 0 }] },
      field: "items.1.size",
      message: /^Invalid "items\.1\.size": /,
    },
    {
      name: "nested missing field",
      input: { name: "a", items: [{}] },
      field: "items.0.size",
      message: /^Field "items\.0\.size" is required$/,
    },
    {
      name: "nested unknown key",
      input: { name: "a", items: [{ size: 1, extra: true }] },
      prefix: "x",
      field: "x.items.0.extra",
      message: /^Unknown field "x\.items\.0\.extra"$/,
    },
    {
      name: "null where an object is expected is invalid, not missing",
      input: { name: "a", items: [null] },
      field: "items.0",
      message: /^Invalid "items\.0": /,
    },
    {
      name: "empty prefix adds nothing",
      input: {},
      prefix: "",
      field: "name",
      message: /^Field "name" is required$/,
    },
  ];
  for (const c of cases) {
    await t.step(c.name, () => {
      const error = refusal(c.input, c.prefix);
      assert.deepEqual(error.details, { field: c.field });
      assert.match(error.message, c.message);
    });
  }
});

Deno.test("parseInput() refuses input that is not an object", async (t) => {
  const cases: Array<[string, unknown]> = [
    ["a number", 42],
    ["a string", "text"],
    ["null", null],
    ["an array", []],
  ];
  for (const [name, input] of cases) {
    await t.step(`${name} without a prefix has no field`, () => {
      const error = refusal(input);
      assert.deepEqual(error.details, {});
      assert.match(error.message, /^Invalid request: /);
    });
    await t.step(`${name} under a prefix names the prefix`, () => {
      const error = refusal(input, "definition");
      assert.deepEqual(error.details, { field: "definition" });
      assert.match(error.message, /^Invalid "definition": /);
    });
  }
  await t.step("undefined under a prefix is a missing field", () => {
    const error = refusal(undefined, "definition");
    assert.deepEqual(error.details, { field: "definition" });
    assert.equal(error.message, 'Field "definition" is required');
  });
});

Deno.test("isAbsoluteHostPath() and isForeignAbsolutePath() judge a path for the host OS (issue 28)", async (t) => {
  // [os, path, absolute on os, absolute elsewhere only]
  const cases: Array<[HostOs, string, boolean, boolean]> = [
    ["linux", "/home/me", true, false],
    ["linux", "/", true, false],
    ["linux", "C:/x", false, true],
    ["linux", "c:\\x", false, true],
    ["linux", "C:", false, true],
    ["linux", "\\\\server\\share", false, true],
    ["linux", "relative/dir", false, false],
    ["linux", "./C:/x", false, false],
    ["linux", "C:code", false, false],
    ["linux", "", false, false],
    ["darwin", "/Users/me", true, false],
    ["darwin", "D:\\x", false, true],
    ["windows", "C:\\x", true, false],
    ["windows", "C:/x", true, false],
    ["windows", "\\\\server\\share", true, false],
    ["windows", "//server/share/dir", true, false],
    ["windows", "\\\\?\\C:\\x", true, false],
    ["windows", "/home/me", false, true],
    ["windows", "\\x", false, true],
    ["windows", "\\\\server", false, true],
    ["windows", "C:code", false, false],
    ["windows", "relative\\dir", false, false],
  ];
  for (const [os, path, absolute, foreign] of cases) {
    await t.step(`${os} ${JSON.stringify(path)}`, () => {
      assert.equal(isAbsoluteHostPath(path, os), absolute, "absolute");
      assert.equal(isForeignAbsolutePath(path, os), foreign, "foreign");
    });
  }
});

Deno.test("absolutePath() refuses a path of another OS with a message saying what is expected", () => {
  const onLinux = z.strictObject({ path: absolutePath("linux") });
  const linux = (() => {
    try {
      parseInput(onLinux, { path: "C:/x" });
    } catch (error) {
      return error as ServiceError;
    }
    assert.fail("accepted");
  })();
  assert.equal(linux.status, 400);
  assert.deepEqual(linux.details, { field: "path" });
  assert.equal(linux.message, 'Invalid "path": expected an absolute path starting with "/"');
  assert.deepEqual(parseInput(z.object({ path: absolutePath("windows") }), { path: "C:/x" }), {
    path: "C:/x",
  });
});
