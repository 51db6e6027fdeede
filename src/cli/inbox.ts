/** `svc inbox [--unread]`, `svc inbox show RUN`, `svc inbox read RUN` (D21). */
import type { InboxEntry } from "../automations/inbox.ts";
import type { RunRecord } from "../store/runs_store.ts";
import { act } from "./action.ts";
import { CLIENT_OPTIONS, parseCommandArgs, requireId } from "./args.ts";
import { type Command, type Io } from "./command.ts";
import { withClient } from "./connect.ts";
import { printList, printResponse, table, TIME_OPTIONS, timeText } from "./output.ts";
import { resolveRunId } from "./id_prefix.ts";
import { markdownForTerminal } from "./markdown_text.ts";

export const inboxCommand: Command = {
  name: "inbox",
  summary: "Read the results of routine runs",
  usage: `Usage: svc inbox [--unread] [--limit N] [--utc] [--home DIR] [--json]
       svc inbox show RUN [--utc] [--home DIR] [--json]
       svc inbox read RUN [--utc] [--home DIR] [--json]

Lists the results routines wrote (outputTarget inbox or file), newest first;
--unread only those not yet read. "show" prints a result's Markdown, its tables
as aligned columns and its times in the local time zone (--utc: in UTC); "read"
prints it and marks it read. See docs/automations.md.`,
  run(args, io) {
    if (args[0] === "show" || args[0] === "read") {
      return showResult(args.slice(1), io, args[0] === "read");
    }
    return listInbox(args, io);
  },
};

/** The inbox as a table (pure). */
export function inboxTable(entries: InboxEntry[], utc?: boolean): string {
  if (entries.length === 0) return "No results";
  return table(
    ["", "RUN", "ROUTINE", "STATUS", "ENDED", "RESULT"],
    entries.map((entry) => [
      entry.readAt === null ? "*" : "",
      entry.runId,
      entry.routineId,
      entry.status,
      timeText(entry.endedAt, utc),
      entry.headline ?? "",
    ]),
  );
}

async function listInbox(args: string[], io: Io): Promise<number> {
  const { values } = parseCommandArgs(args, {
    ...CLIENT_OPTIONS,
    ...TIME_OPTIONS,
    unread: { type: "boolean" },
    limit: { type: "string" },
  });
  return await withClient(values.home, io, async (client) => {
    const response = await act<{ results: InboxEntry[] }>(client, "svc.automations.inbox", {
      ...(values.unread && { unread: true }),
      ...(values.limit !== undefined && { limit: Number(values.limit) }),
    });
    return printList(
      io,
      response,
      values.json,
      ({ result }) => result.results,
      ({ result }) => inboxTable(result.results, values.utc),
    );
  });
}

async function showResult(args: string[], io: Io, markRead: boolean): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, { ...CLIENT_OPTIONS, ...TIME_OPTIONS }, {
    positionals: 1,
  });
  const runText = requireId(positionals, "run");
  return await withClient(values.home, io, async (client) => {
    const runId = await resolveRunId(client, runText);
    const response = await act<{ run: RunRecord; markdown: string }>(
      client,
      "svc.automations.result",
      { runId, ...(markRead && { markRead: true }) },
    );
    return printResponse(
      io,
      response,
      values.json,
      ({ result }) => markdownForTerminal(result.markdown.trimEnd(), values.utc),
    );
  });
}
