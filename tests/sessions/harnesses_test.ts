import assert from "node:assert/strict";
import {
  buildArgv,
  buildRegistry,
  BUILTIN_HARNESSES,
  HARNESS_ID_PATTERN,
  type HarnessSpec,
  launchEnv,
  type PromptMode,
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
