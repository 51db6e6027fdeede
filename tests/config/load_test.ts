import assert from "node:assert/strict";
import { parseConfig } from "../../src/config/load.ts";
import { ConfigError } from "../../src/config/config_error.ts";

Deno.test("parseConfig() applies defaults to an empty object", () => {
  assert.deepEqual(parseConfig("{}", "config.json"), {
    projectRoots: null,
    harnesses: {},
    rawArtifacts: false,
    maxLiveSessions: 64,
  });
});

Deno.test("parseConfig() accepts the D3 example", () => {
  const config = parseConfig(
    JSON.stringify({
      projectRoots: ["/home/me/code"],
      harnesses: { echo: { command: ["python3", "/abs/echo.py"], prompt: "stdin", label: "Echo" } },
      rawArtifacts: false,
      maxLiveSessions: 64,
    }),
    "config.json",
  );
  assert.deepEqual(config.projectRoots, ["/home/me/code"]);
  assert.equal(config.harnesses.echo.prompt, "stdin");
});

Deno.test("parseConfig() names the offending field", async (t) => {
  const cases: Array<[string, string]> = [
    ['{"bogus": 1}', '"bogus"'],
    ['{"projectRoots": ["relative/dir"]}', '"projectRoots.0"'],
    ['{"rawArtifacts": "yes"}', '"rawArtifacts"'],
    ['{"maxLiveSessions": 0}', '"maxLiveSessions"'],
    ['{"harnesses": {"Bad Id": {"command": ["x"], "prompt": "arg"}}}', '"harnesses.Bad Id"'],
    ['{"harnesses": {"x": {"command": [], "prompt": "arg"}}}', '"harnesses.x.command"'],
    ['{"harnesses": {"x": {"command": ["x"], "prompt": "pipe"}}}', '"harnesses.x.prompt"'],
    [
      '{"harnesses": {"x": {"command": ["x"], "prompt": "arg", "shell": true}}}',
      '"harnesses.x.shell"',
    ],
  ];
  for (const [text, field] of cases) {
    await t.step(text, () => {
      assert.throws(() => parseConfig(text, "/h/config.json"), (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.ok(error.message.includes(field), error.message);
        assert.ok(error.message.includes("/h/config.json"));
        return true;
      });
    });
  }
});

Deno.test("parseConfig() refuses text that is not JSON", () => {
  assert.throws(() => parseConfig("{", "c.json"), ConfigError);
});
