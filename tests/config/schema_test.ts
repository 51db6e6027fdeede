/**
 * Bounds of the config schema (D3) that tests/config/load_test.ts does not
 * reach; field naming and defaults are tested there.
 */
import assert from "node:assert/strict";
import { configSchema } from "../../src/config/schema.ts";

function accepts(value: unknown): boolean {
  return configSchema.safeParse(value).success;
}

const harness = (fields: Record<string, unknown> = {}) => ({
  command: ["x"],
  prompt: "arg",
  ...fields,
});

Deno.test("configSchema bounds harness ids", async (t) => {
  const cases: Array<[string, boolean]> = [
    ["a", true],
    ["0", true],
    ["my-harness_2.x", true],
    ["a" + "b".repeat(63), true],
    ["a" + "b".repeat(64), false],
    ["", false],
    ["-a", false],
    [".a", false],
    ["Echo", false],
    ["a/b", false],
  ];
  for (const [id, ok] of cases) {
    await t.step(`${JSON.stringify(id)} ${ok ? "accepted" : "refused"}`, () => {
      assert.equal(accepts({ harnesses: { [id]: harness() } }), ok);
    });
  }
});

Deno.test("configSchema bounds a harness's command, prompt and label", async (t) => {
  const cases: Array<[string, Record<string, unknown>, boolean]> = [
    ["each prompt mode", {}, true],
    ["prompt stdin", { prompt: "stdin" }, true],
    ["prompt none", { prompt: "none" }, true],
    ["an empty argv element", { command: ["python3", ""] }, false],
    ["a command string instead of argv", { command: "python3 echo.py" }, false],
    ["a missing prompt", { prompt: undefined }, false],
    ["a 1-character label", { label: "E" }, true],
    ["a 160-character label", { label: "l".repeat(160) }, true],
    ["an empty label", { label: "" }, false],
    ["a 161-character label", { label: "l".repeat(161) }, false],
  ];
  for (const [name, fields, ok] of cases) {
    await t.step(name, () => assert.equal(accepts({ harnesses: { x: harness(fields) } }), ok));
  }
});

Deno.test("configSchema accepts projectRoots absolute on this host only (issue 28)", async (t) => {
  const windows = Deno.build.os === "windows";
  const cases: Array<[string, boolean]> = [
    ["/home/me/code", !windows],
    ["C:\\Users\\me\\code", windows],
    ["d:/code", windows],
    ["relative/dir", false],
    ["~/code", false],
    ["C:code", false],
    ["", false],
  ];
  for (const [path, ok] of cases) {
    await t.step(`${JSON.stringify(path)} ${ok ? "accepted" : "refused"}`, () => {
      assert.equal(accepts({ projectRoots: [path] }), ok);
    });
  }
});

Deno.test("configSchema bounds maxLiveSessions to integers 1 to 10000", async (t) => {
  const cases: Array<[unknown, boolean]> = [
    [1, true],
    [10_000, true],
    [0, false],
    [10_001, false],
    [1.5, false],
    ["64", false],
  ];
  for (const [value, ok] of cases) {
    await t.step(`${JSON.stringify(value)} ${ok ? "accepted" : "refused"}`, () => {
      assert.equal(accepts({ maxLiveSessions: value }), ok);
    });
  }
});

Deno.test("configSchema refuses a root that is not an object", async (t) => {
  for (const value of [null, [], "text", 1]) {
    await t.step(JSON.stringify(value), () => assert.equal(accepts(value), false));
  }
});
