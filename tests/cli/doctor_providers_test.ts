/** checkProvider(): what counts as each agent CLI's credentials, and its host (issue 27 item 13). */
import assert from "node:assert/strict";
import {
  checkProvider,
  endpointOf,
  knownCli,
  type ProviderFacts,
} from "../../src/cli/doctor_providers.ts";

function facts(
  env: Record<string, string>,
  files: Record<string, string> = {},
  os = "linux",
): ProviderFacts {
  return {
    env: (name) => env[name],
    readText: (path) => files[path] ?? null,
    userHome: "/home/u",
    os,
  };
}

Deno.test("endpointOf() keeps only host and port, never user info or path", () => {
  assert.deepEqual(endpointOf("https://user:secret@example.com/v1?key=x", "X"), {
    host: "example.com",
    port: 443,
    source: "X",
  });
  assert.deepEqual(endpointOf("http://[::1]:8080", "X"), { host: "::1", port: 8080, source: "X" });
  assert.equal(endpointOf("not a url", "X"), null);
  assert.equal(endpointOf("file:///x", "X"), null);
});

Deno.test("knownCli() names the CLI of a program path", () => {
  assert.equal(knownCli("/usr/local/bin/claude"), "claude");
  assert.equal(knownCli("C:\\bin\\codex.cmd"), "codex");
  assert.equal(knownCli("deno"), null);
});

Deno.test("checkProvider() claude", async (t) => {
  await t.step("nothing: a problem on Linux, a warning on macOS (Keychain)", () => {
    assert.equal(checkProvider("claude", facts({})).mark, "fail");
    assert.equal(checkProvider("claude", facts({}, {}, "darwin")).mark, "warn");
  });
  await t.step("the login file counts; the default host is api.anthropic.com", () => {
    const check = checkProvider("claude", facts({}, { "/home/u/.claude/.credentials.json": "{}" }));
    assert.equal(check.mark, "ok");
    assert.deepEqual(check.endpoint, { host: "api.anthropic.com", port: 443, source: "default" });
  });
  await t.step("Bedrock: not checked, no host", () => {
    const check = checkProvider("claude", facts({ CLAUDE_CODE_USE_BEDROCK: "1" }));
    assert.equal(check.mark, "ok");
    assert.equal(check.endpoint, null);
  });
  await t.step("an empty variable is unset", () => {
    assert.equal(checkProvider("claude", facts({ ANTHROPIC_API_KEY: "" })).mark, "fail");
  });
});

Deno.test("checkProvider() codex", async (t) => {
  await t.step("openai with a ChatGPT login talks to chatgpt.com", () => {
    const check = checkProvider(
      "codex",
      facts({}, { "/home/u/.codex/auth.json": '{"tokens":{"id_token":"x"}}' }),
    );
    assert.equal(check.mark, "ok");
    assert.equal(check.endpoint?.host, "chatgpt.com");
  });
  await t.step("OPENAI_API_KEY and OPENAI_BASE_URL", () => {
    const check = checkProvider(
      "codex",
      facts({ OPENAI_API_KEY: "k", OPENAI_BASE_URL: "http://127.0.0.1:9/v1" }),
    );
    assert.equal(check.mark, "ok");
    assert.deepEqual(check.endpoint, { host: "127.0.0.1", port: 9, source: "OPENAI_BASE_URL" });
  });
  await t.step("nothing is a problem; invalid TOML is a problem", () => {
    assert.equal(checkProvider("codex", facts({})).mark, "fail");
    assert.equal(
      checkProvider("codex", facts({}, { "/home/u/.codex/config.toml": "= =" })).mark,
      "fail",
    );
  });
  await t.step("a provider without env_key needs no key; an unreadable env_key warns", () => {
    const toml = (extra: string) => ({
      "/c/config.toml": `model_provider = "local"\n[model_providers.local]\n` +
        `base_url = "http://localhost:11434/v1"\n${extra}`,
    });
    assert.equal(checkProvider("codex", facts({ CODEX_HOME: "/c" }, toml(""))).mark, "ok");
    const unreadable: ProviderFacts = {
      ...facts({ CODEX_HOME: "/c" }, toml('env_key = "LOCAL_KEY"')),
      env: (name) => {
        if (name === "LOCAL_KEY") throw new Deno.errors.NotCapable("no");
        return name === "CODEX_HOME" ? "/c" : undefined;
      },
    };
    assert.equal(checkProvider("codex", unreadable).mark, "warn");
  });
});

Deno.test("checkProvider() gemini", async (t) => {
  const settings = (type: string) => ({
    "/home/u/.gemini/settings.json": JSON.stringify({ security: { auth: { selectedType: type } } }),
  });
  await t.step("gemini-api-key needs GEMINI_API_KEY and uses GOOGLE_GEMINI_BASE_URL", () => {
    assert.equal(checkProvider("gemini", facts({}, settings("gemini-api-key"))).mark, "fail");
    const check = checkProvider(
      "gemini",
      facts(
        { GEMINI_API_KEY: "k", GOOGLE_GEMINI_BASE_URL: "http://127.0.0.1:7" },
        settings("gemini-api-key"),
      ),
    );
    assert.equal(check.mark, "ok");
    assert.equal(check.endpoint?.port, 7);
  });
  await t.step("oauth-personal needs oauth_creds.json", () => {
    const check = checkProvider("gemini", {
      ...facts({}, {
        ...settings("oauth-personal"),
        "/home/u/.gemini/oauth_creds.json": "{}",
      }),
    });
    assert.equal(check.mark, "ok");
    assert.equal(check.endpoint?.host, "cloudcode-pa.googleapis.com");
  });
  await t.step("a key but no auth type selected is a warning", () => {
    assert.equal(checkProvider("gemini", facts({ GEMINI_API_KEY: "k" })).mark, "warn");
  });
});

Deno.test("checkProvider() opencode", async (t) => {
  await t.step("nothing is a warning (its own free models) at opencode.ai", () => {
    const check = checkProvider("opencode", facts({}));
    assert.equal(check.mark, "warn");
    assert.equal(check.endpoint?.host, "opencode.ai");
  });
  await t.step("OPENCODE_CONFIG_CONTENT's model provider baseURL", () => {
    const content = JSON.stringify({
      model: "fake/m",
      provider: { fake: { options: { baseURL: "http://127.0.0.1:5/v1" } } },
    });
    const check = checkProvider("opencode", facts({ OPENCODE_CONFIG_CONTENT: content }));
    assert.equal(check.mark, "ok");
    assert.deepEqual(check.endpoint, {
      host: "127.0.0.1",
      port: 5,
      source: "provider.fake.options.baseURL",
    });
  });
  await t.step("a JSONC config file with comments", () => {
    const check = checkProvider(
      "opencode",
      facts({}, {
        "/home/u/.config/opencode/opencode.jsonc":
          '{\n  // mine\n  "model": "anthropic/claude", /* x */ "provider": {"anthropic": {},},\n}',
      }),
    );
    assert.equal(check.mark, "ok");
    assert.equal(check.endpoint?.host, "api.anthropic.com");
  });
  await t.step("a provider key from the environment", () => {
    const check = checkProvider("opencode", facts({ OPENAI_API_KEY: "k" }));
    assert.equal(check.mark, "ok");
    assert.equal(check.endpoint?.host, "api.openai.com");
  });
});
