import { DEFAULT_NOTIFY_ON } from "../notify/notify_command.ts";
import { type Config, configSchema, DEFAULT_CONFIG } from "./schema.ts";
import { ConfigError } from "./config_error.ts";

/**
 * Reads and validates `config.json` (D3). A missing file means defaults; an
 * invalid one is a `ConfigError` naming the file and the field.
 */
export function loadConfig(path: string): Config {
  let text: string;
  try {
    text = Deno.readTextFileSync(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return { ...DEFAULT_CONFIG };
    throw error;
  }
  return parseConfig(text, path);
}

/** Validates the text of a config file; `source` names it in errors. */
export function parseConfig(text: string, source: string): Config {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`Config "${source}" is not valid JSON: ${(error as Error).message}`);
  }
  const result = configSchema.safeParse(raw);
  if (!result.success) {
    const issue = result.error.issues[0];
    const path = issue.path.map(String);
    if (issue.code === "unrecognized_keys") path.push(issue.keys[0]);
    const field = path.join(".") || "(root)";
    const reason = issue.code === "unrecognized_keys" ? "is not a known key" : issue.message;
    throw new ConfigError(`Config "${source}": field "${field}" ${reason}`);
  }
  const parsed = result.data;
  return {
    projectRoots: parsed.projectRoots ?? DEFAULT_CONFIG.projectRoots,
    harnesses: parsed.harnesses ?? {},
    rawArtifacts: parsed.rawArtifacts ?? DEFAULT_CONFIG.rawArtifacts,
    maxLiveSessions: parsed.maxLiveSessions ?? DEFAULT_CONFIG.maxLiveSessions,
    maxStreams: parsed.maxStreams ?? DEFAULT_CONFIG.maxStreams,
    idleTimeoutMinutes: parsed.idleTimeoutMinutes ?? DEFAULT_CONFIG.idleTimeoutMinutes,
    turnTimeoutMinutes: parsed.turnTimeoutMinutes ?? DEFAULT_CONFIG.turnTimeoutMinutes,
    autoResume: parsed.autoResume ?? DEFAULT_CONFIG.autoResume,
    approvals: { ...DEFAULT_CONFIG.approvals, ...parsed.approvals },
    worktrees: { ...DEFAULT_CONFIG.worktrees, ...parsed.worktrees },
    ui: { ...DEFAULT_CONFIG.ui, ...parsed.ui },
    worktreeSetup: parsed.worktreeSetup ?? {},
    projects: parsed.projects ?? [],
    notifications: {
      channels: parsed.notifications?.channels ?? [],
      afterSeconds: parsed.notifications?.afterSeconds ?? DEFAULT_CONFIG.notifications.afterSeconds,
    },
    web: {
      origins: parsed.web?.origins ?? [],
      trustProxy: parsed.web?.trustProxy ?? false,
    },
    notify: parsed.notify
      ? { command: parsed.notify.command, on: parsed.notify.on ?? [...DEFAULT_NOTIFY_ON] }
      : null,
  };
}
