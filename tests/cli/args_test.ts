import assert from "node:assert/strict";
import { CLIENT_OPTIONS, parseCommandArgs } from "../../src/cli/args.ts";
import { UsageError } from "../../src/cli/command.ts";

const OPTIONS = {
  ...CLIENT_OPTIONS,
  after: { type: "string" },
  follow: { type: "boolean", short: "f" },
} as const;

Deno.test("parseCommandArgs() parses flags and positionals", async (t) => {
  await t.step("flags and one positional", () => {
    const parsed = parseCommandArgs(
      ["ses_1", "--after", "5", "-f", "--json", "--home", "/h"],
      OPTIONS,
      { positionals: 1 },
    );
    assert.deepEqual({ ...parsed.values }, { after: "5", follow: true, json: true, home: "/h" });
    assert.deepEqual(parsed.positionals, ["ses_1"]);
  });
  await t.step("--flag=value form", () => {
    assert.equal(parseCommandArgs(["--after=7"], OPTIONS).values.after, "7");
  });
  await t.step("fewer positionals than allowed", () => {
    assert.deepEqual(parseCommandArgs([], OPTIONS, { positionals: 2 }).positionals, []);
  });
  await t.step("arguments after -- are positionals", () => {
    const parsed = parseCommandArgs(["--", "--json"], OPTIONS, { positionals: 1 });
    assert.deepEqual(parsed.positionals, ["--json"]);
    assert.equal(parsed.values.json, undefined);
  });
});

Deno.test("parseCommandArgs() refuses bad usage with a UsageError", async (t) => {
  const cases: Array<[string, string[], number, RegExp]> = [
    ["an unknown long flag", ["--bogus"], 0, /bogus/],
    ["an unknown short flag", ["-x"], 0, /-x/],
    ["a missing value", ["--after"], 0, /after/],
    ["a value for a boolean", ["--json=yes"], 0, /json/],
    ["a positional when none is allowed", ["extra"], 0, /extra/],
    ["a second positional", ["ses_1", "ses_2"], 1, /^Unexpected argument "ses_2"$/],
    ["the third of three", ["a", "b", "c"], 2, /^Unexpected argument "c"$/],
    ["a typo of a flag", ["--aftr", "1"], 0, /^unknown option --aftr \(did you mean --after\?\)$/],
    ["a flag far from any", ["--zzzzzz"], 0, /^unknown option --zzzzzz$/],
    ["no value, in svc's words", ["--after"], 0, /^option --after needs a value$/],
  ];
  for (const [name, args, positionals, message] of cases) {
    await t.step(name, () => {
      assert.throws(() => parseCommandArgs(args, OPTIONS, { positionals }), (error: unknown) => {
        assert.ok(error instanceof UsageError, String(error));
        assert.match(error.message, message);
        return true;
      });
    });
  }
});
