/** `svc notifications test [--channel NAME|INDEX]` and `svc notifications log` (D31). */
import type { NotificationLogEntry } from "../notify/notification_log.ts";
import { CLIENT_OPTIONS, parseCommandArgs } from "./args.ts";
import { type Command, EXIT, type Io, pickSubcommand, type Subcommand } from "./command.ts";
import { withClient } from "./connect.ts";
import { printResponse, table, TIME_OPTIONS, timeText } from "./output.ts";

export const notificationsCommand: Command = {
  name: "notifications",
  summary: "Test the notification channels and read what was sent",
  usage: `Usage: svc notifications <subcommand> [options]

Subcommands:
  test [--channel NAME|INDEX]
      Sends a test notification to every channel of config.json
      "notifications", or to one (its name, or its place in the list from 1),
      with the same timeout and tries as a real one; prints how each went and
      exits 1 when one failed.
  log [--limit N] [--utc]
      The recent notifications, newest first: time, event, session, channel,
      status and error. Kept in memory since the daemon started.

Every subcommand takes --home DIR, and --json to print the raw response.
See docs/configuration.md (notifications).`,
  run(args, io) {
    const { run, rest } = pickSubcommand(SUBCOMMANDS, args);
    return run(rest, io);
  },
};

const SUBCOMMANDS: Record<string, Subcommand> = { test, log };

/** Log entries as a table (pure). */
export function notificationsTable(entries: NotificationLogEntry[], utc?: boolean): string {
  if (entries.length === 0) return "No notifications";
  return table(
    ["TIME", "EVENT", "SESSION", "CHANNEL", "STATUS", "ERROR"],
    entries.map((entry) => [
      timeText(entry.at, utc),
      entry.event,
      entry.sessionId ?? "-",
      entry.channel,
      entry.status,
      entry.error ?? "",
    ]),
  );
}

async function test(args: string[], io: Io): Promise<number> {
  const { values } = parseCommandArgs(args, {
    ...CLIENT_OPTIONS,
    ...TIME_OPTIONS,
    channel: { type: "string" },
  });
  return await withClient(values.home, io, async (client) => {
    const response = await client.post<{ results: NotificationLogEntry[] }>(
      "/notifications/test",
      values.channel === undefined ? {} : { channel: values.channel },
    );
    const code = printResponse(
      io,
      response,
      values.json,
      ({ results }) => notificationsTable(results, values.utc),
    );
    const failed = response.ok && response.body.results.some((entry) => entry.status !== "sent");
    return failed ? EXIT.refused : code;
  });
}

async function log(args: string[], io: Io): Promise<number> {
  const { values } = parseCommandArgs(args, {
    ...CLIENT_OPTIONS,
    ...TIME_OPTIONS,
    limit: { type: "string" },
  });
  const query = values.limit === undefined ? "" : `?limit=${encodeURIComponent(values.limit)}`;
  return await withClient(values.home, io, async (client) => {
    const response = await client.get<{ entries: NotificationLogEntry[] }>(
      `/notifications${query}`,
    );
    return printResponse(
      io,
      response,
      values.json,
      ({ entries }) => notificationsTable(entries, values.utc),
    );
  });
}
