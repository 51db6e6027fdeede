/**
 * Standing approval rules (D28): which stored rule, if any, answers a
 * permission request before anyone is asked. Deny beats allow; a rule
 * applies only where every field it sets matches. Allow rules are strict —
 * a command must be one simple command whose argv starts with the rule's,
 * every path must lie inside the session's project root and match the glob,
 * and a command svc could not read in full is never allowed; deny rules are
 * broad — a denied program anywhere in a chain, substitution or wrapper (or
 * anywhere among an unread command's words) is denied, and any one path
 * matching denies. See docs/approvals.md.
 */
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { compileGlob } from "./path_glob.ts";
import { basename } from "./command_wrappers.ts";
import { parseCommand, type ParsedCommand } from "./shell_command.ts";
import { type PermissionProfile, profileAllows } from "./permission_profile.ts";

export {
  alwaysChoices,
  describeRule,
  proposeRule,
  RULE_SCOPES,
  type RuleScope,
  type RuleSource,
} from "./rule_proposal.ts";

/** A stored rule (D28). */
export interface ApprovalRule {
  id: string;
  decision: "allow" | "deny";
  sessionId?: string;
  harness?: string;
  projectRoot?: string;
  /** The agent's tool name (`Bash`, `run_shell_command`…) or svc's kind (`shell`, `edit`…). */
  tool?: string;
  /** An argv prefix. */
  command?: string[];
  /** A glob over absolute paths; relative globs are taken from the session's project root. */
  path?: string;
  /** For a permissions request: what it grants (issue 33); see permission_profile.ts. */
  profile?: PermissionProfile;
  createdAt: string;
  note?: string;
}

/** What svc calls a tool, whatever the agent calls it. */
export const TOOL_KINDS = ["shell", "edit", "read", "fetch", "other"] as const;
export type ToolKind = typeof TOOL_KINDS[number];

/** Kinds of request that are about files: with no path given, their paths are unknown. */
const FILE_KINDS: ReadonlySet<ToolKind> = new Set(["edit", "read"]);

/** What a permission request is about, as its adapter maps it. */
export interface RequestTarget {
  kind: ToolKind;
  /** The shell command text, for shell requests. */
  command: string | null;
  /** Paths it reads or writes, as the agent gave them (relative to the cwd or absolute). */
  paths: string[];
  /** What a permissions request asks for (paths as the agent gave them). */
  profile?: PermissionProfile;
}

/** The session a request comes from. */
export interface RuleSession {
  sessionId: string;
  harness: string;
  projectRoot: string;
  cwd: string;
  /**
   * The repository's root when the session runs in an svc worktree (D20): its
   * project for rules, so "this project" covers the checkout and every
   * isolated run of it (issue 38 item 4). Paths are still held to `projectRoot`.
   */
  repositoryRoot?: string | null;
}

/** Where a "this project" rule made in `session` applies: its repository's root, else its root. */
export function ruleProject(session: Omit<RuleSession, "sessionId">): string {
  return session.repositoryRoot ?? session.projectRoot;
}

/** One request, prepared for matching (parsed once, paths resolved once). */
export interface PreparedRequest {
  tool: string;
  kind: ToolKind;
  command: ParsedCommand | null;
  /** Normalised absolute paths (symlinks resolved where the path, or a parent, exists). */
  paths: string[];
  /**
   * False when any path lies outside the session's project root, or when an
   * edit or a read names no path at all (where it writes or reads is unknown).
   */
  insideProject: boolean;
  projectRoot: string;
  /** The session's project for rules (`ruleProject`), normalised. */
  project: string;
  /** A permissions request's profile, its paths normalised and absolute; else null. */
  profile: PermissionProfile | null;
}

/** Parses the command and resolves the paths of one request. */
export async function prepareRequest(
  tool: string,
  target: RequestTarget,
  session: RuleSession,
): Promise<PreparedRequest> {
  const root = await canonicalPath(session.projectRoot);
  const canonical = (list: string[]) =>
    Promise.all(list.map((path) => canonicalPath(resolve(session.cwd, path))));
  const paths = await canonical(target.paths);
  const profile = target.profile === undefined ? null : {
    network: target.profile.network,
    read: await canonical(target.profile.read),
    write: await canonical(target.profile.write),
  };
  return {
    tool,
    kind: target.kind,
    command: target.command === null ? null : await parseCommand(target.command),
    paths,
    insideProject: (paths.length > 0 || !FILE_KINDS.has(target.kind)) &&
      paths.every((path) => isInside(path, root)),
    projectRoot: root,
    project: session.repositoryRoot == null ? root : await canonicalPath(session.repositoryRoot),
    profile,
  };
}

/**
 * The rule that decides `request`, or null: the oldest matching deny rule,
 * else the oldest matching allow rule.
 */
export function matchRules(
  rules: readonly ApprovalRule[],
  request: PreparedRequest,
  session: RuleSession,
): ApprovalRule | null {
  const scoped = rules.filter((rule) => scopeMatches(rule, request, session));
  return scoped.find((rule) => rule.decision === "deny" && denyMatches(rule, request)) ??
    scoped.find((rule) => rule.decision === "allow" && allowMatches(rule, request)) ??
    null;
}

function scopeMatches(rule: ApprovalRule, request: PreparedRequest, session: RuleSession): boolean {
  if (rule.sessionId !== undefined && rule.sessionId !== session.sessionId) return false;
  if (rule.harness !== undefined && rule.harness !== session.harness) return false;
  if (rule.projectRoot !== undefined) {
    const root = resolve(rule.projectRoot);
    const roots = [resolve(session.projectRoot), request.projectRoot, request.project];
    if (!roots.includes(root)) return false;
  }
  if (rule.tool !== undefined && rule.tool !== request.tool && rule.tool !== request.kind) {
    return false;
  }
  return true;
}

function allowMatches(rule: ApprovalRule, request: PreparedRequest): boolean {
  // A path outside the project root never matches an allow rule, whatever the rule says.
  if (!request.insideProject) return false;
  if (!profileAllows(rule.profile, request.profile)) return false;
  // What svc could not read in full is asked, whatever the rule says.
  if (request.command !== null && request.command.unparsed !== null) return false;
  if (rule.command !== undefined) {
    const argv = request.command?.simple ?? null;
    if (argv === null || !startsWith(argv, rule.command)) return false;
  }
  if (rule.path !== undefined) {
    if (request.paths.length === 0) return false;
    const glob = compileGlob(rule.path, request.projectRoot);
    if (!request.paths.every((path) => glob.matches(path))) return false;
  }
  return true;
}

function denyMatches(rule: ApprovalRule, request: PreparedRequest): boolean {
  if (rule.command !== undefined) {
    const commands = request.command?.commands ?? [];
    const wanted = [basename(rule.command[0] ?? ""), ...rule.command.slice(1)];
    const hit = commands.some((argv) =>
      argv.length > 0 && startsWith([basename(argv[0]), ...argv.slice(1)], wanted)
    );
    const unparsed = request.command?.unparsed ?? null;
    if (!hit && (unparsed === null || !scanFinds(unparsed, wanted))) return false;
  }
  if (rule.path !== undefined) {
    const glob = compileGlob(rule.path, request.projectRoot);
    // A profile grants each of its paths and everything under it: `write /` reaches `~/.ssh`.
    const granted = request.profile === null
      ? []
      : [...request.profile.read, ...request.profile.write];
    if (
      !request.paths.some((path) => glob.matches(path)) &&
      !granted.some((path) => glob.reachesUnder(path))
    ) return false;
  }
  return true;
}

/**
 * Whether `words` (a text svc could not read) might run `wanted`: its program
 * as any word, and its other words after it in order, whatever lies between
 * (options, a wrapper's arguments); any reading that could match does. The
 * first place the program appears finds every match a later one would.
 */
function scanFinds(words: readonly string[], wanted: readonly string[]): boolean {
  const start = words.findIndex((word) => basename(word) === wanted[0]);
  if (wanted[0] === "" || start < 0) return false;
  let next = 1;
  for (let index = start + 1; index < words.length && next < wanted.length; index++) {
    if (words[index] === wanted[next]) next++;
  }
  return next === wanted.length;
}

function startsWith(argv: readonly string[], prefix: readonly string[]): boolean {
  return prefix.length > 0 && prefix.length <= argv.length &&
    prefix.every((word, index) => argv[index] === word);
}

/**
 * `path` normalised, with symlinks resolved in its longest existing ancestor;
 * a dangling symlink is followed to where it points (where a write would go).
 */
export async function canonicalPath(path: string, hops = 0): Promise<string> {
  const absolute = resolve(path);
  let existing = absolute;
  const rest: string[] = [];
  for (;;) {
    try {
      const real = await Deno.realPath(existing);
      return rest.length === 0 ? real : join(real, ...rest.reverse());
    } catch {
      const link = await Deno.readLink(existing).catch(() => null);
      if (link !== null && hops < 40) {
        const target = await canonicalPath(resolve(dirname(existing), link), hops + 1);
        return rest.length === 0 ? target : join(target, ...rest.reverse());
      }
      const parent = dirname(existing);
      if (parent === existing) return absolute;
      rest.push(existing.slice(parent.length).replace(/^[/\\]+/, ""));
      existing = parent;
    }
  }
}

/** Whether `path` is `root` or inside it (both normalised and absolute). */
export function isInside(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}
