import assert from "node:assert/strict";
import {
  buildArgv,
  buildRegistry,
  BUILTIN_HARNESSES,
  HARNESS_ID_PATTERN,
  type HarnessSpec,
  launchEnv,
  type PromptMode,
  resumeArgs,
  validAgentSessionId,
} from "../../src/sessions/harnesses.ts";

function builtinSpec(id: string): HarnessSpec {
  const spec = buildRegistry({}).get(id);
  assert.ok(spec, `built-in "${id}" is missing`);
  return spec;
}

function configured(command: string[], prompt: PromptMode): HarnessSpec {
  const spec = buildRegistry({ custom: { command, prompt } }).get("custom");
  assert.ok(spec);
  return spec;
}

Deno.test("BUILTIN_HARNESSES lists the four adapters as version-probed protocol harnesses (D16)", () => {
  assert.deepEqual(BUILTIN_HARNESSES.map((spec) => [spec.id, spec.protocol]), [
    ["claude", "claude"],
    ["codex", "codex-app-server"],
    ["gemini", "acp"],
    ["opencode", "acp"],
  ]);
  for (const spec of BUILTIN_HARNESSES) {
    assert.equal(spec.builtin, true);
    assert.equal(spec.prompt, "none", "the prompt is the first turn, never an argument");
    assert.deepEqual(spec.versionArgs, ["--version"]);
    assert.equal(spec.command[0], spec.id);
    assert.ok(HARNESS_ID_PATTERN.test(spec.id));
    assert.ok(Object.isFrozen(spec) && Object.isFrozen(spec.command));
  }
  assert.deepEqual(builtinSpec("gemini").probeEnv, { GEMINI_CLI_NO_RELAUNCH: "true" });
});

Deno.test("buildArgv() builds each built-in's protocol-mode argv, with and without a model", async (t) => {
  const claude = [
    "claude",
    "-p",
    "--input-format",
    "stream-json",
    "--output-format",
    "stream-json",
    "--verbose",
    "--include-partial-messages",
    "--permission-prompt-tool",
    "stdio",
    "--permission-mode",
    "default",
  ];
  const gemini = ["gemini", "--acp", "--approval-mode", "default"];
  const cases: Record<string, [string[], string[]]> = {
    claude: [[...claude, "--model", "sonnet"], claude],
    codex: [["codex", "app-server"], ["codex", "app-server"]],
    gemini: [[...gemini, "--model", "sonnet"], gemini],
    opencode: [["opencode", "acp"], ["opencode", "acp"]],
  };
  for (const [id, [withModel, withoutModel]] of Object.entries(cases)) {
    await t.step(id, () => {
      assert.deepEqual(buildArgv(builtinSpec(id), { prompt: "Fix the tests", model: "sonnet" }), {
        argv: withModel,
        stdinPrompt: null,
      });
      for (const model of [undefined, null, ""]) {
        assert.deepEqual(buildArgv(builtinSpec(id), { prompt: "Go", model }).argv, withoutModel);
      }
    });
  }
});

Deno.test("buildArgv() drops {model} and its flag without a model", async (t) => {
  await t.step("configured", () => {
    const spec = configured(["tool", "-m", "{model}", "--effort", "high", "{prompt}"], "arg");
    assert.deepEqual(buildArgv(spec, { prompt: "Go" }).argv, ["tool", "--effort", "high", "Go"]);
    assert.deepEqual(buildArgv(spec, { prompt: "Go", model: "m1" }).argv, [
      "tool",
      "-m",
      "m1",
      "--effort",
      "high",
      "Go",
    ]);
  });
});

Deno.test("buildArgv() drops a model-only element but keeps a non-flag element before it", () => {
  const spec = configured(["tool", "run", "{model}", "{prompt}"], "arg");
  assert.deepEqual(buildArgv(spec, { prompt: "Go" }).argv, ["tool", "run", "Go"]);
  assert.deepEqual(buildArgv(spec, { prompt: "Go", model: "m1" }).argv, [
    "tool",
    "run",
    "m1",
    "Go",
  ]);
});

Deno.test("buildArgv() substitutes placeholders only as whole elements", () => {
  const spec = configured(["tool", "--model={model}", "x{prompt}", "{prompt}"], "arg");
  assert.deepEqual(buildArgv(spec, { prompt: "Go", model: "m1" }).argv, [
    "tool",
    "--model={model}",
    "x{prompt}",
    "Go",
  ]);
});

Deno.test("buildArgv() passes a configured arg prompt as one element per placeholder", () => {
  const spec = configured(["python3", "/abs/echo.py", "{prompt}", "--again", "{prompt}"], "arg");
  assert.deepEqual(buildArgv(spec, { prompt: "Hi" }), {
    argv: ["python3", "/abs/echo.py", "Hi", "--again", "Hi"],
    stdinPrompt: null,
  });
});

Deno.test("buildArgv() keeps a prompt with spaces, quotes and newlines as one element", () => {
  const prompt = `Fix "the" tests\n  and 'quote' $HOME; rm -rf / \`x\`\n`;
  assert.deepEqual(buildArgv(configured(["tool", "{prompt}"], "arg"), { prompt }).argv, [
    "tool",
    prompt,
  ]);
});

Deno.test("buildArgv() writes a stdin prompt followed by one newline", async (t) => {
  const spec = configured(["python3", "/abs/echo.py", "{prompt}"], "stdin");
  await t.step("appends a newline", () => {
    assert.deepEqual(buildArgv(spec, { prompt: "Hi" }), {
      argv: ["python3", "/abs/echo.py"],
      stdinPrompt: "Hi\n",
    });
  });
  await t.step("keeps a prompt that already ends with one", () => {
    assert.equal(buildArgv(spec, { prompt: "Hi\n" }).stdinPrompt, "Hi\n");
    assert.equal(buildArgv(spec, { prompt: "a\nb\r\n" }).stdinPrompt, "a\nb\r\n");
  });
});

Deno.test("buildArgv() passes no prompt in none mode", () => {
  const spec = configured(["tool", "--model", "{model}", "{prompt}"], "none");
  assert.deepEqual(buildArgv(spec, { prompt: "Hi", model: "m1" }), {
    argv: ["tool", "--model", "m1"],
    stdinPrompt: null,
  });
});

Deno.test("buildArgv() joins a dash-leading model to its flag for built-ins only", () => {
  for (const spec of BUILTIN_HARNESSES.filter((spec) => spec.command.includes("{model}"))) {
    const argv = buildArgv(spec, { prompt: "Go", model: "-y" }).argv;
    assert.ok(argv.includes("--model=-y"), spec.id);
    assert.ok(!argv.includes("-y"), spec.id);
  }
  const spec = configured(["tool", "--model", "{model}", "{prompt}"], "arg");
  assert.deepEqual(buildArgv(spec, { prompt: "-x", model: "-y" }).argv, [
    "tool",
    "--model",
    "-y",
    "-x",
  ]);
});

Deno.test("buildRegistry() adds configured harnesses after the built-ins", () => {
  const registry = buildRegistry({
    echo: { command: ["python3", "/abs/echo.py"], prompt: "stdin", label: "Echo" },
    "my.tool-2": { command: ["tool"], prompt: "none" },
  });
  assert.deepEqual([...registry.keys()], [
    "claude",
    "codex",
    "gemini",
    "opencode",
    "echo",
    "my.tool-2",
  ]);
  assert.deepEqual(registry.get("echo"), {
    id: "echo",
    label: "Echo",
    builtin: false,
    protocol: "raw",
    command: ["python3", "/abs/echo.py"],
    prompt: "stdin",
    versionArgs: null,
    probeEnv: {},
  });
  assert.equal(registry.get("my.tool-2")?.label, "my.tool-2");
});

Deno.test("buildRegistry() lets a configured id replace a built-in one", () => {
  const registry = buildRegistry({ claude: { command: ["/opt/claude-wrapper"], prompt: "stdin" } });
  assert.deepEqual(registry.get("claude"), {
    id: "claude",
    label: "claude",
    builtin: false,
    protocol: "raw",
    command: ["/opt/claude-wrapper"],
    prompt: "stdin",
    versionArgs: null,
    probeEnv: {},
  });
  assert.equal(registry.size, 4);
});

Deno.test("buildRegistry() gives a configured protocol harness its protocol and no prompt mode (D16)", () => {
  const registry = buildRegistry({ goose: { command: ["goose", "acp"], protocol: "acp" } });
  const spec = registry.get("goose")!;
  assert.equal(spec.protocol, "acp");
  assert.equal(spec.prompt, "none");
  assert.deepEqual(buildArgv(spec, { prompt: "hi" }), {
    argv: ["goose", "acp"],
    stdinPrompt: null,
  });
});

Deno.test("buildRegistry() copies the configured command", () => {
  const command = ["tool", "{prompt}"];
  const registry = buildRegistry({ tool: { command, prompt: "arg" } });
  command.push("--extra");
  assert.deepEqual(registry.get("tool")?.command, ["tool", "{prompt}"]);
});

Deno.test("buildRegistry() rejects an invalid id or an empty command", () => {
  assert.throws(() => buildRegistry({ "Bad": { command: ["x"], prompt: "arg" } }), TypeError);
  assert.throws(() => buildRegistry({ ok: { command: [], prompt: "arg" } }), TypeError);
});

Deno.test("HARNESS_ID_PATTERN accepts D3 ids only", () => {
  for (const id of ["a", "0", "claude", "my.tool_2-x", "a".repeat(64)]) {
    assert.ok(HARNESS_ID_PATTERN.test(id), id);
  }
  for (const id of ["", "-a", ".a", "_a", "A", "a b", "a/b", "a".repeat(65), "é"]) {
    assert.ok(!HARNESS_ID_PATTERN.test(id), id);
  }
});

Deno.test("launchEnv() routes opencode's permissions to svc in protocol sessions (D28)", () => {
  const opencode = builtinSpec("opencode");
  const env = launchEnv(opencode, "ask");
  assert.deepEqual(JSON.parse(env.OPENCODE_PERMISSION), {
    edit: "ask",
    bash: "ask",
    webfetch: "ask",
    websearch: "ask",
    external_directory: "ask",
    doom_loop: "ask",
  });
  assert.deepEqual(launchEnv(opencode, "deny"), env);
  assert.deepEqual(launchEnv(opencode, "allow"), env, "deny rules apply under allow too");
  assert.deepEqual(launchEnv(opencode, null), {});
  assert.deepEqual(launchEnv(builtinSpec("claude"), "ask"), {});
  const configured = buildRegistry({ opencode: { command: ["opencode", "acp"], protocol: "acp" } });
  assert.deepEqual(launchEnv(configured.get("opencode")!, "ask"), {});
});

/** Ids each agent reported in the recorded transcripts (shared/spec/samples, tests/fixtures). */
const MEASURED_IDS: Record<string, string> = {
  claude: "5785ed9d-e8c3-4a14-843f-b2e7f4abca42",
  codex: "01a22181-e483-7881-a6f0-1ab6b1786486",
  gemini: "9392ac60-f153-477f-9318-9a62f23b0ede",
  opencode: "ses_dde7e0c62ffeBBc80i4PWm7ZXf",
};

Deno.test("validAgentSessionId() takes each built-in's measured id format only (issue 33 item 10)", async (t) => {
  const registry = buildRegistry({});
  for (const [id, good] of Object.entries(MEASURED_IDS)) {
    await t.step(id, () => {
      const spec = registry.get(id)!;
      assert.equal(validAgentSessionId(spec, good), true);
      for (
        const bad of [
          "",
          "--permission-mode=bypassPermissions",
          `${good} --permission-mode=bypassPermissions`,
          `-${good}`,
          `${good}\n`,
          good.toUpperCase() === good ? `${good}x` : good.toUpperCase(),
          "x".repeat(300),
        ]
      ) {
        assert.equal(validAgentSessionId(spec, bad), false, JSON.stringify(bad));
      }
    });
  }
  await t.step("each built-in refuses the others' formats where they differ", () => {
    assert.equal(validAgentSessionId(registry.get("claude")!, MEASURED_IDS.opencode), false);
    assert.equal(validAgentSessionId(registry.get("opencode")!, MEASURED_IDS.claude), false);
  });
});

Deno.test("validAgentSessionId() takes a configured harness's plain token, never a flag (issue 33 item 10)", () => {
  const spec = buildRegistry({ agent: { command: ["agent"], protocol: "claude" } }).get("agent")!;
  assert.equal(validAgentSessionId(spec, "fixture-session-1"), true);
  assert.equal(validAgentSessionId(spec, MEASURED_IDS.opencode), true);
  for (const bad of ["", "-x", "--resume", "a b", "a\u0000b", "é", "x".repeat(129)]) {
    assert.equal(validAgentSessionId(spec, bad), false, JSON.stringify(bad));
  }
});

Deno.test("resumeArgs() passes claude's id as one --resume=<id> element (issue 33 item 10)", () => {
  const registry = buildRegistry({ agent: { command: ["agent"], protocol: "claude" } });
  assert.deepEqual(resumeArgs(registry.get("claude")!, MEASURED_IDS.claude), [
    `--resume=${MEASURED_IDS.claude}`,
  ]);
  assert.deepEqual(resumeArgs(registry.get("agent")!, "fixture-session-1"), [
    "--resume=fixture-session-1",
  ]);
  for (const id of ["codex", "gemini", "opencode"]) {
    assert.deepEqual(resumeArgs(registry.get(id)!, MEASURED_IDS[id]), [], id);
  }
});
