/**
 * What a permission request is about, in svc's terms (D28): each adapter maps
 * its agent's request shape (claude's `can_use_tool` input, codex's approval
 * params, an ACP tool call) to a kind, the shell command and the paths, which
 * approval rules match on.
 */
import type { RequestTarget, ToolKind } from "../policy/approval_rules.ts";
import { type Json, obj, str } from "./json_fields.ts";
import { codexProfile } from "./codex_permissions.ts";

export type { RequestTarget };

/** Claude Code's tools by kind. */
const CLAUDE_KINDS: Readonly<Record<string, ToolKind>> = {
  Bash: "shell",
  Edit: "edit",
  MultiEdit: "edit",
  Write: "edit",
  NotebookEdit: "edit",
  Read: "read",
  Glob: "read",
  Grep: "read",
  LS: "read",
  WebFetch: "fetch",
  WebSearch: "fetch",
};

/** A claude `can_use_tool` request: `tool_name` and its `input`. */
export function claudeTarget(tool: string, input: Json): RequestTarget {
  const kind = CLAUDE_KINDS[tool] ?? "other";
  const path = str(input.file_path) ?? str(input.notebook_path) ??
    (kind === "read" ? str(input.path) : null);
  return {
    kind,
    command: kind === "shell" ? str(input.command) ?? "" : null,
    paths: path === null ? [] : [path],
  };
}

/**
 * A codex approval: a command (codex 0.169 sends a string, `/bin/bash -lc
 * '…'`, which the matcher reads through), or a file change whose paths its
 * item listed (plus any root it asks write access to).
 */
export function codexTarget(method: string, params: Json, files: string[]): RequestTarget {
  if (method === "item/commandExecution/requestApproval") {
    const command = params.command;
    const text = typeof command === "string"
      ? command
      : Array.isArray(command) && command.every((word) => typeof word === "string")
      ? command.map(shellQuote).join(" ")
      : "";
    return { kind: "shell", command: text, paths: [] };
  }
  if (method === "item/fileChange/requestApproval") {
    const root = str(params.grantRoot);
    return { kind: "edit", command: null, paths: root === null ? files : [...files, root] };
  }
  if (method === "item/permissions/requestApproval") {
    return { kind: "other", command: null, paths: [], profile: codexProfile(params.permissions) };
  }
  return { kind: "other", command: null, paths: [] };
}

/** ACP tool kinds (`execute`, `edit`…) by svc kind. */
const ACP_KINDS: Readonly<Record<string, ToolKind>> = {
  execute: "shell",
  edit: "edit",
  delete: "edit",
  move: "edit",
  read: "read",
  search: "read",
  fetch: "fetch",
};

/**
 * An ACP tool call: its kind, the command of an `execute` call (`rawInput.
 * command`; gemini sends no raw input and puts the command in the title), and
 * its locations, diff paths and path-like raw inputs.
 */
export function acpTarget(toolCall: Json, rawInput: unknown): RequestTarget {
  const kind = ACP_KINDS[str(toolCall.kind) ?? ""] ?? "other";
  const input = obj(rawInput) ?? {};
  const paths = new Set<string>();
  if (Array.isArray(toolCall.locations)) {
    for (const location of toolCall.locations) {
      const path = str(obj(location)?.path);
      if (path) paths.add(path);
    }
  }
  if (Array.isArray(toolCall.content)) {
    for (const block of toolCall.content) {
      const path = obj(block)?.type === "diff" ? str(obj(block)?.path) : null;
      if (path) paths.add(path);
    }
  }
  for (const key of ["filePath", "filepath", "file_path", "path", "absolute_path"]) {
    const path = str(input[key]);
    if (path && kind !== "shell") paths.add(path);
  }
  const command = kind === "shell"
    ? str(input.command) ?? (input.command === undefined ? str(toolCall.title) : null) ?? ""
    : null;
  return { kind, command, paths: [...paths] };
}

function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}
