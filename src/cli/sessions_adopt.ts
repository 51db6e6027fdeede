/**
 * `svc sessions discover` and `svc sessions adopt` (D33): the agents' own
 * sessions, and one of them made a svc session. Every cell an agent wrote
 * (a title, a path) is printed through terminalSafe (output.ts `table`).
 */
import type { SessionRecord } from "../store/sessions_store.ts";
import { CLIENT_OPTIONS, parseCommandArgs } from "./args.ts";
import { type Io, UsageError } from "./command.ts";
import { withClient } from "./connect.ts";
import { integerOption } from "./events.ts";
import { printResponse, table, TIME_OPTIONS, timeText } from "./output.ts";
import { terminalSafe } from "./terminal_text.ts";
import { resolveCliPath } from "./working_dir.ts";

/** One row of `GET /sessions/discover`. */
interface DiscoveredRow {
  agentSessionId: string;
  harness: string;
  cwd: string | null;
  title: string;
  lastActivityAt: string | null;
}

interface DiscoverAnswer {
  sessions: DiscoveredRow[];
  unavailable: Array<{ harness: string; code: string; message: string }>;
}

/** `svc sessions discover [--harness H] [--cwd DIR] [--limit N] [--utc]`. */
export async function discoverSessions(args: string[], io: Io): Promise<number> {
  const { values } = parseCommandArgs(args, {
    ...CLIENT_OPTIONS,
    ...TIME_OPTIONS,
    harness: { type: "string" },
    cwd: { type: "string" },
    limit: { type: "string" },
  });
  const query = new URLSearchParams();
  if (values.harness !== undefined) query.set("harness", values.harness);
  if (values.cwd !== undefined) query.set("cwd", resolveCliPath(io, values.cwd));
  if (values.limit !== undefined) {
    query.set("limit", String(integerOption(values.limit, "--limit", 1)));
  }
  const search = query.size > 0 ? `?${query}` : "";
  return await withClient(values.home, io, async (client) => {
    const response = await client.get<DiscoverAnswer>(`/sessions/discover${search}`);
    if (response.ok && !values.json) {
      for (const { harness, message } of response.body.unavailable) {
        io.err(terminalSafe(`${harness}: ${message}`));
      }
    }
    return printResponse(
      io,
      response,
      values.json,
      ({ sessions }) =>
        sessions.length === 0 ? "No sessions found" : table(
          ["HARNESS", "AGENT SESSION", "LAST ACTIVITY", "CWD", "TITLE"],
          sessions.map((s) => [
            s.harness,
            s.agentSessionId,
            timeText(s.lastActivityAt, values.utc),
            s.cwd ?? "-",
            s.title || "-",
          ]),
        ),
    );
  });
}

/** `svc sessions adopt --harness H --agent-session ID [--cwd DIR] [--model M] [--title T]`. */
export async function adoptSession(args: string[], io: Io): Promise<number> {
  const { values } = parseCommandArgs(args, {
    ...CLIENT_OPTIONS,
    harness: { type: "string" },
    "agent-session": { type: "string" },
    cwd: { type: "string" },
    model: { type: "string" },
    title: { type: "string" },
    approvals: { type: "string" },
  });
  if (values.harness === undefined) throw new UsageError('Missing "--harness ID"');
  const agentSessionId = values["agent-session"];
  if (agentSessionId === undefined) throw new UsageError('Missing "--agent-session ID"');
  const request = {
    harness: values.harness,
    agentSessionId,
    ...(values.cwd !== undefined && { cwd: resolveCliPath(io, values.cwd) }),
    ...(values.model !== undefined && { model: values.model }),
    ...(values.title !== undefined && { title: values.title }),
    ...(values.approvals !== undefined && { approvals: values.approvals }),
  };
  return await withClient(values.home, io, async (client) => {
    const response = await client.post<SessionRecord>("/sessions/adopt", request);
    return printResponse(
      io,
      response,
      values.json,
      (session) => `Adopted as ${session.id}, running again: "svc chat ${session.id}"`,
    );
  });
}
