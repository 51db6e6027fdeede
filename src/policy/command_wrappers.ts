/**
 * What a wrapper runs (D28, issue 33): `sudo -u root rm x` runs `rm x`,
 * `git --no-pager push` is `git push`, `bash -xc 'rm x'` and `eval 'rm x'`
 * run a script. Each wrapper's option grammar (which options take an
 * argument, attached or as the next word) is modelled, so an option's
 * argument is never taken for the command and the command is never missed;
 * an option svc does not know makes the wrapper unknown.
 */

/** What one wrapper's argv runs. */
export type Wrapped =
  /** The wrapped command's argv (for git, `git SUBCOMMAND …` without its global options). */
  | { kind: "command"; argv: string[] }
  /** A script to parse: `bash -c SCRIPT`, `eval WORDS…`. */
  | { kind: "script"; text: string }
  /** Nothing svc can see run: `env` alone, `bash script.sh`. */
  | { kind: "none" }
  /** Svc cannot tell: an unknown option, a missing argument, a needed word that is not literal. */
  | { kind: "unknown" };

/** How a long option takes its argument: none, `=V` or the next word, only `=V`, or env's split. */
type LongArity = "flag" | "arg" | "optional" | "split";

/** One wrapper's options, as getopt reads them (options stop at the first other word). */
interface OptionGrammar {
  /** Short options without an argument (clustered: `-nE`). */
  flags: string;
  /** Short options with an argument, attached (`-uroot`) or the next word. */
  withArg: string;
  /** Short options whose argument is optional and only ever attached (`xargs -i{}`). */
  optionalArg?: string;
  /** Long options by name (without `--`); a unique prefix names one, as getopt_long allows. */
  long: Readonly<Record<string, LongArity>>;
  /** The short option whose argument is split into more arguments (env -S). */
  split?: string;
  /** `-NUM` is an option (nice's old adjustment); `-` alone is one (env's `-i`). */
  numeric?: boolean;
  loneDash?: boolean;
  /** NAME=VALUE words after the options (env). */
  assignments?: boolean;
  /** Words between the options and the command: timeout's DURATION, chroot's NEWROOT. */
  operands?: number;
}

const SUDO: OptionGrammar = {
  flags: "AbBEeHiKklNnPSsVv",
  withArg: "aCcDghpRrTtUu",
  long: {
    askpass: "flag",
    background: "flag",
    bell: "flag",
    "close-from": "arg",
    chdir: "arg",
    "preserve-env": "optional",
    edit: "flag",
    group: "arg",
    "set-home": "flag",
    help: "flag",
    host: "arg",
    login: "flag",
    "remove-timestamp": "flag",
    "reset-timestamp": "flag",
    list: "flag",
    "no-update": "flag",
    "non-interactive": "flag",
    "preserve-groups": "flag",
    prompt: "arg",
    chroot: "arg",
    role: "arg",
    stdin: "flag",
    shell: "flag",
    type: "arg",
    "command-timeout": "arg",
    "other-user": "arg",
    user: "arg",
    version: "flag",
    validate: "flag",
    "login-class": "arg",
  },
};

const ENV: OptionGrammar = {
  flags: "i0v",
  withArg: "uCaPLU",
  split: "S",
  loneDash: true,
  assignments: true,
  long: {
    "ignore-environment": "flag",
    null: "flag",
    unset: "arg",
    chdir: "arg",
    argv0: "arg",
    "split-string": "split",
    "block-signal": "optional",
    "default-signal": "optional",
    "ignore-signal": "optional",
    "list-signal-handling": "flag",
    debug: "flag",
    help: "flag",
    version: "flag",
  },
};

const XARGS: OptionGrammar = {
  flags: "0oprtx",
  withArg: "aEdILnPsJRS",
  optionalArg: "eil",
  long: {
    null: "flag",
    "arg-file": "arg",
    delimiter: "arg",
    eof: "optional",
    replace: "optional",
    "max-lines": "optional",
    "max-args": "arg",
    "max-procs": "arg",
    "max-chars": "arg",
    "process-slot-var": "arg",
    interactive: "flag",
    "no-run-if-empty": "flag",
    "open-tty": "flag",
    "show-limits": "flag",
    verbose: "flag",
    exit: "flag",
    help: "flag",
    version: "flag",
  },
};

/** Programs that run the rest of their argv as a command, by their option grammar. */
const WRAPPERS: Readonly<Record<string, OptionGrammar>> = {
  sudo: SUDO,
  doas: { flags: "Lns", withArg: "Cu", long: {} },
  env: ENV,
  timeout: {
    flags: "fpv",
    withArg: "ks",
    operands: 1,
    long: {
      foreground: "flag",
      "kill-after": "arg",
      "preserve-status": "flag",
      signal: "arg",
      verbose: "flag",
      help: "flag",
      version: "flag",
    },
  },
  nice: { flags: "", withArg: "n", numeric: true, long: { adjustment: "arg", help: "flag" } },
  nohup: { flags: "", withArg: "", long: { help: "flag", version: "flag" } },
  time: {
    flags: "apqvV",
    withArg: "fo",
    long: {
      append: "flag",
      format: "arg",
      output: "arg",
      portability: "flag",
      quiet: "flag",
      verbose: "flag",
      help: "flag",
      version: "flag",
    },
  },
  command: { flags: "pvV", withArg: "", long: {} },
  builtin: { flags: "", withArg: "", long: {} },
  exec: { flags: "cl", withArg: "a", long: {} },
  stdbuf: {
    flags: "",
    withArg: "ioe",
    long: { input: "arg", output: "arg", error: "arg", help: "flag", version: "flag" },
  },
  setsid: { flags: "cfw", withArg: "", long: { ctty: "flag", fork: "flag", wait: "flag" } },
  chroot: {
    flags: "",
    withArg: "",
    operands: 1,
    long: { groups: "arg", userspec: "arg", "skip-chdir": "flag", help: "flag", version: "flag" },
  },
  xargs: XARGS,
};

/** Git's global options, before its subcommand (`git -C dir --no-pager push`). */
const GIT: OptionGrammar = {
  flags: "pPvh",
  withArg: "Cc",
  long: {
    "no-pager": "flag",
    paginate: "flag",
    bare: "flag",
    "exec-path": "optional",
    "html-path": "flag",
    "man-path": "flag",
    "info-path": "flag",
    "git-dir": "arg",
    "work-tree": "arg",
    namespace: "arg",
    "super-prefix": "arg",
    "config-env": "arg",
    "attr-source": "arg",
    "list-cmds": "optional",
    "no-replace-objects": "flag",
    "no-lazy-fetch": "flag",
    "no-optional-locks": "flag",
    "no-advice": "flag",
    "literal-pathspecs": "flag",
    "glob-pathspecs": "flag",
    "noglob-pathspecs": "flag",
    "icase-pathspecs": "flag",
    version: "flag",
    help: "flag",
  },
};

/** Shells whose `-c SCRIPT` runs SCRIPT. */
export const SHELLS: ReadonlySet<string> = new Set(["bash", "sh", "zsh", "dash"]);
/** Shell options without an argument (bash's set and invocation letters; `c` is read apart). */
const SHELL_FLAGS = "abefhiklmnprstuvxBCDEHPT";
/** Shell long options, with their arity. */
const SHELL_LONG: Readonly<Record<string, LongArity>> = {
  login: "flag",
  noprofile: "flag",
  norc: "flag",
  posix: "flag",
  restricted: "flag",
  verbose: "flag",
  noediting: "flag",
  debugger: "flag",
  "dump-strings": "flag",
  "dump-po-strings": "flag",
  "pretty-print": "flag",
  help: "flag",
  version: "flag",
  rcfile: "arg",
  "init-file": "arg",
};

/**
 * What `argv` runs behind its wrapper, or null when its program wraps
 * nothing (or, for git, has no global option to drop). `complete` is false
 * when `argv` stops before a word that is not literal (`sudo -u "$U" rm`):
 * a wrapper that needs that word is unknown.
 */
export function wrappedCommand(argv: readonly string[], complete: boolean): Wrapped | null {
  const program = basename(argv[0] ?? "");
  if (program === "git") return gitSubcommand(argv, complete);
  if (program === "eval") return evalScript(argv, complete);
  if (SHELLS.has(program)) return shellScript(argv, complete);
  const grammar = WRAPPERS[program];
  if (grammar === undefined) return null;
  const words = afterOptions(argv, grammar);
  if (words === null) return UNKNOWN;
  let index = 0;
  if (grammar.assignments) { while (words[index]?.includes("=")) index++; }
  index += grammar.operands ?? 0;
  if (index >= words.length) return complete && index === words.length ? NONE : UNKNOWN;
  return { kind: "command", argv: words.slice(index) };
}

const UNKNOWN: Wrapped = { kind: "unknown" };
const NONE: Wrapped = { kind: "none" };

/** `git [global options] SUBCOMMAND …` as `git SUBCOMMAND …`; null without global options. */
function gitSubcommand(argv: readonly string[], complete: boolean): Wrapped | null {
  const rest = afterOptions(argv, GIT);
  if (rest === null) return UNKNOWN;
  if (rest.length === argv.length - 1) return null;
  if (rest.length === 0) return complete ? NONE : UNKNOWN;
  return { kind: "command", argv: [argv[0], ...rest] };
}

/** `eval WORDS…` runs its words joined by spaces as a script. */
function evalScript(argv: readonly string[], complete: boolean): Wrapped {
  if (!complete) return UNKNOWN;
  const words = argv[1] === "--" ? argv.slice(2) : argv.slice(1);
  return words.length === 0 ? NONE : { kind: "script", text: words.join(" ") };
}

/**
 * `bash [options] -c SCRIPT`: options clustered or not (`-xc`, `-eo pipefail
 * -c`, `+x`, `--norc`), the script the first word after them. Words after the
 * script (`$0`, `$1`…) may be what it runs: unknown.
 */
function shellScript(argv: readonly string[], complete: boolean): Wrapped {
  let script = false;
  let index = 1;
  while (index < argv.length) {
    const word = argv[index];
    if (word === "--" || word === "-") {
      index++;
      break;
    }
    if (word.startsWith("--")) {
      const arity = SHELL_LONG[word.slice(2)];
      if (arity === undefined) return UNKNOWN;
      index += arity === "arg" ? 2 : 1;
      continue;
    }
    if (!/^[-+]./.test(word)) break;
    index++;
    for (const letter of word.slice(1)) {
      if (letter === "c" && word[0] === "-") script = true;
      else if (letter === "o" || letter === "O") index++;
      else if (!SHELL_FLAGS.includes(letter)) return UNKNOWN;
    }
  }
  if (index > argv.length) return UNKNOWN;
  if (!script) return index === argv.length && !complete ? UNKNOWN : NONE;
  if (index !== argv.length - 1 || !complete) return UNKNOWN;
  return { kind: "script", text: argv[index] };
}

/**
 * The words after a wrapper's options (from `argv[1]`), env -S's words
 * spliced in where it stood; null when an option is not in the grammar or
 * lacks its argument.
 */
function afterOptions(argv: readonly string[], grammar: OptionGrammar): string[] | null {
  const words = argv.slice(1);
  let index = 0;
  /** Takes the argument of the option at `index`: `attached`, else the next word. */
  const argument = (attached: string): string | null => {
    if (attached !== "") return attached;
    index++;
    return index < words.length ? words[index] : null;
  };
  while (index < words.length) {
    const word = words[index];
    if (word === "--") return words.slice(index + 1);
    if ((grammar.numeric && /^-[+-]?\d+$/.test(word)) || (grammar.loneDash && word === "-")) {
      index++;
      continue;
    }
    if (word.startsWith("--")) {
      const equals = word.indexOf("=");
      const name = longName(grammar, word.slice(2, equals < 0 ? undefined : equals));
      if (name === null) return null;
      const arity = grammar.long[name];
      if (arity === "flag" && equals >= 0) return null;
      if (arity === "arg" || arity === "split") {
        const value = argument(equals < 0 ? "" : word.slice(equals + 1));
        if (value === null) return null;
        if (arity === "split" && !spliceSplit(words, index, value)) return null;
      }
      index++;
      continue;
    }
    if (!word.startsWith("-") || word === "-") return words.slice(index);
    for (let at = 1; at < word.length; at++) {
      const letter = word[at];
      if (grammar.flags.includes(letter)) continue;
      if (grammar.optionalArg?.includes(letter)) break;
      if (!grammar.withArg.includes(letter) && grammar.split !== letter) return null;
      const value = argument(word.slice(at + 1));
      if (value === null) return null;
      if (grammar.split === letter && !spliceSplit(words, index, value)) return null;
      break;
    }
    index++;
  }
  return [];
}

/** The long option `given` names: itself, or the one option it is a unique prefix of. */
function longName(grammar: OptionGrammar, given: string): string | null {
  if (given in grammar.long) return given;
  const matches = Object.keys(grammar.long).filter((name) => name.startsWith(given));
  return given !== "" && matches.length === 1 ? matches[0] : null;
}

/** Puts env -S's words after `index` in `words`; false when svc cannot split the string. */
function spliceSplit(words: string[], index: number, text: string): boolean {
  const split = splitString(text);
  if (split === null) return false;
  words.splice(index + 1, 0, ...split);
  return true;
}

/**
 * `env -S`'s string as words: split on blanks, `'…'` literal, `"…"` and bare
 * words with backslash escapes (`\_` a blank between words, a space inside
 * quotes). Null for what env would expand or cut (`${VAR}`, `\c`, a `#`
 * comment) or an unterminated quote: svc does not guess.
 */
export function splitString(text: string): string[] | null {
  const words: string[] = [];
  let word: string | null = null;
  let quote: "'" | '"' | null = null;
  const ESCAPES: Record<string, string> = { "\\": "\\", '"': '"', "'": "'", t: "\t", n: "\n" };
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (quote === "'") {
      if (char === "'") quote = null;
      else word += char;
      continue;
    }
    if (char === "$" || (char === "#" && word === null && quote === null)) return null;
    if (char === "\\") {
      const next = text[++index];
      if (next === "_" && quote === null) {
        if (word !== null) words.push(word);
        word = null;
      } else if (next === "_") word += " ";
      else if (next !== undefined && next in ESCAPES) word = (word ?? "") + ESCAPES[next];
      else return null;
      continue;
    }
    if (char === quote) quote = null;
    else if (quote === null && (char === "'" || char === '"')) {
      quote = char;
      word ??= "";
    } else if (quote === null && /\s/.test(char)) {
      if (word !== null) words.push(word);
      word = null;
    } else word = (word ?? "") + char;
  }
  if (quote !== null) return null;
  if (word !== null) words.push(word);
  return words;
}

/** The program name of a path (`/usr/bin/rm` is `rm`). */
export function basename(program: string): string {
  return program.slice(program.lastIndexOf("/") + 1);
}
