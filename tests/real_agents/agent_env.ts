/**
 * An isolated, offline environment for one real agent CLI: a fresh HOME
 * (and XDG dirs) under a caller-chosen directory, the config files that point
 * the CLI at the fake provider, and the environment variables it runs with.
 * The API keys are dummies: nothing secret ever reaches a fixture.
 */
import { join } from "node:path";
import { agentsPath, type Harness } from "./agent_bins.ts";
import type { ToolCall } from "./fake_provider.ts";

/** The dummy API key every CLI sends to the fake provider. */
export const FAKE_KEY = "fake-key";

/**
 * The model each CLI is told to use. gemini gets a fixed model because
 * `auto` adds a classifier call before each turn; opencode's names the
 * provider that `OPENCODE_CONFIG_CONTENT` defines.
 */
export const AGENT_MODELS: Readonly<Record<Harness, string>> = {
  claude: "claude-sonnet-4-5",
  codex: "gpt-5.5",
  gemini: "gemini-2.5-flash",
  opencode: "fake/fake-model",
};

/**
 * A tool call that makes each CLI run `touch created.txt` with its shell tool
 * (the names and arguments its requests offer), for scripting the fake provider.
 */
export const SHELL_TOOL_CALLS: Readonly<Record<Harness, ToolCall>> = {
  claude: {
    name: "Bash",
    arguments: { command: "touch created.txt", description: "Create created.txt" },
  },
  codex: { name: "exec_command", arguments: { cmd: "touch created.txt" } },
  gemini: {
    name: "run_shell_command",
    arguments: { command: "touch created.txt", description: "Create created.txt" },
  },
  opencode: {
    name: "bash",
    arguments: { command: "touch created.txt", description: "Create created.txt" },
  },
};

/** Options of `prepareAgentEnv`. */
export interface AgentEnvOptions {
  /** The fake provider's base URL, `http://127.0.0.1:PORT`. */
  providerUrl: string;
  /**
   * An existing directory to hold HOME and CODEX_HOME. Codex refuses a
   * CODEX_HOME under the system temp directory, so put it elsewhere.
   */
  dir: string;
}

/**
 * Writes the config files of `harness` under `dir` and returns the variables
 * the CLI needs. They suffice on their own: running the CLI with only them
 * (`clearEnv`, as the recorder does) keeps the user's own keys and config out.
 */
export async function prepareAgentEnv(
  harness: Harness,
  { providerUrl, dir }: AgentEnvOptions,
): Promise<Record<string, string>> {
  const home = join(dir, "home");
  await Deno.mkdir(home, { recursive: true });
  const env: Record<string, string> = {
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_DATA_HOME: join(home, ".local", "share"),
    XDG_STATE_HOME: join(home, ".local", "state"),
    XDG_CACHE_HOME: join(home, ".cache"),
    PATH: `${agentsPath()}:${Deno.env.get("PATH") ?? "/usr/bin:/bin"}`,
    NO_COLOR: "1",
  };
  switch (harness) {
    case "claude":
      return { ...env, ...claudeEnv(providerUrl) };
    case "codex":
      return { ...env, ...await codexEnv(providerUrl, dir) };
    case "gemini":
      return { ...env, ...await geminiEnv(providerUrl, home) };
    case "opencode":
      return { ...env, ...opencodeEnv(providerUrl) };
  }
}

function claudeEnv(providerUrl: string): Record<string, string> {
  return {
    ANTHROPIC_BASE_URL: providerUrl,
    ANTHROPIC_API_KEY: FAKE_KEY,
    ANTHROPIC_MODEL: AGENT_MODELS.claude,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_ERROR_REPORTING: "1",
  };
}

async function codexEnv(providerUrl: string, dir: string): Promise<Record<string, string>> {
  const codexHome = join(dir, "codex-home");
  await Deno.mkdir(codexHome, { recursive: true });
  await Deno.writeTextFile(
    join(codexHome, "config.toml"),
    [
      `model = "${AGENT_MODELS.codex}"`,
      `model_provider = "fake"`,
      `check_for_update_on_startup = false`,
      ``,
      `[model_providers.fake]`,
      `name = "fake"`,
      `base_url = "${providerUrl}/v1"`,
      `env_key = "FAKE_KEY"`,
      `wire_api = "responses"`,
      ``,
      `[features]`,
      `plugins = false`,
      ``,
      `[analytics]`,
      `enabled = false`,
      ``,
    ].join("\n"),
  );
  return { CODEX_HOME: codexHome, FAKE_KEY };
}

async function geminiEnv(providerUrl: string, home: string): Promise<Record<string, string>> {
  await Deno.mkdir(join(home, ".gemini"), { recursive: true });
  const settings = {
    // Without it gemini picks the gateway auth type and headless runs exit 41.
    security: { auth: { selectedType: "gemini-api-key" } },
    general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
  };
  await Deno.writeTextFile(join(home, ".gemini", "settings.json"), JSON.stringify(settings));
  return {
    GEMINI_API_KEY: FAKE_KEY,
    GOOGLE_GEMINI_BASE_URL: providerUrl,
    GEMINI_CLI_NO_RELAUNCH: "true",
  };
}

function opencodeEnv(providerUrl: string): Record<string, string> {
  const [provider, model] = AGENT_MODELS.opencode.split("/");
  const config = {
    provider: {
      [provider]: {
        npm: "@ai-sdk/openai-compatible",
        name: "Fake provider",
        options: { baseURL: `${providerUrl}/v1`, apiKey: FAKE_KEY },
        // A context limit makes opencode report `usage_update` (used/size) after each step.
        models: { [model]: { name: "Fake model", limit: { context: 200_000, output: 32_000 } } },
      },
    },
    model: AGENT_MODELS.opencode,
    small_model: AGENT_MODELS.opencode,
    autoupdate: false,
    share: "disabled",
    // opencode 1.18 runs bash without asking by default; "ask" makes it send
    // session/request_permission like the other three CLIs do.
    permission: { bash: "ask" },
  };
  return {
    OPENCODE_CONFIG_CONTENT: JSON.stringify(config),
    OPENCODE_DISABLE_MODELS_FETCH: "1",
    OPENCODE_DISABLE_AUTOUPDATE: "1",
    OPENCODE_DISABLE_DEFAULT_PLUGINS: "1",
    OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
    OPENCODE_DISABLE_SHARE: "1",
  };
}
