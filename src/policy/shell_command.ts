/**
 * Shell commands as approval rules see them (D28): parsed with a real bash
 * grammar (tree-sitter-bash, compiled to WebAssembly and run by
 * web-tree-sitter), never split on spaces or matched as substrings. See
 * docs/approvals.md for why this parser.
 *
 * A command is `simple` only when it is exactly one plain command whose every
 * word is literal once bash has removed its quotes: no chaining (`;`, `&&`,
 * `||`, `|`, `&`, newlines), no substitution (`$(…)`, backticks, `<(…)`), no
 * expansion (`$X`, `${X}`, `~`, globs, braces, `$'…'`), no redirection, no
 * subshell or group, no assignment prefix, no comment, no control character.
 * Only a simple command can match an allow rule. `commands` lists every
 * command found anywhere in the text (inside chains, pipelines, substitutions
 * and subshells), with what of its argv is literal, for deny rules.
 */
import type { Node, Parser } from "web-tree-sitter";

/** What approval rules know of one shell command text. */
export interface ParsedCommand {
  /** The argv of a simple command (quotes removed), or null when the text is anything more. */
  simple: string[] | null;
  /**
   * Every command in the text, each as its argv up to its first word that is
   * not literal (a `$X` program gives an empty argv). Wrappers such as `env`,
   * `sudo` or `bash -c '…'` are looked through.
   */
  commands: string[][];
}

/** Texts longer than this are never simple (nobody writes a rule for them). */
const MAX_COMMAND_CHARS = 16 * 1024;
/** How deep `bash -c '…'` and substitutions are looked into. */
const MAX_DEPTH = 4;

let parserPromise: Promise<Parser> | null = null;

/**
 * The bash parser, loaded once, on first use (a program that never parses a
 * command, such as `svc ui`, never loads 1.5 MB of WebAssembly). Both .wasm
 * files are imported as bytes, so they are in the module graph: in the
 * bundle and the compiled binary as much as in a checkout (deno.json:
 * `"unstable": ["raw-imports"]`).
 */
function bashParser(): Promise<Parser> {
  parserPromise ??= (async () => {
    const [{ Language, Parser }, grammar, runtime] = await Promise.all([
      import("web-tree-sitter"),
      import("tree-sitter-bash/tree-sitter-bash.wasm", { with: { type: "bytes" } }),
      import("web-tree-sitter/web-tree-sitter.wasm", { with: { type: "bytes" } }),
    ]);
    await Parser.init({ wasmBinary: runtime.default });
    const parser = new Parser();
    parser.setLanguage(await Language.load(grammar.default));
    return parser;
  })();
  parserPromise.catch(() => parserPromise = null);
  return parserPromise;
}

/** Parses `text` as bash. */
export async function parseCommand(text: string): Promise<ParsedCommand> {
  const parser = await bashParser();
  return parseWith(parser, text, 0);
}

function parseWith(parser: Parser, text: string, depth: number): ParsedCommand {
  if (text.length > MAX_COMMAND_CHARS) return { simple: null, commands: [] };
  const tree = parser.parse(text);
  if (tree === null) return { simple: null, commands: [] };
  try {
    const root = tree.rootNode;
    const commands: string[][] = [];
    collectCommands(parser, root, depth, commands);
    // Control characters (a newline, a carriage return, NUL…) are never part of a simple command.
    // deno-lint-ignore no-control-regex
    const clean = !/[\u0000-\u001f\u007f]/.test(text) && !root.hasError;
    let simple = clean ? simpleArgv(root) : null;
    if (simple !== null && depth < MAX_DEPTH) {
      const inner = shellDashC(simple);
      if (inner !== null) simple = parseWith(parser, inner, depth + 1).simple;
    }
    return { simple, commands };
  } finally {
    tree.delete();
  }
}

/** The argv of a program that is exactly one literal command, else null. */
function simpleArgv(root: Node): string[] | null {
  const children = root.children.filter((child) => child !== null);
  if (children.length !== 1 || children[0].type !== "command") return null;
  const argv: string[] = [];
  for (const child of children[0].children) {
    if (child === null) return null;
    const node = child.type === "command_name" ? onlyChild(child) : child;
    const word = node === null ? null : literalWord(node);
    if (word === null) return null;
    argv.push(word);
  }
  return argv.length > 0 ? argv : null;
}

function onlyChild(node: Node): Node | null {
  return node.childCount === 1 ? node.child(0) : null;
}

/** Characters that make an unquoted word expand (globs, braces, tilde, history). */
const EXPANDING = /[*?[\]{}~!]/;

/** The value of a literal word after quote removal, or null when bash would expand it. */
function literalWord(node: Node): string | null {
  switch (node.type) {
    case "word":
    case "number": {
      if (EXPANDING.test(node.text) || node.text.includes("$")) return null;
      return unescapeUnquoted(node.text);
    }
    case "raw_string":
      return node.text.slice(1, -1);
    case "string": {
      let value = "";
      for (const part of node.children) {
        if (part === null) return null;
        if (part.type === '"') continue;
        if (part.type !== "string_content") return null;
        if (/[$`]/.test(part.text.replace(/\\[$`"\\]/g, ""))) return null;
        value += part.text.replace(/\\([$`"\\\n])/g, "$1");
      }
      return value;
    }
    case "concatenation": {
      let value = "";
      for (const part of node.children) {
        const piece = part === null ? null : literalWord(part);
        if (piece === null) return null;
        value += piece;
      }
      return value;
    }
    default:
      return null;
  }
}

/** An unquoted word's backslash escapes removed (`git\ status` is one word, `git status`). */
function unescapeUnquoted(text: string): string | null {
  if (text.endsWith("\\") && !text.endsWith("\\\\")) return null;
  return text.replace(/\\(.)/gs, "$1");
}

/** Shells whose `-c SCRIPT` runs SCRIPT; codex runs every command as `/bin/bash -lc '…'`. */
const SHELLS = new Set(["bash", "sh", "zsh", "dash"]);

/** The script of `bash -c SCRIPT` / `bash -lc SCRIPT` (nothing after it), else null. */
export function shellDashC(argv: readonly string[]): string | null {
  if (argv.length !== 3 || !SHELLS.has(basename(argv[0]))) return null;
  return /^-l?c$|^-cl$/.test(argv[1]) ? argv[2] : null;
}

/** Programs that run the rest of their argv as a command. */
const WRAPPERS = new Set([
  "env",
  "sudo",
  "doas",
  "exec",
  "command",
  "builtin",
  "nohup",
  "nice",
  "time",
  "timeout",
  "xargs",
  "stdbuf",
  "setsid",
  "chroot",
  "eval",
]);

/** Whether `program` (a path or a name) runs another command (`env`, `sudo`…). */
export function isWrapper(program: string): boolean {
  return WRAPPERS.has(basename(program));
}

/** Every `command` node under `node`, as the literal start of its argv, wrappers looked through. */
function collectCommands(parser: Parser, node: Node, depth: number, out: string[][]): void {
  if (node.type === "command") {
    const argv = literalPrefix(node);
    out.push(argv);
    const unwrapped = unwrap(argv);
    if (unwrapped !== argv) out.push(unwrapped);
    const script = shellDashC(unwrapped.slice(0, 3));
    if (script !== null && depth < MAX_DEPTH) {
      out.push(...parseWith(parser, script, depth + 1).commands);
    }
  }
  for (const child of node.children) {
    if (child !== null) collectCommands(parser, child, depth, out);
  }
}

/** The literal words of a command up to the first that is not, assignments skipped. */
function literalPrefix(command: Node): string[] {
  const argv: string[] = [];
  for (const child of command.children) {
    if (child === null) break;
    if (child.type === "variable_assignment" || child.type.endsWith("redirect")) continue;
    const node = child.type === "command_name" ? onlyChild(child) : child;
    const word = node === null ? null : literalWord(node);
    if (word === null) break;
    argv.push(word);
  }
  return argv;
}

/** `env A=1 sudo -u x rm -rf /` → `rm -rf /`: wrappers, their options and assignments dropped. */
function unwrap(argv: string[]): string[] {
  let index = 0;
  while (index < argv.length && isWrapper(argv[index])) {
    index++;
    while (index < argv.length && (argv[index].startsWith("-") || /^\w+=/.test(argv[index]))) {
      index++;
    }
    // `timeout 5 cmd`, `nice 10 cmd`: a bare number is the wrapper's argument.
    if (index < argv.length && /^\d+[smhd]?$/.test(argv[index])) index++;
  }
  return index === 0 ? argv : argv.slice(index);
}

export function basename(program: string): string {
  return program.slice(program.lastIndexOf("/") + 1);
}
