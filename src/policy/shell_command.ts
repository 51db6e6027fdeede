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
 * and subshells), with what of its argv is literal, and what each runs behind
 * its wrappers (command_wrappers.ts), for deny rules. A text svc cannot read
 * in full is `unparsed`: never allowed, and deny rules scan all its words.
 */
import type { Node, Parser } from "web-tree-sitter";
import { basename, SHELLS, wrappedCommand } from "./command_wrappers.ts";

/** What approval rules know of one shell command text. */
export interface ParsedCommand {
  /** The argv of a simple command (quotes removed), or null when the text is anything more. */
  simple: string[] | null;
  /**
   * Every command in the text, each as its argv up to its first word that is
   * not literal (a `$X` program gives an empty argv), and each as what it runs
   * behind its wrappers (`sudo -u root rm x` also as `rm x`, `git -C . push`
   * also as `git push`, `bash -xc '…'` and `eval '…'` as their scripts).
   */
  commands: string[][];
  /**
   * Null when svc read the whole text; else every word in it, quotes and
   * backslashes removed, for deny rules to scan. A text is unparsed when it is
   * over 16 KiB, has a syntax error, or has a wrapper svc cannot read (an
   * option it does not know, a word it needs that is not literal, words after
   * a `bash -c` script); an unparsed text never matches an allow rule.
   */
  unparsed: string[] | null;
}

/** What one parse of a text (or a script inside it) found. */
interface Reading {
  simple: string[] | null;
  commands: string[][];
  /** False when any of the text could not be read: a syntax error, a wrapper svc cannot read. */
  complete: boolean;
}

/** Longer texts are not parsed, only scanned for deny rules (nobody writes a rule for them). */
const MAX_COMMAND_CHARS = 16 * 1024;
/** How deep `bash -c '…'` and `eval` are looked into; deeper is unparsed. */
const MAX_DEPTH = 4;
/** How many wrappers in a row are looked through (`sudo env nice …`); more is unparsed. */
const MAX_WRAPPERS = 16;

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
  const reading = parseWith(parser, text, 0);
  if (reading.complete) {
    return { simple: reading.simple, commands: reading.commands, unparsed: null };
  }
  return { simple: null, commands: reading.commands, unparsed: scanWords(text) };
}

function parseWith(parser: Parser, text: string, depth: number): Reading {
  if (text.length > MAX_COMMAND_CHARS) return { simple: null, commands: [], complete: false };
  const tree = parser.parse(text);
  if (tree === null) return { simple: null, commands: [], complete: false };
  try {
    const root = tree.rootNode;
    const reading: Reading = { simple: null, commands: [], complete: !root.hasError };
    collectCommands(parser, root, depth, reading);
    // Control characters (a newline, a carriage return, NUL…) are never part of a simple command.
    // deno-lint-ignore no-control-regex
    const clean = !/[\u0000-\u001f\u007f]/.test(text) && reading.complete;
    reading.simple = clean ? simpleArgv(root) : null;
    if (reading.simple !== null && depth < MAX_DEPTH) {
      const inner = shellDashC(reading.simple);
      if (inner !== null) reading.simple = parseWith(parser, inner, depth + 1).simple;
    }
    return reading;
  } finally {
    tree.delete();
  }
}

/**
 * Every word of a text svc could not read, for deny rules: split on blanks
 * and shell operators, quotes and backslashes dropped (`'r'm` is `rm`), so a
 * denied program is found however it is quoted or chained.
 */
function scanWords(text: string): string[] {
  return text.split(/[\s;&|()<>`{}]+|\$\(/).map((word) => word.replace(/['"\\]/g, ""))
    .filter((word) => word !== "");
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

/**
 * The script of `bash -c SCRIPT` / `bash -lc SCRIPT` (nothing after it), else
 * null: the one wrapper an allow rule reads through, as codex runs every
 * command as `/bin/bash -lc '…'`.
 */
function shellDashC(argv: readonly string[]): string | null {
  if (argv.length !== 3 || !SHELLS.has(basename(argv[0]))) return null;
  return /^-l?c$|^-cl$/.test(argv[1]) ? argv[2] : null;
}

/**
 * Every `command` node under `node`: its literal argv, and what it runs behind
 * its wrappers, into `reading`; a wrapper svc cannot read leaves it incomplete.
 */
function collectCommands(parser: Parser, node: Node, depth: number, reading: Reading): void {
  if (node.type === "command") {
    const { argv, complete } = literalPrefix(node);
    reading.commands.push(argv);
    collectWrapped(parser, argv, complete, depth, reading);
  }
  for (const child of node.children) {
    if (child !== null) collectCommands(parser, child, depth, reading);
  }
}

/** What `argv` runs behind each of its wrappers in turn (`sudo env -u X timeout 5 rm`). */
function collectWrapped(
  parser: Parser,
  argv: string[],
  complete: boolean,
  depth: number,
  reading: Reading,
): void {
  let current = argv;
  for (let hops = 0;; hops++) {
    const wrapped = wrappedCommand(current, complete);
    if (wrapped === null || wrapped.kind === "none") return;
    const tooDeep = wrapped.kind === "script" ? depth >= MAX_DEPTH : hops >= MAX_WRAPPERS;
    if (wrapped.kind === "unknown" || tooDeep) {
      reading.complete = false;
      return;
    }
    if (wrapped.kind === "script") {
      const inner = parseWith(parser, wrapped.text, depth + 1);
      reading.commands.push(...inner.commands);
      reading.complete &&= inner.complete;
      return;
    }
    reading.commands.push(wrapped.argv);
    current = wrapped.argv;
  }
}

/**
 * The literal words of a command up to the first that is not, assignments
 * and redirections skipped; `complete` when that is every word.
 */
function literalPrefix(command: Node): { argv: string[]; complete: boolean } {
  const argv: string[] = [];
  for (const child of command.children) {
    if (child === null) return { argv, complete: false };
    if (child.type === "variable_assignment" || child.type.endsWith("redirect")) continue;
    const node = child.type === "command_name" ? onlyChild(child) : child;
    const word = node === null ? null : literalWord(node);
    if (word === null) return { argv, complete: false };
    argv.push(word);
  }
  return { argv, complete: true };
}
