import { type Command, EXIT, UsageError } from "./command.ts";

/** The shells `svc completions` writes a script for. */
export const SHELLS = ["bash", "zsh", "fish"] as const;
export type Shell = typeof SHELLS[number];

/** What the completion scripts offer after one command: its subcommands and flags. */
export interface CompletionSpec {
  readonly name: string;
  readonly summary?: string;
  readonly subcommands?: readonly string[];
  readonly flags: readonly string[];
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

Prints a completion script for the shell, covering every command, subcommand
and flag. Install it with one of:

  bash  svc completions bash > ~/.local/share/bash-completion/completions/svc
  zsh   svc completions zsh > "\${fpath[1]}/_svc"   (or: source <(svc completions zsh))
  fish  svc completions fish > ~/.config/fish/completions/svc.fish`,
    run(args, io) {
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
    return {
      name: command.name,
      summary: command.summary,
      ...(subcommands.length > 0 && { subcommands }),
      flags: unique([...flags, "--help"]),
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
    for (const word of [command.name, ...(command.subcommands ?? []), ...command.flags]) {
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
    const flagArgs = command.flags.map((flag) =>
      flag.startsWith("--") ? `-l ${flag.slice(2)}` : `-s ${flag.slice(1)}`
    );
    if (flagArgs.length > 0) {
      lines.push(`complete -c svc -n '__svc_command_is ${command.name}' ${flagArgs.join(" ")}`);
    }
  }
  return lines.join("\n") + "\n";
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
