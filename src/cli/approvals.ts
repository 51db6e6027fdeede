/**
 * `svc approvals` and `svc approve` (D18): the owner's side of the approval
 * broker, through `POST /actions` (`svc.sessions.approvals`,
 * `svc.sessions.approve`).
 */
import type { PendingApproval } from "../approvals/broker.ts";
import { act } from "./action.ts";
import { CLIENT_OPTIONS, parseCommandArgs } from "./args.ts";
import type { SvcClient } from "../client/client.ts";
import { type Command, EXIT, type Io, UsageError } from "./command.ts";
import {
  AmbiguousIdError,
  MAX_LISTED_MATCHES,
  pendingRequestsMatching,
  resolveSessionId,
} from "./id_prefix.ts";
import { withClient } from "./connect.ts";
import { oneLine, printList, printResponse, table } from "./output.ts";
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

/** The pending list as a table (pure: the time is passed in). */
export function approvalsTable(approvals: PendingApproval[], nowMs: number): string {
  if (approvals.length === 0) return "No pending approvals";
  return table(
    ["SESSION", "REQUEST", "TOOL", "EXPIRES", "SUMMARY"],
    approvals.map((a) => [
      a.sessionId,
      a.requestId,
      a.tool,
      expiresIn(a.expiresAt, nowMs),
      a.summary,
    ]),
  );
}

/** `svc approvals [--session ID] [--json]`. */
export const approvalsCommand: Command = {
  name: "approvals",
  summary: "List agent permission requests waiting for you",
  usage: `Usage: svc approvals [--session ID] [--home DIR] [--json]

Lists pending permission requests of every live session (or one), oldest first;
--json prints them as an array.
Answer one with "svc approve SESSION REQUEST" (any unique prefix of each). Unanswered requests are denied
after approvals.timeoutSeconds (default 600). See docs/cli.md.`,
  async run(args, io) {
    const { values } = parseCommandArgs(args, { ...CLIENT_OPTIONS, session: { type: "string" } });
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
--deny to refuse. --remember allows the same for the rest of the session where
the agent offers it. --message is shown to the agent with a denial. Prints what
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
