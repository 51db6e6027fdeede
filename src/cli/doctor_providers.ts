/**
 * What `svc doctor` looks at to tell whether a built-in agent CLI has its
 * credentials or provider settings, and which host it would talk to (issue
 * 27 item 13). Pure over `ProviderFacts` (environment and files), so each
 * CLI's rules are tested without touching the machine. Only names are ever
 * reported: never a value, and of a base URL only its host and port.
 * docs/cli.md lists exactly what each CLI's check reads.
 */
import { join } from "node:path";
import { parse as parseToml } from "smol-toml";

/**
 * Every variable the provider checks read, by name only (never a value): the
 * compiled binaries allow exactly these (scripts/compile.ts), and the tests
 * blank them so a machine's own credentials do not count.
 */
export const PROVIDER_ENV_VARS: readonly string[] = [
  "XDG_DATA_HOME",
  "ANTHROPIC_API_KEY",
  "ANTHROPIC_AUTH_TOKEN",
  "CLAUDE_CODE_OAUTH_TOKEN",
  "CLAUDE_CONFIG_DIR",
  "ANTHROPIC_BASE_URL",
  "CLAUDE_CODE_USE_BEDROCK",
  "CLAUDE_CODE_USE_VERTEX",
  "OPENAI_API_KEY",
  "OPENAI_BASE_URL",
  "GEMINI_API_KEY",
  "GOOGLE_API_KEY",
  "GOOGLE_APPLICATION_CREDENTIALS",
  "GOOGLE_GEMINI_BASE_URL",
  "OPENCODE_CONFIG_CONTENT",
  "OPENCODE_CONFIG",
  "OPENROUTER_API_KEY",
  "GOOGLE_GENERATIVE_AI_API_KEY",
];

/** The built-in CLIs whose settings svc knows. */
export type KnownCli = "claude" | "codex" | "gemini" | "opencode";

/** ✓, ! or ✗. */
export type Mark = "ok" | "warn" | "fail";

/** The environment and files a provider check reads. */
export interface ProviderFacts {
  /** A variable's value; may throw when the runtime may not read that name (a compiled svc). */
  env(name: string): string | undefined;
  /** A file's text, or null when it is missing or unreadable. */
  readText(path: string): string | null;
  /** The user's home directory. */
  readonly userHome: string;
  /** `Deno.build.os`. */
  readonly os: string;
}

/** Where the CLI would connect, and which setting says so. */
export interface ProviderEndpoint {
  host: string;
  port: number;
  /** The setting's name (`ANTHROPIC_BASE_URL`, `config.toml model_providers.x.base_url`), or `default`. */
  source: string;
}

/** The credentials verdict of one CLI and its provider endpoint. */
export interface ProviderCheck {
  mark: Mark;
  /** What was found or missing, by name. */
  text: string;
  hint: string | null;
  /** Names of the variables and files that counted (presence only). */
  found: string[];
  /** Null when the host is not known (a cloud provider's SDK decides it). */
  endpoint: ProviderEndpoint | null;
}

/** The CLI whose settings a program name means (a configured harness running `claude` counts too). */
export function knownCli(program: string): KnownCli | null {
  const base = program.split(/[\\/]/).pop()?.toLowerCase().replace(/\.(exe|cmd|bat)$/, "") ?? "";
  return base === "claude" || base === "codex" || base === "gemini" || base === "opencode"
    ? base
    : null;
}

/** The credentials and endpoint check of `cli`. */
export function checkProvider(cli: KnownCli, facts: ProviderFacts): ProviderCheck {
  switch (cli) {
    case "claude":
      return checkClaude(facts);
    case "codex":
      return checkCodex(facts);
    case "gemini":
      return checkGemini(facts);
    case "opencode":
      return checkOpencode(facts);
  }
}

/** Host and port of a URL (its user info and path never leave), or null when it is not one. */
export function endpointOf(url: string, source: string): ProviderEndpoint | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return null;
  const port = parsed.port !== "" ? Number(parsed.port) : parsed.protocol === "https:" ? 443 : 80;
  return { host: parsed.hostname.replace(/^\[(.*)\]$/, "$1"), port, source };
}

function vendor(host: string): ProviderEndpoint {
  return { host, port: 443, source: "default" };
}

/** A variable's value when set and not empty; `unreadable` when the runtime may not read it. */
function env(facts: ProviderFacts, name: string): string | "unreadable" | null {
  try {
    const value = facts.env(name);
    return value === undefined || value === "" ? null : value;
  } catch {
    return "unreadable";
  }
}

/** The base URL variable's endpoint, or null when unset or not a URL. */
function urlVariable(facts: ProviderFacts, name: string): ProviderEndpoint | null {
  const value = env(facts, name);
  return value === null || value === "unreadable" ? null : endpointOf(value, name);
}

function fileExists(facts: ProviderFacts, path: string): boolean {
  return facts.readText(path) !== null;
}

function jsonFile(facts: ProviderFacts, path: string): Record<string, unknown> | null {
  const text = facts.readText(path);
  if (text === null) return null;
  try {
    const value = JSON.parse(text);
    return typeof value === "object" && value !== null ? value as Record<string, unknown> : null;
  } catch {
    return null;
  }
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? value as Record<string, unknown>
    : {};
}

function listed(found: string[]): string {
  return found.join(", ");
}

/**
 * Claude Code: `ANTHROPIC_API_KEY`, `ANTHROPIC_AUTH_TOKEN`,
 * `CLAUDE_CODE_OAUTH_TOKEN`, or the login file `.credentials.json` in
 * `$CLAUDE_CONFIG_DIR` (else `~/.claude`); `CLAUDE_CODE_USE_BEDROCK` /
 * `CLAUDE_CODE_USE_VERTEX` hand the credentials to the cloud's SDK. Host:
 * `ANTHROPIC_BASE_URL`, else api.anthropic.com.
 */
function checkClaude(facts: ProviderFacts): ProviderCheck {
  const clouds = [
    {
      name: "CLAUDE_CODE_USE_BEDROCK",
      cloud: "Amazon Bedrock",
      value: env(facts, "CLAUDE_CODE_USE_BEDROCK"),
    },
    {
      name: "CLAUDE_CODE_USE_VERTEX",
      cloud: "Google Vertex AI",
      value: env(facts, "CLAUDE_CODE_USE_VERTEX"),
    },
  ];
  for (const { name, cloud, value } of clouds) {
    if (value !== null && value !== "unreadable" && value !== "0") {
      return {
        mark: "ok",
        text: `uses ${cloud} (${name}); its credentials are the cloud SDK's and not checked`,
        hint: null,
        found: [name],
        endpoint: null,
      };
    }
  }
  const found: string[] = [];
  if (env(facts, "ANTHROPIC_API_KEY") !== null) found.push("ANTHROPIC_API_KEY");
  if (env(facts, "ANTHROPIC_AUTH_TOKEN") !== null) found.push("ANTHROPIC_AUTH_TOKEN");
  if (env(facts, "CLAUDE_CODE_OAUTH_TOKEN") !== null) found.push("CLAUDE_CODE_OAUTH_TOKEN");
  const configDir = env(facts, "CLAUDE_CONFIG_DIR");
  const dir = configDir !== null && configDir !== "unreadable"
    ? configDir
    : join(facts.userHome, ".claude");
  const login = join(dir, ".credentials.json");
  if (fileExists(facts, login)) found.push(login);
  const endpoint = urlVariable(facts, "ANTHROPIC_BASE_URL") ?? vendor("api.anthropic.com");
  if (found.length > 0) {
    return { mark: "ok", text: `present: ${listed(found)}`, hint: null, found, endpoint };
  }
  // On macOS `claude /login` keeps its token in the Keychain, which svc does not read.
  const keychain = facts.os === "darwin";
  return {
    mark: keychain ? "warn" : "fail",
    text: keychain
      ? "no ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN or CLAUDE_CODE_OAUTH_TOKEN (a login may " +
        "be in the macOS Keychain, which svc does not read)"
      : `no ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN, CLAUDE_CODE_OAUTH_TOKEN or ${login}`,
    hint: 'run "claude" and /login, or set ANTHROPIC_API_KEY where svc runs',
    found,
    endpoint,
  };
}

/**
 * Codex: `$CODEX_HOME/config.toml` (else `~/.codex`) names the provider
 * (`model_provider`, default `openai`). A provider of `model_providers`
 * needs the variable its `env_key` names (none when it has no `env_key`)
 * and talks to its `base_url`; `openai` needs `OPENAI_API_KEY` or the login
 * file `auth.json` and talks to `OPENAI_BASE_URL`, else chatgpt.com for a
 * ChatGPT login, api.openai.com otherwise.
 */
function checkCodex(facts: ProviderFacts): ProviderCheck {
  const codexHomeVar = env(facts, "CODEX_HOME");
  const codexHome = codexHomeVar !== null && codexHomeVar !== "unreadable"
    ? codexHomeVar
    : join(facts.userHome, ".codex");
  const configPath = join(codexHome, "config.toml");
  const configText = facts.readText(configPath);
  let config: Record<string, unknown> = {};
  if (configText !== null) {
    try {
      config = parseToml(configText) as Record<string, unknown>;
    } catch {
      return {
        mark: "fail",
        text: `${configPath} is not valid TOML`,
        hint: "fix the file (codex will not start with it)",
        found: [],
        endpoint: null,
      };
    }
  }
  const providerId = typeof config.model_provider === "string" ? config.model_provider : "openai";
  const provider = record(record(config.model_providers)[providerId]);
  if (providerId !== "openai" || Object.keys(provider).length > 0) {
    return codexConfiguredProvider(facts, providerId, provider, configPath);
  }
  const found: string[] = [];
  if (env(facts, "OPENAI_API_KEY") !== null) found.push("OPENAI_API_KEY");
  const authPath = join(codexHome, "auth.json");
  const auth = jsonFile(facts, authPath);
  if (auth !== null) found.push(authPath);
  // A ChatGPT login (tokens, no API key) talks to chatgpt.com.
  const chatgpt = auth !== null && Object.keys(record(auth.tokens)).length > 0 &&
    !found.includes("OPENAI_API_KEY");
  const endpoint = urlVariable(facts, "OPENAI_BASE_URL") ??
    vendor(chatgpt ? "chatgpt.com" : "api.openai.com");
  if (found.length > 0) {
    return { mark: "ok", text: `present: ${listed(found)}`, hint: null, found, endpoint };
  }
  return {
    mark: "fail",
    text: `no OPENAI_API_KEY and no ${authPath}`,
    hint: 'run "codex login", or set a provider in config.toml',
    found,
    endpoint,
  };
}

function codexConfiguredProvider(
  facts: ProviderFacts,
  providerId: string,
  provider: Record<string, unknown>,
  configPath: string,
): ProviderCheck {
  const source = `config.toml model_providers.${providerId}`;
  if (Object.keys(provider).length === 0) {
    return {
      mark: "warn",
      text: `model_provider "${providerId}" is not in ${configPath}: a provider codex ` +
        "knows itself, not checked",
      hint: null,
      found: [configPath],
      endpoint: null,
    };
  }
  const endpoint = typeof provider.base_url === "string"
    ? endpointOf(provider.base_url, `${source}.base_url`)
    : null;
  const envKey = typeof provider.env_key === "string" ? provider.env_key : null;
  if (envKey === null) {
    return {
      mark: "ok",
      text: `provider "${providerId}" in ${configPath} (it names no env_key)`,
      hint: null,
      found: [configPath],
      endpoint,
    };
  }
  const value = env(facts, envKey);
  if (value === "unreadable") {
    return {
      mark: "warn",
      text: `provider "${providerId}" needs ${envKey}, which this svc may not read`,
      hint: "run svc doctor from source (deno task svc doctor) to check it",
      found: [configPath],
      endpoint,
    };
  }
  return value !== null
    ? {
      mark: "ok",
      text: `provider "${providerId}" in ${configPath}, ${envKey} is set`,
      hint: null,
      found: [configPath, envKey],
      endpoint,
    }
    : {
      mark: "fail",
      text: `provider "${providerId}" needs ${envKey}, which is not set`,
      hint: `set ${envKey} where svc runs`,
      found: [configPath],
      endpoint,
    };
}

/**
 * Gemini CLI: `~/.gemini/settings.json` `security.auth.selectedType` (or the
 * older `selectedAuthType`) picks the method; `gemini-api-key` needs
 * `GEMINI_API_KEY`, `oauth-personal` the login file
 * `~/.gemini/oauth_creds.json`, `vertex-ai` `GOOGLE_API_KEY` or
 * `GOOGLE_APPLICATION_CREDENTIALS`. With none selected, any of them counts
 * with a warning (headless gemini may refuse to pick). Host:
 * `GOOGLE_GEMINI_BASE_URL` (API key), else the method's Google host.
 */
function checkGemini(facts: ProviderFacts): ProviderCheck {
  const dir = join(facts.userHome, ".gemini");
  const settingsPath = join(dir, "settings.json");
  const settings = jsonFile(facts, settingsPath) ?? {};
  const selected = record(record(settings.security).auth).selectedType ?? settings.selectedAuthType;
  const method = typeof selected === "string" ? selected : null;
  const oauthPath = join(dir, "oauth_creds.json");
  const has = {
    GEMINI_API_KEY: env(facts, "GEMINI_API_KEY") !== null,
    GOOGLE_API_KEY: env(facts, "GOOGLE_API_KEY") !== null,
    GOOGLE_APPLICATION_CREDENTIALS: env(facts, "GOOGLE_APPLICATION_CREDENTIALS") !== null,
    oauth: fileExists(facts, oauthPath),
  };
  const apiKeyEndpoint = urlVariable(facts, "GOOGLE_GEMINI_BASE_URL") ??
    vendor("generativelanguage.googleapis.com");
  const needs = (found: boolean, name: string, endpoint: ProviderEndpoint, hint: string) =>
    found
      ? {
        mark: "ok" as const,
        text: `settings.json selects ${method}; ${name} present`,
        hint: null,
        found: [settingsPath, name],
        endpoint,
      }
      : {
        mark: "fail" as const,
        text: `settings.json selects ${method}, but ${name} is missing`,
        hint,
        found: [settingsPath],
        endpoint,
      };
  if (method === "gemini-api-key") {
    return needs(has.GEMINI_API_KEY, "GEMINI_API_KEY", apiKeyEndpoint, "set GEMINI_API_KEY");
  }
  if (method === "oauth-personal") {
    return needs(
      has.oauth,
      oauthPath,
      vendor("cloudcode-pa.googleapis.com"),
      'run "gemini" and sign in with Google',
    );
  }
  if (method === "vertex-ai") {
    return needs(
      has.GOOGLE_API_KEY || has.GOOGLE_APPLICATION_CREDENTIALS,
      has.GOOGLE_API_KEY ? "GOOGLE_API_KEY" : "GOOGLE_APPLICATION_CREDENTIALS",
      vendor("aiplatform.googleapis.com"),
      "set GOOGLE_API_KEY or GOOGLE_APPLICATION_CREDENTIALS",
    );
  }
  const found = [
    ...(["GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_APPLICATION_CREDENTIALS"] as const).filter(
      (name) => has[name],
    ),
    ...(has.oauth ? [oauthPath] : []),
  ];
  const endpoint = has.GEMINI_API_KEY
    ? apiKeyEndpoint
    : has.oauth
    ? vendor("cloudcode-pa.googleapis.com")
    : has.GOOGLE_API_KEY || has.GOOGLE_APPLICATION_CREDENTIALS
    ? vendor("aiplatform.googleapis.com")
    : apiKeyEndpoint;
  const selectHint = `set security.auth.selectedType in ${settingsPath} ` +
    '(e.g. "gemini-api-key")';
  if (found.length > 0) {
    return {
      mark: "warn",
      text: `present: ${listed(found)}, but ${
        method === null ? "no auth type is selected" : `auth type "${method}" is unknown`
      }`,
      hint: selectHint,
      found,
      endpoint,
    };
  }
  return {
    mark: "fail",
    text: `no GEMINI_API_KEY, GOOGLE_API_KEY, GOOGLE_APPLICATION_CREDENTIALS or ${oauthPath}`,
    hint: `set GEMINI_API_KEY and ${selectHint}, or run "gemini" and sign in`,
    found,
    endpoint,
  };
}

/** The hosts of the providers opencode knows by name, for a `model` without a `baseURL`. */
const OPENCODE_PROVIDER_HOSTS: Readonly<Record<string, string>> = {
  anthropic: "api.anthropic.com",
  openai: "api.openai.com",
  google: "generativelanguage.googleapis.com",
  openrouter: "openrouter.ai",
  opencode: "opencode.ai",
};

/**
 * opencode: its config from `OPENCODE_CONFIG_CONTENT`, else the file
 * `OPENCODE_CONFIG` names, else `$XDG_CONFIG_HOME/opencode/opencode.json`
 * (`opencode.jsonc`, `config.json`; default `~/.config`): a `provider`
 * entry counts; so do the login file `$XDG_DATA_HOME/opencode/auth.json`
 * (default `~/.local/share`) and `ANTHROPIC_API_KEY`, `OPENAI_API_KEY`,
 * `OPENROUTER_API_KEY`, `GOOGLE_GENERATIVE_AI_API_KEY`. With none it still
 * runs on opencode's own free models: a warning, not a failure. Host: the
 * `baseURL` of the `model`'s provider (else of the first provider that has
 * one), else the model's provider's known host, else that of the first key
 * found (in the order above), else opencode.ai.
 */
function checkOpencode(facts: ProviderFacts): ProviderCheck {
  const configHome = env(facts, "XDG_CONFIG_HOME");
  const dataHome = env(facts, "XDG_DATA_HOME");
  const configDir = join(
    configHome !== null && configHome !== "unreadable"
      ? configHome
      : join(facts.userHome, ".config"),
    "opencode",
  );
  const authPath = join(
    dataHome !== null && dataHome !== "unreadable"
      ? dataHome
      : join(facts.userHome, ".local", "share"),
    "opencode",
    "auth.json",
  );
  const found: string[] = [];
  const configs: Record<string, unknown>[] = [];
  const content = env(facts, "OPENCODE_CONFIG_CONTENT");
  if (content !== null && content !== "unreadable") {
    found.push("OPENCODE_CONFIG_CONTENT");
    configs.push(parseJsonc(content));
  }
  const configVar = env(facts, "OPENCODE_CONFIG");
  const files = [
    ...(configVar !== null && configVar !== "unreadable" ? [configVar] : []),
    ...["opencode.json", "opencode.jsonc", "config.json"].map((name) => join(configDir, name)),
  ];
  for (const file of files) {
    const text = facts.readText(file);
    if (text === null) continue;
    found.push(file);
    configs.push(parseJsonc(text));
  }
  const providers = Object.assign(
    {},
    ...configs.map((config) => record(config.provider)).reverse(),
  ) as Record<string, unknown>;
  const model = configs.map((config) => config.model).find((value) => typeof value === "string");
  const modelProvider = typeof model === "string" ? model.split("/")[0] : null;
  const hasProvider = Object.keys(providers).length > 0;
  if (fileExists(facts, authPath)) found.push(authPath);
  for (
    const [name, value] of [
      ["ANTHROPIC_API_KEY", env(facts, "ANTHROPIC_API_KEY")],
      ["OPENAI_API_KEY", env(facts, "OPENAI_API_KEY")],
      ["OPENROUTER_API_KEY", env(facts, "OPENROUTER_API_KEY")],
      ["GOOGLE_GENERATIVE_AI_API_KEY", env(facts, "GOOGLE_GENERATIVE_AI_API_KEY")],
    ] as const
  ) {
    if (value !== null && value !== "unreadable") found.push(name);
  }
  // Without a model, opencode picks a provider it has a key for.
  const keyProvider = found.includes("ANTHROPIC_API_KEY")
    ? "anthropic"
    : found.includes("OPENAI_API_KEY")
    ? "openai"
    : found.includes("OPENROUTER_API_KEY")
    ? "openrouter"
    : found.includes("GOOGLE_GENERATIVE_AI_API_KEY")
    ? "google"
    : null;
  const endpoint = opencodeEndpoint(providers, modelProvider, keyProvider);
  const usable = hasProvider || found.some((name) => name === authPath || /_KEY$/.test(name));
  if (usable) {
    return {
      mark: "ok",
      text: `present: ${listed(found)}`,
      hint: null,
      found,
      endpoint,
    };
  }
  return {
    mark: "warn",
    text: "no provider configured and no login: opencode falls back to its own free models",
    hint: 'run "opencode auth login", or add a provider to its config',
    found,
    endpoint,
  };
}

function opencodeEndpoint(
  providers: Record<string, unknown>,
  modelProvider: string | null,
  keyProvider: string | null,
): ProviderEndpoint {
  const baseUrl = (id: string) => {
    const value = record(record(providers[id]).options).baseURL;
    return typeof value === "string" ? endpointOf(value, `provider.${id}.options.baseURL`) : null;
  };
  if (modelProvider !== null) {
    const configured = baseUrl(modelProvider);
    if (configured !== null) return configured;
    const known = OPENCODE_PROVIDER_HOSTS[modelProvider];
    if (known !== undefined) return vendor(known);
  }
  for (const id of Object.keys(providers)) {
    const configured = baseUrl(id);
    if (configured !== null) return configured;
  }
  return vendor(OPENCODE_PROVIDER_HOSTS[keyProvider ?? "opencode"]);
}

/** JSON with `//` and `/* *\/` comments and trailing commas (opencode.jsonc); `{}` when unreadable. */
function parseJsonc(text: string): Record<string, unknown> {
  let out = "";
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (char === '"') {
      const end = stringEnd(text, index);
      out += text.slice(index, end);
      index = end - 1;
    } else if (char === "/" && text[index + 1] === "/") {
      while (index < text.length && text[index] !== "\n") index++;
      out += "\n";
    } else if (char === "/" && text[index + 1] === "*") {
      const end = text.indexOf("*/", index + 2);
      index = end === -1 ? text.length : end + 1;
    } else out += char;
  }
  try {
    return record(JSON.parse(out.replace(/,(\s*[}\]])/g, "$1")));
  } catch {
    return {};
  }
}

/** The index after the JSON string that starts at `start`. */
function stringEnd(text: string, start: number): number {
  for (let index = start + 1; index < text.length; index++) {
    if (text[index] === "\\") index++;
    else if (text[index] === '"') return index + 1;
  }
  return text.length;
}
