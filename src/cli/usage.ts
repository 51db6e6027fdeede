/** `svc usage [--since DATE] [--by harness|routine|day] [--json]` (D22). */
import type { UsageTotal } from "../sessions/usage_totals.ts";
import { CLIENT_OPTIONS, parseCommandArgs } from "./args.ts";
import type { Command } from "./command.ts";
import { withClient } from "./connect.ts";
import { costText, printResponse, table } from "./output.ts";

interface UsageAnswer {
  by: string;
  since: string | null;
  groups: UsageTotal[];
  total: UsageTotal;
}

export const usageCommand: Command = {
  name: "usage",
  summary: "Token and cost totals of the sessions",
  usage: `Usage: svc usage [--since DATE] [--by harness|routine|day] [--home DIR] [--json]

Totals of what the harnesses reported (tokens, cost) over the sessions created
since DATE (YYYY-MM-DD in this machine's time zone, or an RFC 3339 instant;
default: all), grouped by harness (default), routine or day. A figure no
session reported shows "-", never 0. See docs/cli.md.`,
  async run(args, io) {
    const { values } = parseCommandArgs(args, {
      ...CLIENT_OPTIONS,
      since: { type: "string" },
      by: { type: "string" },
    });
    const query = new URLSearchParams();
    if (values.since !== undefined) query.set("since", values.since);
    if (values.by !== undefined) query.set("by", values.by);
    return await withClient(values.home, io, async (client) => {
      const response = await client.get<UsageAnswer>(`/usage${query.size ? `?${query}` : ""}`);
      return printResponse(io, response, values.json, usageTable);
    });
  },
};

/** The totals as a table, the total last (pure). */
export function usageTable(answer: UsageAnswer): string {
  const figure = (value: number | null) => value === null ? "-" : String(value);
  const cost = costText;
  const row = (name: string, total: UsageTotal) => [
    name,
    String(total.sessions),
    figure(total.inputTokens),
    figure(total.cachedInputTokens),
    figure(total.outputTokens),
    cost(total.costUsd),
  ];
  const label = answer.by === "routine" ? "(no routine)" : "-";
  return table(
    [answer.by.toUpperCase(), "SESSIONS", "INPUT", "CACHED", "OUTPUT", "COST"],
    [...answer.groups.map((g) => row(g.key ?? label, g)), row("total", answer.total)],
  );
}
