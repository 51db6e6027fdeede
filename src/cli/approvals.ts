/**
 * `svc approvals` and `svc approve` (D18): the owner's side of the approval
 * broker, through `POST /actions` (`svc.sessions.approvals`,
 * `svc.sessions.approve`); `svc approvals rules` and `svc approvals log`
 * (D28): the standing rules and every decision made.
 */
import type { PendingApproval } from "../approvals/broker.ts";
import type { ApprovalRule } from "../policy/approval_rules.ts";
import type { ApprovalLogEntry } from "../store/approval_rules_store.ts";
import type { SvcClient } from "../client/client.ts";
import type { Io } from "./command.ts";
import { act } from "./action.ts";
import { CLIENT_OPTIONS, parseCommandArgs, requireId } from "./args.ts";
import { resolve } from "node:path";
import { describeRule } from "../policy/approval_rules.ts";
import { type Command, EXIT, UsageError } from "./command.ts";
import {
  AmbiguousIdError,
  MAX_LISTED_MATCHES,
  pendingRequestsMatching,
  resolveRuleId,
  resolveSessionId,
} from "./id_prefix.ts";
import { withClient } from "./connect.ts";
import { printAllContexts } from "./all_contexts.ts";
import { oneLine, printList, printResponse, table, TIME_OPTIONS, timeText } from "./output.ts";
import { terminalSafe } from "./terminal_text.ts";

/**
 * What a request asks, on one line and terminal-safe: its summary
 * ("Bash: touch x"), prefixed with the tool when the summary does not name it.
 */
export function describeRequest(request: Pick<PendingApproval, "tool" | "summary">): string {
  const tool = terminalSafe(oneLine(request.tool)).trim();
  const text = terminalSafe(oneLine(request.summary)).trim();
  if (text === "") return tool;
  return tool === "" || text.startsWith(tool) ? text : `${tool}: ${text}`;
}

/** "in 4m 10s" until `expiresAt`, or "now" when it has passed. */
function expiresIn(expiresAt: string, nowMs: number): string {
  const seconds = Math.max(0, Math.round((Date.parse(expiresAt) - nowMs) / 1000));
  if (seconds === 0) return "now";
  const minutes = Math.floor(seconds / 60);
  return minutes > 0 ? `in ${minutes}m ${seconds % 60}s` : `in ${seconds}s`;
}

type ListedApproval =
  & Pick<PendingApproval, "sessionId" | "requestId" | "tool" | "summary" | "expiresAt">
  & { requestedAt?: string };

const APPROVAL_HEADERS = ["SESSION", "REQUEST", "TOOL", "EXPIRES", "SUMMARY"];

function approvalRow(approval: ListedApproval, nowMs: number): string[] {
  return [
    approval.sessionId,
    approval.requestId,
    approval.tool,
    expiresIn(approval.expiresAt, nowMs),
    approval.summary,
  ];
}

/** The pending list as a table (pure: the time is passed in). */
export function approvalsTable(approvals: ListedApproval[], nowMs: number): string {
  if (approvals.length === 0) return "No pending approvals";
  return table(APPROVAL_HEADERS, approvals.map((approval) => approvalRow(approval, nowMs)));
}

/** The rules as a table (pure). */
export function rulesTable(rules: ApprovalRule[]): string {
  if (rules.length === 0) return "No approval rules";
  return table(
    ["ID", "DECISION", "SCOPE", "TOOL", "COMMAND", "PATH", "NOTE"],
    rules.map((rule) =>
      [
        rule.id,
        rule.decision,
        rule.sessionId !== undefined
          ? `session ${rule.sessionId}`
          : rule.projectRoot !== undefined
          ? `project ${rule.projectRoot}`
          : "everywhere",
        [rule.tool, rule.harness && `(${rule.harness})`].filter(Boolean).join(" ") || "-",
        rule.command ? rule.command.map((word) => JSON.stringify(word)).join(" ") : "-",
        rule.path ?? "-",
        rule.note ?? "",
      ].map((cell) => terminalSafe(oneLine(cell)))
    ),
  );
}

/** The approval log as a table (pure); times in the local zone, or in UTC when `utc`. */
export function logTable(entries: ApprovalLogEntry[], utc?: boolean): string {
  if (entries.length === 0) return "No decisions";
  return table(
    ["TIME", "SESSION", "DECISION", "BY", "TOOL", "COMMAND / PATHS"],
    entries.map((entry) =>
      [
        timeText(entry.at, utc),
        entry.sessionId,
        entry.decision,
        entry.by === "rule" && entry.ruleId
          ? `rule ${entry.ruleId}`
          : entry.device
          ? `${entry.by} via ${entry.device.name}`
          : entry.by,
        entry.tool ?? "-",
        entry.command ?? (entry.paths.join(" ") || entry.summary || ""),
      ].map((cell) => terminalSafe(oneLine(cell)))
    ),
  );
}

const RULES_USAGE = `Usage: svc approvals rules [list] [--home DIR] [--json]
       svc approvals rules add (--allow | --deny) [--tool NAME] [--command WORD]...
           [--path GLOB] [--session ID] [--project DIR] [--harness ID] [--note TEXT]
       svc approvals rules rm ID

Standing answers to agents' permission requests (D28), checked before anyone
is asked; deny beats allow, and a rule applies only where every field it sets
matches. --command takes the argv prefix one word at a time (--command npm
--command test); a command that chains or substitutes never matches an allow
rule. --tool is the agent's tool name (Bash) or svc's kind: shell, edit, read,
fetch, other. --path is a glob (relative globs start at the project root).
See docs/approvals.md.`;

async function rulesCommand(args: string[], io: Io): Promise<number> {
  const [verb = "list", ...rest] = args[0]?.startsWith("-") ? ["list", ...args] : args;
  if (verb === "list" || verb === "ls") {
    const { values } = parseCommandArgs(rest, CLIENT_OPTIONS);
    return await withClient(values.home, io, async (client) => {
      const response = await client.get<{ rules: ApprovalRule[] }>("/approval-rules");
      return printResponse(io, response, values.json, (body) => rulesTable(body.rules));
    });
  }
  if (verb === "add") {
    const { values } = parseCommandArgs(rest, {
      ...CLIENT_OPTIONS,
      allow: { type: "boolean" },
      deny: { type: "boolean" },
      tool: { type: "string" },
      command: { type: "string", multiple: true },
      path: { type: "string" },
      session: { type: "string" },
      project: { type: "string" },
      harness: { type: "string" },
      note: { type: "string" },
    });
    if (values.allow === values.deny) throw new UsageError("Give exactly one of --allow, --deny");
    const fields = {
      decision: values.allow ? "allow" : "deny",
      ...(values.tool === undefined ? {} : { tool: values.tool }),
      ...(values.command === undefined ? {} : { command: values.command }),
      ...(values.path === undefined ? {} : { path: values.path }),
      ...(values.project === undefined ? {} : { projectRoot: resolve(values.project) }),
      ...(values.harness === undefined ? {} : { harness: values.harness }),
      ...(values.note === undefined ? {} : { note: values.note }),
    };
    return await withClient(values.home, io, async (client) => {
      const response = await act<{ rule: ApprovalRule }>(client, "svc.approvals.rules.add", {
        ...fields,
        ...(values.session !== undefined &&
          { sessionId: await resolveSessionId(client, values.session) }),
      });
      return printResponse(
        io,
        response,
        values.json,
        (body) => `Added ${body.result.rule.id}: ${describeRule(body.result.rule)}`,
      );
    });
  }
  if (verb === "rm" || verb === "remove") {
    const { values, positionals } = parseCommandArgs(rest, CLIENT_OPTIONS, { positionals: 1 });
    const ruleText = requireId(positionals, "rule");
    return await withClient(values.home, io, async (client) => {
      const id = await resolveRuleId(client, ruleText);
      const response = await act<{ id: string }>(client, "svc.approvals.rules.remove", { id });
      return printResponse(io, response, values.json, () => `Removed ${id}`);
    });
  }
  throw new UsageError(`Unknown "svc approvals rules" command "${verb}"\n${RULES_USAGE}`);
}

/** Reads the log from `since` on, following `nextCursor` up to `limit` entries. */
async function readLog(
  client: SvcClient,
  query: { since?: string; sessionId?: string; limit: number },
) {
  const entries: ApprovalLogEntry[] = [];
  let cursor: string | null = null;
  for (;;) {
    const params = new URLSearchParams();
    if (query.since !== undefined) params.set("since", query.since);
    if (query.sessionId !== undefined) params.set("sessionId", query.sessionId);
    if (cursor !== null) params.set("cursor", cursor);
    params.set("limit", String(Math.min(1000, query.limit - entries.length)));
    const response = await client.get<{ entries: ApprovalLogEntry[]; nextCursor: string | null }>(
      `/approvals/log?${params}`,
    );
    if (!response.ok) return { response, entries };
    entries.push(...response.body.entries);
    cursor = response.body.nextCursor;
    if (cursor === null || entries.length >= query.limit) return { response, entries };
  }
}

async function logCommand(args: string[], io: Io): Promise<number> {
  const { values } = parseCommandArgs(args, {
    ...CLIENT_OPTIONS,
    ...TIME_OPTIONS,
    since: { type: "string" },
    session: { type: "string" },
    limit: { type: "string" },
  });
  const limit = values.limit === undefined ? 100 : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100_000) {
    throw new UsageError("--limit takes a whole number from 1 to 100000");
  }
  return await withClient(values.home, io, async (client) => {
    const { response, entries } = await readLog(client, {
      ...(values.since === undefined ? {} : { since: values.since }),
      ...(values.session === undefined
        ? {}
        : { sessionId: await resolveSessionId(client, values.session) }),
      limit,
    });
    const body = response.ok ? { entries } : response.body;
    return printResponse(
      io,
      { ...response, body } as typeof response,
      values.json,
      () => logTable(entries, values.utc),
    );
  });
}

/** `svc approvals [--session ID] [--json]`, `svc approvals rules …`, `svc approvals log …`. */
export const approvalsCommand: Command = {
  name: "approvals",
  summary: "List agent permission requests waiting for you; rules and the decision log",
  usage: `Usage: svc approvals [--session ID | --all-contexts] [--home DIR] [--json]
       svc approvals rules [list|add|rm] ...
       svc approvals log [--since TIME] [--session ID] [--limit N] [--utc] [--home DIR] [--json]

Lists pending permission requests of every live session (or one), oldest first;
--json prints them as an array. Answer one with "svc approve SESSION REQUEST"
(any unique prefix of each). --all-contexts lists those of "local" and of
every context ("svc context") in one table with a CONTEXT column; answer one
with "svc approve --context NAME …". Unanswered requests are denied after
approvals.timeoutSeconds (default 600). "rules" lists, adds and removes
standing approval rules (below); "log" lists every decision with who or what
made it (owner, rule, policy, timeout, ended). See docs/cli.md.

${RULES_USAGE}`,
  async run(args, io) {
    if (args[0] === "rules") return await rulesCommand(args.slice(1), io);
    if (args[0] === "log") return await logCommand(args.slice(1), io);
    const { values } = parseCommandArgs(args, {
      ...CLIENT_OPTIONS,
      session: { type: "string" },
      "all-contexts": { type: "boolean" },
    });
    if (values["all-contexts"]) {
      if (values.session !== undefined) {
        throw new UsageError("--session names one context's session");
      }
      const nowMs = Date.now();
      return await printAllContexts(io, values, {
        read: (client) =>
          act<{ approvals: PendingApproval[] }>(client, "svc.sessions.approvals", {}),
        items: (body) => body.result.approvals,
        headers: APPROVAL_HEADERS,
        row: (approval) => approvalRow(approval, nowMs),
      });
    }
    return await withClient(values.home, io, async (client) => {
      const response = await act<{ approvals: PendingApproval[] }>(
        client,
        "svc.sessions.approvals",
        values.session === undefined
          ? {}
          : { sessionId: await resolveSessionId(client, values.session) },
      );
      return printList(
        io,
        response,
        values.json,
        (body) => body.result.approvals,
        (body) => approvalsTable(body.result.approvals, Date.now()),
      );
    });
  },
};

/** `svc approve [SESSION] [REQUEST] [--deny] [--remember] [--message TEXT] [--json]`. */
export const approveCommand: Command = {
  name: "approve",
  summary: "Allow (or --deny) an agent's permission request",
  usage:
    `Usage: svc approve [SESSION] [REQUEST] [--deny] [--remember] [--message TEXT] [--home DIR] [--json]

Answers one pending permission request (see "svc approvals"): allow by default,
--deny to refuse. --remember stores svc's own rule for the rest of the session
(see "svc approvals rules"; D28). --message is shown to the agent with a denial. Prints what
was answered, e.g. "Allowed Bash: touch x (ses_… req_1)".

SESSION and REQUEST may be any unique prefix of their ids. With one argument it
is a request id (prefix), else a session with one pending request. With none,
the only pending request is answered; when several wait, a terminal lets you
pick one, otherwise they are listed (exit 2). Exit 1 when the request is no
longer pending or unknown.`,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(args, {
      ...CLIENT_OPTIONS,
      deny: { type: "boolean" },
      remember: { type: "boolean" },
      message: { type: "string" },
    }, { positionals: 2 });
    const [sessionText, requestText] = positionals;
    if (values.remember && values.deny) throw new UsageError("--remember only goes with allow");
    const decision = values.deny ? "deny" : "allow";
    const verb = values.deny ? "Denied" : "Allowed";
    return await withClient(values.home, io, async (client) => {
      const chosen = await chooseRequest(client, io, sessionText, requestText);
      if (typeof chosen === "number") return chosen;
      const { sessionId, requestId, request } = chosen;
      const response = await act<{ decision: string }>(client, "svc.sessions.approve", {
        sessionId,
        requestId,
        decision,
        ...(values.remember ? { remember: true } : {}),
        ...(values.message === undefined ? {} : { message: values.message }),
      });
      return printResponse(
        io,
        response,
        values.json,
        () =>
          `${verb} ${request ? describeRequest(request) : "request"} (${sessionId} ${requestId})`,
      );
    });
  },
};

/**
 * The request `svc approve` answers (issue 27 item 9), from what was typed:
 * a unique match of the pending ones; with both ids typed and nothing
 * pending matching, the ids as typed (the daemon then says
 * `approval_not_pending` or `approval_not_found`). An exit code when there
 * is nothing to answer or the owner picked nothing.
 */
async function chooseRequest(
  client: SvcClient,
  io: Io,
  sessionText: string | undefined,
  requestText: string | undefined,
): Promise<{ sessionId: string; requestId: string; request?: PendingApproval } | number> {
  const matches = await pendingRequestsMatching(client, sessionText, requestText);
  if (matches.length === 1) {
    return {
      sessionId: matches[0].sessionId,
      requestId: matches[0].requestId,
      request: matches[0],
    };
  }
  if (matches.length === 0) {
    if (sessionText !== undefined && requestText !== undefined) {
      return { sessionId: await resolveSessionId(client, sessionText), requestId: requestText };
    }
    io.err(
      sessionText === undefined ? "No pending approvals" : terminalSafe(
        `approval_not_found: No pending permission request matches "${sessionText}"`,
      ),
    );
    return EXIT.refused;
  }
  if (sessionText === undefined && Deno.stdin.isTerminal() && Deno.stderr.isTerminal()) {
    return await pickOnTerminal(io, matches);
  }
  const listed = matches.map((request) =>
    `${request.sessionId} ${request.requestId}  ${describeRequest(request)}`
  );
  throw new AmbiguousIdError(
    "request",
    requestText ?? sessionText ?? "",
    listed.slice(0, MAX_LISTED_MATCHES),
    listed.length > MAX_LISTED_MATCHES,
  );
}

/** Lists `requests` numbered on stderr and reads the owner's choice from the terminal. */
async function pickOnTerminal(
  io: Io,
  requests: PendingApproval[],
): Promise<{ sessionId: string; requestId: string; request: PendingApproval } | number> {
  io.err(`${requests.length} permission requests are waiting:`);
  requests.forEach((request, index) =>
    io.err(
      terminalSafe(`  ${index + 1}) ${request.sessionId} ${request.requestId}  `) +
        describeRequest(request),
    )
  );
  io.writeErr(`Answer which one? [1-${requests.length}, Enter: none] `);
  const line = await readLine();
  const index = Number(line.trim()) - 1;
  if (!Number.isInteger(index) || index < 0 || index >= requests.length) {
    io.err("Nothing answered");
    return EXIT.refused;
  }
  const request = requests[index];
  return { sessionId: request.sessionId, requestId: request.requestId, request };
}

/** One line typed on stdin (without its newline); "" at end of input. */
async function readLine(): Promise<string> {
  const reader = Deno.stdin.readable.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  try {
    while (!text.includes("\n")) {
      const { done, value } = await reader.read();
      if (done) break;
      text += value;
    }
  } finally {
    reader.releaseLock();
  }
  return text.split("\n", 1)[0];
}
