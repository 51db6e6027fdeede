/**
 * The harness adapter registry (D3): which programs svc can launch, and the
 * argv each launch gets. Pure data and pure functions; probing the programs
 * lives in `harness_probe.ts`. See docs/harnesses.md for the sources behind
 * each built-in's flags.
 */

/** How a harness receives its prompt: as an argument, on stdin, or not at all (D3). */
export type PromptMode = "arg" | "stdin" | "none";

/** How svc launches one harness. */
export interface HarnessSpec {
  id: string;
  label: string;
  builtin: boolean;
  /** argv template; `{prompt}` and `{model}` are placeholders only as whole elements (D3). */
  command: string[];
  prompt: PromptMode;
  /** Arguments of the version probe for built-ins, e.g. `["--version"]`; null for configured ones. */
  versionArgs: string[] | null;
  /**
   * Whether stdin stays open for `input` after launch. Built-ins read a piped
   * stdin to its end before working (codex waits forever), so theirs is
   * closed; configured harnesses keep it open (D3, D7).
   */
  keepStdinOpen: boolean;
}

/** One entry of config.json `harnesses` (D3). */
export interface ConfiguredHarness {
  command: string[];
  prompt: PromptMode;
  label?: string;
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

function builtin(id: string, label: string, command: string[]): HarnessSpec {
  return Object.freeze({
    id,
    label,
    builtin: true,
    command: Object.freeze(command) as string[],
    prompt: "arg",
    versionArgs: Object.freeze(["--version"]) as string[],
    keepStdinOpen: false,
  });
}

/**
 * The built-in adapters. claude, codex and opencode take the prompt as a
 * positional after `--`, so a prompt starting with "-" is never read as a flag;
 * gemini takes it as the value of `--prompt` (see `buildArgv`).
 */
export const BUILTIN_HARNESSES: readonly HarnessSpec[] = Object.freeze([
  builtin("claude", "Claude Code", [
    "claude",
    "-p",
    "--output-format",
    "stream-json",
    "--verbose",
    "--model",
    MODEL,
    "--",
    PROMPT,
  ]),
  builtin("codex", "Codex CLI", ["codex", "exec", "--json", "--model", MODEL, "--", PROMPT]),
  builtin("gemini", "Gemini CLI", [
    "gemini",
    "--output-format",
    "stream-json",
    "--model",
    MODEL,
    "--prompt",
    PROMPT,
  ]),
  builtin("opencode", "opencode", [
    "opencode",
    "run",
    "--format",
    "json",
    "--model",
    MODEL,
    "--",
    PROMPT,
  ]),
]);

/** The built-ins plus the configured harnesses; a configured id replaces a built-in one (D3). */
export function buildRegistry(
  configured: Record<string, ConfiguredHarness>,
): Map<string, HarnessSpec> {
  const registry = new Map<string, HarnessSpec>(BUILTIN_HARNESSES.map((spec) => [spec.id, spec]));
  for (const [id, entry] of Object.entries(configured)) {
    if (!HARNESS_ID_PATTERN.test(id)) throw new TypeError(`Invalid harness id "${id}"`);
    if (entry.command.length === 0) throw new TypeError(`Harness "${id}" has an empty command`);
    registry.set(id, {
      id,
      label: entry.label ?? id,
      builtin: false,
      command: [...entry.command],
      prompt: entry.prompt,
      versionArgs: null,
      keepStdinOpen: true,
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
