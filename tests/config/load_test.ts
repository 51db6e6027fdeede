import assert from "node:assert/strict";
import { parseConfig } from "../../src/config/load.ts";
import { ConfigError } from "../../src/config/config_error.ts";

Deno.test("parseConfig() applies defaults to an empty object", () => {
  assert.deepEqual(parseConfig("{}", "config.json"), {
    projectRoots: null,
    harnesses: {},
    rawArtifacts: false,
    maxLiveSessions: 64,
    maxStreams: 256,
    idleTimeoutMinutes: 60,
    turnTimeoutMinutes: 30,
    approvals: { interactive: "ask", unattended: "deny", timeoutSeconds: 600 },
    autoResume: { enabled: false },
    worktrees: { keep: 10 },
    worktreeSetup: {},
    projects: [],
    ui: { stalledAfterSeconds: 120 },
    notify: null,
    notifications: { channels: [], afterSeconds: 20 },
    web: { origins: [], trustProxy: false },
  });
});

Deno.test("parseConfig() takes notifications and web.origins, naming the bad field (D31)", () => {
  const config = parseConfig(
    JSON.stringify({
      notifications: {
        afterSeconds: 5,
        channels: [
          { kind: "desktop" },
          { kind: "webhook", url: "https://ntfy.sh/t", format: "ntfy", events: ["turn.finished"] },
          { kind: "command", command: ["/bin/notify"], name: "script" },
        ],
      },
      web: { origins: ["https://box.tailnet.ts.net"] },
    }),
    "config.json",
  );
  assert.equal(config.notifications.afterSeconds, 5);
  assert.equal(config.notifications.channels.length, 3);
  assert.deepEqual(config.web.origins, ["https://box.tailnet.ts.net"]);
  const refused: Array<[unknown, RegExp]> = [
    [{ notifications: { channels: [{ kind: "webhook", url: "ftp://x" }] } }, /channels\.0\.url/],
    [{ notifications: { channels: [{ kind: "pager" }] } }, /channels\.0\.kind/],
    [{ notifications: { channels: [{ kind: "desktop", events: ["x"] }] } }, /events\.0/],
    [{ web: { origins: ["https://box/path"] } }, /web\.origins\.0/],
  ];
  for (const [raw, field] of refused) {
    assert.throws(() => parseConfig(JSON.stringify(raw), "config.json"), field);
  }
});

Deno.test("parseConfig() takes worktreeSetup per project root and refuses paths leaving the checkout (D27)", () => {
  const setup = { copy: [".env", "config/local.json"], run: [["npm", "ci"]], timeoutSeconds: 60 };
  const config = parseConfig(
    JSON.stringify({ worktreeSetup: { "/home/me/project": setup } }),
    "config.json",
  );
  assert.deepEqual(config.worktreeSetup, { "/home/me/project": setup });
  for (const copy of ["../x", "/etc/passwd", "a/../../b"]) {
    assert.throws(
      () =>
        parseConfig(
          JSON.stringify({ worktreeSetup: { "/home/me/project": { copy: [copy] } } }),
          "config.json",
        ),
      (error: Error) =>
        error instanceof ConfigError &&
        /worktreeSetup\.\/home\/me\/project\.copy\.0/.test(error.message),
    );
  }
  assert.throws(
    () => parseConfig(JSON.stringify({ worktreeSetup: { "/p": { run: [[]] } } }), "config.json"),
    ConfigError,
  );
});

Deno.test("parseConfig() takes protocol harnesses and conversation timeouts (D16)", () => {
  const config = parseConfig(
    JSON.stringify({
      harnesses: { goose: { command: ["goose", "acp"], protocol: "acp" } },
      idleTimeoutMinutes: 5,
      turnTimeoutMinutes: 0.5,
    }),
    "config.json",
  );
  assert.equal(config.harnesses.goose.protocol, "acp");
  assert.equal(config.idleTimeoutMinutes, 5);
  assert.equal(config.turnTimeoutMinutes, 0.5);
  const refusals: Array<[unknown, RegExp]> = [
    [{ harnesses: { x: { command: ["x"] } } }, /"harnesses\.x\.prompt" is required for a raw/],
    [{ harnesses: { x: { command: ["x"], protocol: "acp", prompt: "arg" } } }, /first turn/],
    [
      { harnesses: { x: { command: ["x", "{prompt}"], protocol: "acp" } } },
      /"harnesses\.x\.command"/,
    ],
    [{ harnesses: { x: { command: ["x"], protocol: "mcp", prompt: "arg" } } }, /protocol/],
    [{ turnTimeoutMinutes: 0 }, /turnTimeoutMinutes/],
    [{ idleTimeoutMinutes: -1 }, /idleTimeoutMinutes/],
  ];
  for (const [body, message] of refusals) {
    assert.throws(() => parseConfig(JSON.stringify(body), "config.json"), message);
  }
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

Deno.test("parseConfig() takes land.verify per project root and refuses a relative root (D34)", () => {
  const verify = { command: ["deno", "task", "check"], timeoutSeconds: 120 };
  const config = parseConfig(
    JSON.stringify({ projects: [{ root: "/home/me/project", land: { verify } }] }),
    "config.json",
  );
  assert.deepEqual(config.projects, [{ root: "/home/me/project", land: { verify } }]);
  assert.throws(
    () => parseConfig(JSON.stringify({ projects: [{ root: "project" }] }), "config.json"),
    (error: Error) => error instanceof ConfigError && /projects\.0\.root/.test(error.message),
  );
  assert.throws(
    () =>
      parseConfig(
        JSON.stringify({ projects: [{ root: "/p", land: { verify: { command: [] } } }] }),
        "config.json",
      ),
    ConfigError,
  );
});

Deno.test("parseConfig() takes web.origins as bare origins and web.trustProxy (D30)", () => {
  const config = parseConfig(
    JSON.stringify({ web: { origins: ["https://box.tailnet.ts.net"], trustProxy: true } }),
    "config.json",
  );
  assert.deepEqual(config.web, { origins: ["https://box.tailnet.ts.net"], trustProxy: true });
  for (
    const origin of ["https://box.test/", "https://box.test/app", "ftp://box.test", "box.test"]
  ) {
    assert.throws(
      () => parseConfig(JSON.stringify({ web: { origins: [origin] } }), "config.json"),
      /field "web.origins.0" must be an origin/,
      origin,
    );
  }
});
