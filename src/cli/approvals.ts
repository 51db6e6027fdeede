/**
 * `svc approvals` and `svc approve` (D18): the owner's side of the approval
 * broker, through `POST /actions` (`svc.sessions.approvals`,
 * `svc.sessions.approve`).
 */
import type { PendingApproval } from "../approvals/broker.ts";
import { act } from "./action.ts";
import { CLIENT_OPTIONS, parseCommandArgs } from "./args.ts";
import { type Command, UsageError } from "./command.ts";
import { withClient } from "./connect.ts";
import { oneLine, printResponse, table } from "./output.ts";
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
export function approvalsTable(
  approvals: Array<
    Pick<PendingApproval, "sessionId" | "requestId" | "tool" | "summary" | "expiresAt"> & {
      requestedAt?: string;
    }
  >,
  nowMs: number,
): string {
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

Lists pending permission requests of every live session (or one), oldest first.
Answer one with "svc approve SESSION REQUEST". Unanswered requests are denied
after approvals.timeoutSeconds (default 600). See docs/cli.md.`,
  async run(args, io) {
    const { values } = parseCommandArgs(args, { ...CLIENT_OPTIONS, session: { type: "string" } });
    return await withClient(values.home, io, async (client) => {
      const response = await act<{ approvals: PendingApproval[] }>(
        client,
        "svc.sessions.approvals",
        values.session === undefined ? {} : { sessionId: values.session },
      );
      return printResponse(
        io,
        response,
        values.json,
        (body) => approvalsTable(body.result.approvals, Date.now()),
      );
    });
  },
};

/** `svc approve SESSION REQUEST [--deny] [--remember] [--message TEXT] [--json]`. */
export const approveCommand: Command = {
  name: "approve",
  summary: "Allow (or --deny) an agent's permission request",
  usage:
    `Usage: svc approve SESSION REQUEST [--deny] [--remember] [--message TEXT] [--home DIR] [--json]

Answers one pending permission request (see "svc approvals"): allow by default,
--deny to refuse. --remember allows the same for the rest of the session where
the agent offers it. --message is shown to the agent with a denial. Prints what
was answered, e.g. "Allowed Bash: touch x (ses_… req_1)". Exit 1 when the
request is no longer pending or unknown.`,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(args, {
      ...CLIENT_OPTIONS,
      deny: { type: "boolean" },
      remember: { type: "boolean" },
      message: { type: "string" },
    }, { positionals: 2 });
    const [sessionId, requestId] = positionals;
    if (sessionId === undefined) throw new UsageError("Missing session ID");
    if (requestId === undefined) throw new UsageError("Missing request ID");
    if (values.remember && values.deny) throw new UsageError("--remember only goes with allow");
    const decision = values.deny ? "deny" : "allow";
    const verb = values.deny ? "Denied" : "Allowed";
    return await withClient(values.home, io, async (client) => {
      // The request's tool and summary, for the confirmation; the answer below decides the rest.
      const listed = await act<{ approvals: PendingApproval[] }>(
        client,
        "svc.sessions.approvals",
        { sessionId },
      );
      const request = listed.ok
        ? listed.body.result.approvals.find((approval) => approval.requestId === requestId)
        : undefined;
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
