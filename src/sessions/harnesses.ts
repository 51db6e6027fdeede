/**
 * The harness adapter registry (D3): which programs svc can launch, and the
 * argv each launch gets. Pure data and pure functions; probing the programs
 * lives in `harness_probe.ts`. See docs/harnesses.md for the sources behind
 * each built-in's flags.
 */

import type { AgentProtocolId, ProtocolId } from "../agents/protocol.ts";

/** How a harness receives its prompt: as an argument, on stdin, or not at all (D3). */
export type PromptMode = "arg" | "stdin" | "none";

/** How svc launches one harness. */
export interface HarnessSpec {
  id: string;
  label: string;
  builtin: boolean;
  /** `raw` (a byte pipe, D7) or the agent protocol it speaks on stdio (D16). */
  protocol: ProtocolId;
  /** argv template; `{prompt}` and `{model}` are placeholders only as whole elements (D3). */
  command: string[];
  prompt: PromptMode;
  /** Arguments of the version probe for built-ins, e.g. `["--version"]`; null for configured ones. */
  versionArgs: string[] | null;
  /** Environment added to the version probe (gemini relaunches itself without one). */
  probeEnv: Readonly<Record<string, string>>;
}

/** One entry of config.json `harnesses` (D3, D16). */
export interface ConfiguredHarness {
  command: string[];
  /** Required for `raw` harnesses; a protocol harness gets its prompt as the first turn. */
  prompt?: PromptMode;
  label?: string;
  protocol?: ProtocolId;
}

/** The argv of one launch and the text to write on the child's stdin first, if any. */
export interface LaunchArgv {
  argv: string[];
  stdinPrompt: string | null;
}

/** Valid harness ids (D3). */
export const HARNESS_ID_PATTERN = /^[a-z0-9][a-z0-9._-]{0,63}$/;

const PROMPT = "{prompt}";
const MODEL = "{model}";

function builtin(
  id: string,
  label: string,
  protocol: AgentProtocolId,
  command: string[],
  probeEnv: Record<string, string> = {},
): HarnessSpec {
  return Object.freeze({
    id,
    label,
    builtin: true,
    protocol,
    command: Object.freeze(command) as string[],
    prompt: "none",
    versionArgs: Object.freeze(["--version"]) as string[],
    probeEnv: Object.freeze(probeEnv),
  });
}

/**
 * The built-in adapters, each in the mode its vendor provides for programs
 * that supervise it (D16): the prompt is the first turn, not an argument.
 * codex takes its model in `thread/start`, opencode as the ACP session's model
 * config option (`session/set_config_option`).
 */
export const BUILTIN_HARNESSES: readonly HarnessSpec[] = Object.freeze([
  builtin("claude", "Claude Code", "claude", [
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
    // D28: the user's own `defaultMode` (acceptEdits, bypassPermissions) never skips svc.
    "--permission-mode",
    "default",
    "--model",
    MODEL,
  ]),
  builtin("codex", "Codex CLI", "codex-app-server", ["codex", "app-server"]),
  // D28: `default` asks for every edit and shell command whatever the user's settings say.
  builtin("gemini", "Gemini CLI", "acp", [
    "gemini",
    "--acp",
    "--approval-mode",
    "default",
    "--model",
    MODEL,
  ], {
    GEMINI_CLI_NO_RELAUNCH: "true",
  }),
  builtin("opencode", "opencode", "acp", ["opencode", "acp"]),
]);

/**
 * What opencode asks about when svc routes its permissions (D28): its
 * defaults allow edits, shell commands and fetches without a request, so a
 * session in `ask` (or an unattended `deny`) would never hear of them.
 * Reads, searches and listings stay as opencode has them (allowed, as the
 * other built-ins do). `OPENCODE_PERMISSION` is merged over every config
 * opencode reads, the user's `OPENCODE_CONFIG_CONTENT` included.
 */
export const OPENCODE_ASK_PERMISSIONS: Readonly<Record<string, string>> = Object.freeze({
  edit: "ask",
  bash: "ask",
  webfetch: "ask",
  websearch: "ask",
  external_directory: "ask",
  doom_loop: "ask",
});

/**
 * Environment a built-in protocol session gets at launch so that every tool
 * call it would run without asking reaches svc's broker (D28). Also under
 * policy `allow`: the broker then allows at once, but a standing deny rule
 * still applies. Raw sessions (`approvals` null) and configured harnesses get none.
 */
export function launchEnv(spec: HarnessSpec, approvals: string | null): Record<string, string> {
  if (!spec.builtin || approvals === null) return {};
  if (spec.id === "opencode") {
    return { OPENCODE_PERMISSION: JSON.stringify(OPENCODE_ASK_PERMISSIONS) };
  }
  return {};
}

/** The built-ins plus the configured harnesses; a configured id replaces a built-in one (D3). */
export function buildRegistry(
  configured: Record<string, ConfiguredHarness>,
): Map<string, HarnessSpec> {
  const registry = new Map<string, HarnessSpec>(BUILTIN_HARNESSES.map((spec) => [spec.id, spec]));
  for (const [id, entry] of Object.entries(configured)) {
    if (!HARNESS_ID_PATTERN.test(id)) throw new TypeError(`Invalid harness id "${id}"`);
    if (entry.command.length === 0) throw new TypeError(`Harness "${id}" has an empty command`);
    const protocol = entry.protocol ?? "raw";
    registry.set(id, {
      id,
      label: entry.label ?? id,
      builtin: false,
      protocol,
      command: [...entry.command],
      prompt: protocol === "raw" ? entry.prompt ?? "arg" : "none",
      versionArgs: null,
      probeEnv: {},
    });
  }
  return registry;
}

/**
 * Fills `spec.command` for one launch (D3, D7). Placeholders count only as
 * whole elements. Without a model (null, undefined or ""), each `{model}`
 * element is dropped, and so is the element right before it when that starts
 * with "-". `{prompt}` is substituted in "arg" mode and dropped otherwise; in
 * "stdin" mode the prompt is returned as `stdinPrompt`, ending with a newline.
 *
 * Built-ins only: a value starting with "-" that follows a flag element is
 * passed as one `flag=value` element, the only form in which their parsers
 * (yargs in particular) take such a value instead of reading it as a flag.
 * Configured harnesses get D3's plain substitution.
 */
export function buildArgv(
  spec: HarnessSpec,
  { prompt, model }: { prompt: string; model?: string | null },
): LaunchArgv {
  const modelValue = model ?? "";
  const hasModel = modelValue !== "";
  const kept = spec.command.map((element) =>
    element === MODEL ? hasModel : element !== PROMPT || spec.prompt === "arg"
  );
  if (!hasModel) {
    for (const [index, element] of spec.command.entries()) {
      if (element === MODEL && index > 0 && isFlag(spec.command[index - 1])) {
        kept[index - 1] = false;
      }
    }
  }

  const argv: string[] = [];
  for (const [index, element] of spec.command.entries()) {
    if (!kept[index]) continue;
    const value = element === PROMPT ? prompt : element === MODEL ? modelValue : null;
    const flag = index > 0 && kept[index - 1] ? spec.command[index - 1] : "";
    if (value === null) argv.push(element);
    else if (spec.builtin && value.startsWith("-") && isFlag(flag) && flag !== "--") {
      argv[argv.length - 1] = `${flag}=${value}`;
    } else argv.push(value);
  }

  const stdinPrompt = spec.prompt === "stdin"
    ? (prompt.endsWith("\n") ? prompt : `${prompt}\n`)
    : null;
  return { argv, stdinPrompt };
}

function isFlag(element: string): boolean {
  return element.startsWith("-");
}

/** A UUID as the agents print it: lowercase hex, 8-4-4-4-12. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The session id format each built-in agent reports (docs/harnesses.md, as
 * measured): Claude Code's `session_id`, Codex's thread id (a UUIDv7) and
 * Gemini CLI's ACP `sessionId` are UUIDs; opencode's is `ses_`, 12 hex digits
 * of time and 14 base-62 characters.
 */
const AGENT_SESSION_IDS: Readonly<Record<string, RegExp>> = Object.freeze({
  claude: UUID,
  codex: UUID,
  gemini: UUID,
  opencode: /^ses_[0-9a-f]{12}[0-9A-Za-z]{14}$/,
});

/** A configured agent's id: a plain token that no parser can take for a flag. */
const CONFIGURED_AGENT_SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

/**
 * Whether `id`, as an agent reported it, is in the format of `spec`'s agent
 * (issue 33 item 10): a resume hands it back to the agent, so anything else
 * (a flag, a second argument) is never passed on.
 */
export function validAgentSessionId(spec: HarnessSpec, id: string): boolean {
  const pattern = (spec.builtin ? AGENT_SESSION_IDS[spec.id] : undefined) ??
    CONFIGURED_AGENT_SESSION_ID;
  return pattern.test(id);
}

/**
 * Arguments that make a protocol harness continue a recorded conversation
 * (D26): claude takes `--resume=<session_id>`, one element, so the id can
 * never be read as a flag of its own; codex and ACP agents resume through
 * their protocol (`thread/resume`, `session/load`) and need none.
 */
export function resumeArgs(spec: HarnessSpec, agentSessionId: string): string[] {
  return spec.protocol === "claude" ? [`--resume=${agentSessionId}`] : [];
}
