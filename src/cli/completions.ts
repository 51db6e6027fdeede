import { type Command, EXIT, type Io, UsageError } from "./command.ts";
import { parseCommandArgs } from "./args.ts";
import { withClient } from "./connect.ts";
import {
  type IdKind,
  routineIdsWithPrefix,
  runIdsWithPrefix,
  sessionIdsWithPrefix,
} from "./id_prefix.ts";

/**
 * Where a command takes a live id (issue 27 item 9), for the scripts to
 * complete it from the daemon: `"command"` for its first argument,
 * `"command subcommand"` for the argument after a subcommand. A new command
 * that takes an id adds itself here.
 */
export const ID_ARGUMENTS: Readonly<Record<string, IdKind>> = {
  "events": "session",
  "attach": "session",
  "chat": "session",
  "approve": "session",
  "sessions show": "session",
  "sessions input": "session",
  "sessions interrupt": "session",
  "sessions close": "session",
  "sessions kill": "session",
  "sessions resume": "session",
  "worktrees diff": "session",
  "worktrees land": "session",
  "worktrees discard": "session",
  "automations get": "routine",
  "automations pause": "routine",
  "automations activate": "routine",
  "automations delete": "routine",
  "automations run": "routine",
  "automations runs": "routine",
  "automations health": "routine",
  "inbox show": "run",
  "inbox read": "run",
};

/** The id kinds `svc completions ids KIND` lists. */
const COMPLETED_KINDS = ["session", "routine", "run"] as const;
/** Ids listed for one completion. */
const MAX_COMPLETED_IDS = 100;

/** The shells `svc completions` writes a script for. */
export const SHELLS = ["bash", "zsh", "fish"] as const;
export type Shell = typeof SHELLS[number];

/** What the completion scripts offer after one command: its subcommands and flags. */
export interface CompletionSpec {
  readonly name: string;
  readonly summary?: string;
  readonly subcommands?: readonly string[];
  readonly flags: readonly string[];
  /** Live ids completed after the command ("" key) or after one of its subcommands. */
  readonly ids?: Readonly<Record<string, IdKind>>;
}

/** The parts of a command the completion spec is derived from. */
export type CompletionSource = Pick<Command, "name" | "summary" | "usage">;

/** Flags `runCli` accepts in place of a command. */
const GLOBAL_FLAGS = ["--version", "--help"];
/** Only such words are written into a script, so nothing in it needs quoting. */
const SAFE_WORD = /^-{0,2}[A-Za-z0-9][A-Za-z0-9._-]*$/;
const WORD = "[a-z][a-z0-9-]*";

/**
 * `svc completions bash|zsh|fish`. `commands` is read when the command runs,
 * so the command table may include this command itself.
 */
export function completionsCommand(commands: () => readonly CompletionSource[]): Command {
  return {
    name: "completions",
    summary: "Print a shell completion script (bash, zsh, fish)",
    usage: `Usage: svc completions bash|zsh|fish
       svc completions ids session|routine|run [PREFIX] [--home DIR]

Prints a completion script for the shell, covering every command, subcommand
and flag. Install it with one of:

  bash  svc completions bash > ~/.local/share/bash-completion/completions/svc
  zsh   svc completions zsh > "\${fpath[1]}/_svc"   (or: source <(svc completions zsh))
  fish  svc completions fish > ~/.config/fish/completions/svc.fish

The scripts complete session, routine and run ids from the running daemon with
"svc completions ids KIND PREFIX" (at most ${MAX_COMPLETED_IDS} ids, one per line).`,
    run(args, io) {
      if (args[0] === "ids") return printIds(args.slice(1), io);
      if (args.length === 0) throw new UsageError("Missing shell (bash, zsh or fish)");
      if (args.length > 1) throw new UsageError(`Unexpected argument "${args[1]}"`);
      const shell = args[0];
      if (!(SHELLS as readonly string[]).includes(shell)) {
        throw new UsageError(`Unknown shell "${shell}": use bash, zsh or fish`);
      }
      io.write(completionScript(shell as Shell, completionSpec(commands())));
      return Promise.resolve(EXIT.ok);
    },
  };
}

/**
 * The completion spec of a command table: each command's flags and
 * subcommands read from its usage text, `--help` on every command, and
 * `help` completing command names.
 */
export function completionSpec(commands: readonly CompletionSource[]): CompletionSpec[] {
  const specs: CompletionSpec[] = commands.map((command) => {
    const { subcommands, flags } = parseUsage(command.name, command.usage);
    const ids: Record<string, IdKind> = {};
    for (const [where, kind] of Object.entries(ID_ARGUMENTS)) {
      const [name, subcommand = ""] = where.split(" ");
      if (name === command.name) ids[subcommand] = kind;
    }
    return {
      name: command.name,
      summary: command.summary,
      ...(subcommands.length > 0 && { subcommands }),
      flags: unique([...flags, "--help"]),
      ...(Object.keys(ids).length > 0 && { ids }),
    };
  });
  specs.push({
    name: "help",
    summary: "Show help for a command",
    subcommands: commands.map((command) => command.name),
    flags: [],
  });
  return specs;
}

/**
 * The subcommands and flags a usage text names. Subcommands come from an
 * alternation right after the command (`Usage: svc completions bash|zsh|fish`)
 * or from the two-space-indented lines of a `Subcommands:` section; flags are
 * every `--long` and `-s` token, in order of first appearance.
 */
export function parseUsage(
  name: string,
  usage: string,
): { subcommands: string[]; flags: string[] } {
  const subcommands: string[] = [];
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const alternation = usage.match(
    new RegExp(`^Usage: svc ${escaped} (${WORD}(?:\\|${WORD})+)(?:\\s|$)`, "m"),
  );
  if (alternation) subcommands.push(...alternation[1].split("|"));
  let inSection = false;
  for (const line of usage.split("\n")) {
    if (/^Subcommands:\s*$/.test(line)) {
      inSection = true;
      continue;
    }
    if (!inSection) continue;
    if (line.trim() !== "" && !/^\s/.test(line)) {
      inSection = false;
      continue;
    }
    const entry = line.match(new RegExp(`^  (${WORD})(?:\\s|$)`));
    if (entry) subcommands.push(entry[1]);
  }
  const flags = [...usage.matchAll(/(?<![\w-])(--[a-z][a-z0-9-]*|-[a-zA-Z])(?![\w-])/g)]
    .map((match) => match[1]);
  return { subcommands: unique(subcommands), flags: unique(flags) };
}

/** A completion script for `shell` offering what `spec` lists. Pure. */
export function completionScript(shell: Shell, spec: readonly CompletionSpec[]): string {
  for (const command of spec) {
    const idWords = Object.entries(command.ids ?? {}).flat().filter((word) => word !== "");
    for (
      const word of [command.name, ...(command.subcommands ?? []), ...command.flags, ...idWords]
    ) {
      if (!SAFE_WORD.test(word)) throw new Error(`Cannot complete "${word}": unsafe word`);
    }
  }
  switch (shell) {
    case "bash":
      return bashScript(spec);
    case "zsh":
      return zshScript(spec);
    case "fish":
      return fishScript(spec);
  }
}

function bashScript(spec: readonly CompletionSpec[]): string {
  const commandWords = [...spec.map((c) => c.name), ...GLOBAL_FLAGS].join(" ");
  const cases = spec.map((command) => {
    const subcommands = command.subcommands?.join(" ") ?? "";
    const flags = command.flags.join(" ");
    const lines = [`    ${command.name})`, `      if [[ $cur == -* ]]; then words='${flags}'`];
    if (subcommands !== "") {
      lines.push(`      elif [[ $COMP_CWORD -eq 2 ]]; then words='${subcommands}'`);
    }
    for (const [kind, after] of idPlaces(command)) {
      const fetch = `words=$(svc completions ids ${kind} "$cur" 2>/dev/null)`;
      lines.push(
        after.length === 0
          ? `      elif [[ $COMP_CWORD -eq 2 ]]; then ${fetch}`
          : `      elif [[ $COMP_CWORD -eq 3 && " ${
            after.join(" ")
          } " == *" \${COMP_WORDS[2]} "* ]]; then ${fetch}`,
      );
    }
    lines.push(`      fi`, `      ;;`);
    return lines.join("\n");
  });
  return `# bash completion for svc (generated by "svc completions bash")
_svc() {
  local cur="\${COMP_WORDS[COMP_CWORD]}"
  local words=""
  if [[ $COMP_CWORD -eq 1 ]]; then
    words='${commandWords}'
  else
    case "\${COMP_WORDS[1]}" in
${cases.join("\n")}
    esac
  fi
  # Nothing to offer (a value or an argument): fall back to file names (-o default).
  # shellcheck disable=SC2207
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -o default -F _svc svc
`;
}

function zshScript(spec: readonly CompletionSpec[]): string {
  const described = spec.map((command) =>
    `    ${zshQuote(`${command.name}:${command.summary ?? ""}`)}`
  );
  const cases = spec.map((command) => {
    const lines = [
      `    ${command.name})`,
      `      if [[ $PREFIX == -* ]]; then`,
      command.flags.length > 0 ? `        compadd -- ${command.flags.join(" ")}` : `        :`,
    ];
    if (command.subcommands?.length) {
      lines.push(
        `      elif (( CURRENT == 3 )); then`,
        `        compadd -- ${command.subcommands.join(" ")}`,
      );
    }
    for (const [kind, after] of idPlaces(command)) {
      lines.push(
        after.length === 0
          ? `      elif (( CURRENT == 3 )); then`
          : `      elif (( CURRENT == 4 )) && [[ " ${
            after.join(" ")
          } " == *" $words[3] "* ]]; then`,
        `        compadd -- \${(f)"$(svc completions ids ${kind} "$PREFIX" 2>/dev/null)"}`,
      );
    }
    lines.push(`      else`, `        _files`, `      fi`, `      ;;`);
    return lines.join("\n");
  });
  return `#compdef svc
# zsh completion for svc (generated by "svc completions zsh")
_svc() {
  local -a commands
  commands=(
${described.join("\n")}
  )
  if (( CURRENT == 2 )); then
    if [[ $PREFIX == -* ]]; then
      compadd -- ${GLOBAL_FLAGS.join(" ")}
    else
      _describe -t commands 'svc command' commands
    fi
    return
  fi
  case $words[2] in
${cases.join("\n")}
    *)
      _files
      ;;
  esac
}
if [[ $funcstack[1] == _svc ]]; then
  _svc "$@"
else
  compdef _svc svc
fi
`;
}

function fishScript(spec: readonly CompletionSpec[]): string {
  const lines = [
    `# fish completion for svc (generated by "svc completions fish")`,
    `function __svc_command_is`,
    `    set -l tokens (commandline -opc)`,
    `    test (count $tokens) -ge 2; and test "$tokens[2]" = "$argv[1]"`,
    `end`,
    `function __svc_subcommand_of`,
    `    set -l tokens (commandline -opc)`,
    `    test (count $tokens) -eq 2; and test "$tokens[2]" = "$argv[1]"`,
    `end`,
    `function __svc_id_after`,
    `    set -l tokens (commandline -opc)`,
    `    test (count $tokens) -eq 3; and test "$tokens[2]" = "$argv[1]"`,
    `    and contains -- "$tokens[3]" $argv[2..-1]`,
    `end`,
    `complete -c svc -e`,
    `complete -c svc -n 'test (count (commandline -opc)) -eq 1' -f` +
    GLOBAL_FLAGS.map((flag) => ` -l ${flag.slice(2)}`).join(""),
  ];
  for (const command of spec) {
    lines.push(
      `complete -c svc -n 'test (count (commandline -opc)) -eq 1' -f -a ${command.name}` +
        ` -d ${fishQuote(command.summary ?? "")}`,
    );
    if (command.subcommands?.length) {
      lines.push(
        `complete -c svc -n '__svc_subcommand_of ${command.name}' -f` +
          ` -a ${fishQuote(command.subcommands.join(" "))}`,
      );
    }
    for (const [kind, after] of idPlaces(command)) {
      const condition = after.length === 0
        ? `__svc_subcommand_of ${command.name}`
        : `__svc_id_after ${command.name} ${after.join(" ")}`;
      lines.push(
        `complete -c svc -n '${condition}' -f` +
          ` -a '(svc completions ids ${kind} (commandline -ct) 2>/dev/null)'`,
      );
    }
    const flagArgs = command.flags.map((flag) =>
      flag.startsWith("--") ? `-l ${flag.slice(2)}` : `-s ${flag.slice(1)}`
    );
    if (flagArgs.length > 0) {
      lines.push(`complete -c svc -n '__svc_command_is ${command.name}' ${flagArgs.join(" ")}`);
    }
  }
  return lines.join("\n") + "\n";
}

/** Per id kind, the subcommands after which a command takes one ([] : right after the command). */
function idPlaces(command: CompletionSpec): Array<[IdKind, string[]]> {
  const places = new Map<IdKind, string[]>();
  for (const [subcommand, kind] of Object.entries(command.ids ?? {})) {
    const after = places.get(kind) ?? [];
    if (subcommand !== "") after.push(subcommand);
    places.set(kind, after);
  }
  return [...places];
}

/**
 * `svc completions ids KIND [PREFIX]`: the live ids of KIND starting with
 * PREFIX, one per line (at most MAX_COMPLETED_IDS), for the scripts.
 */
async function printIds(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, { home: { type: "string" } }, {
    positionals: 2,
  });
  const [kind, prefix = ""] = positionals;
  if (!(COMPLETED_KINDS as readonly string[]).includes(kind ?? "")) {
    throw new UsageError(
      `Expected an id kind (${COMPLETED_KINDS.join(", ")}), got "${kind ?? ""}"`,
    );
  }
  return await withClient(values.home, io, async (client) => {
    // As typed (the shell keeps only candidates that start with the typed word).
    const tagged = (tag: string) => prefix === "" ? `${tag}_` : prefix;
    const ids = kind === "session"
      ? await sessionIdsWithPrefix(client, tagged("ses"), MAX_COMPLETED_IDS)
      : kind === "run"
      ? await runIdsWithPrefix(client, tagged("run"), MAX_COMPLETED_IDS)
      : await routineIdsWithPrefix(client, prefix, MAX_COMPLETED_IDS);
    // The shell matches the typed text itself: ids it would not match are dropped there.
    if (ids.length > 0) io.out(ids.join("\n"));
    return EXIT.ok;
  });
}

/** `text` in zsh single quotes. */
function zshQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** `text` in fish single quotes (only `\` and `'` are special there). */
function fishQuote(text: string): string {
  return `'${text.replaceAll("\\", "\\\\").replaceAll("'", "\\'")}'`;
}

function unique(words: string[]): string[] {
  return [...new Set(words)];
}
