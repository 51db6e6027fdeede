/**
 * The path globs of approval rules (D28), matched in work bounded by the
 * glob's length times the path's: a glob compiles to a list of tokens and a
 * path runs through them as a set of states, never by backtracking, so no
 * glob (`**` then a slash, forty times, against a path 200 directories deep)
 * holds the daemon's thread.
 */
import { isAbsolute, join } from "node:path";

/** One piece of a compiled glob. */
type GlobToken =
  /** One character, itself. */
  | { kind: "literal"; char: string }
  /** `?`: one character but `/`. */
  | { kind: "one" }
  /** `*`: any run of characters without `/`. */
  | { kind: "star" }
  /** `**`: any run of characters. */
  | { kind: "any" }
  /**
   * Matches nothing itself and lets the next `skip` tokens match nothing too:
   * `**` then a slash compiles to this, `**` and `/` (any directories, or none).
   */
  | { kind: "optional"; skip: number };

/** A glob compiled against a project root. */
export interface PathGlob {
  /** Whether the whole of `path` (absolute, normalised) matches. */
  matches(path: string): boolean;
  /**
   * Whether `directory` or any path under it could match: what a grant of the
   * whole directory reaches (a codex permissions profile, issue 33 item 5).
   */
  reachesUnder(directory: string): boolean;
}

/**
 * Compiles a path glob: `**` then a slash is any directories (none too), `**`
 * any run of characters, `*` any run without `/`, `?` one character but `/`;
 * everything else is literal. A relative glob is taken from `root`; a glob
 * naming a directory with a trailing `/` matches everything under it.
 */
export function compileGlob(glob: string, root: string): PathGlob {
  // join() keeps a trailing slash.
  let pattern = isAbsolute(glob) ? glob : join(root, glob);
  if (pattern.endsWith("/")) pattern += "**";
  const chars = Array.from(pattern);
  const tokens: GlobToken[] = [];
  for (let index = 0; index < chars.length; index++) {
    const char = chars[index];
    if (char === "*" && chars[index + 1] === "*" && chars[index + 2] === "/") {
      tokens.push({ kind: "optional", skip: 2 }, { kind: "any" }, { kind: "literal", char: "/" });
      index += 2;
    } else if (char === "*" && chars[index + 1] === "*") {
      tokens.push({ kind: "any" });
      index++;
    } else if (char === "*") tokens.push({ kind: "star" });
    else if (char === "?") tokens.push({ kind: "one" });
    else tokens.push({ kind: "literal", char });
  }
  return {
    matches: (path) => runGlob(tokens, path) === "match",
    reachesUnder: (directory) => {
      if (runGlob(tokens, directory) === "match") return true;
      // Every token left can be met by some continuation, so a glob still alive after
      // `directory/` matches some path under it.
      return runGlob(tokens, directory.endsWith("/") ? directory : `${directory}/`) !== "dead";
    },
  };
}

/**
 * Runs `path` through `tokens` one character at a time, keeping the set of
 * token positions reached (`states[i]`: the first `i` tokens match what has
 * been read): work bounded by the path's length times the glob's. The path
 * matches when its end is reached with every token used; it is a prefix of a
 * match ("alive") when some position is still reached, else "dead".
 */
function runGlob(tokens: readonly GlobToken[], path: string): "match" | "alive" | "dead" {
  let states = new Uint8Array(tokens.length + 1);
  let next = new Uint8Array(tokens.length + 1);
  states[0] = 1;
  skipEmpty(tokens, states);
  for (const char of path) {
    next.fill(0);
    let alive = false;
    for (let index = 0; index < tokens.length; index++) {
      if (states[index] === 0) continue;
      const token = tokens[index];
      const slash = char === "/";
      if (token.kind === "literal" ? token.char === char : token.kind === "one" && !slash) {
        next[index + 1] = 1;
      } else if (token.kind === "any" || (token.kind === "star" && !slash)) {
        next[index] = 1;
      } else continue;
      alive = true;
    }
    if (!alive) return "dead";
    skipEmpty(tokens, next);
    [states, next] = [next, states];
  }
  return states[tokens.length] === 1 ? "match" : "alive";
}

/**
 * Adds the positions reached by matching nothing: past `*`, `**` and an
 * optional run (every skip leads forward, so one pass in order finds them all).
 */
function skipEmpty(tokens: readonly GlobToken[], states: Uint8Array): void {
  for (let index = 0; index < tokens.length; index++) {
    if (states[index] === 0) continue;
    const token = tokens[index];
    if (token.kind === "star" || token.kind === "any") states[index + 1] = 1;
    if (token.kind === "optional") states[index + 1] = states[index + 1 + token.skip] = 1;
  }
}
