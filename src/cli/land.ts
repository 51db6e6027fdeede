/**
 * `svc land A B C` and `svc land --status` (D34): queue isolated sessions'
 * work to land in order, and show the land queue.
 */
import type { LandItem } from "../worktrees/land_queue.ts";
import { CLIENT_OPTIONS, parseCommandArgs } from "./args.ts";
import { type Command, UsageError } from "./command.ts";
import { withClient } from "./connect.ts";
import { printResponse, table } from "./output.ts";
import { resolveSessionId } from "./id_prefix.ts";
import { terminalSafe } from "./terminal_text.ts";

export const landCommand: Command = {
  name: "land",
  summary: "Land isolated sessions' work in order through the land queue",
  usage: `Usage: svc land SESSION... [--squash|--merge|--rebase] [--send-back] [--max-attempts N]
       svc land --status
       svc land --cancel ITEM

Queues the sessions' work (a run is named by its session) to land one after
another on the checked-out branch of its repository, each checked and
verified (config projects[].land.verify) on top of the lands before it.
Without --send-back the queue stops at the first failure until that item is
cancelled; with it, a conflicted or red item's agent is resumed with a turn
naming the files or the failing command, and the item is queued again when
that turn ends (at most --max-attempts times, default 2).
--status lists the queue's items and their states.`,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(args, {
      ...CLIENT_OPTIONS,
      squash: { type: "boolean" },
      merge: { type: "boolean" },
      rebase: { type: "boolean" },
      "send-back": { type: "boolean" },
      "max-attempts": { type: "string" },
      status: { type: "boolean" },
      cancel: { type: "string" },
    });
    const modes = (["squash", "merge", "rebase"] as const).filter((mode) => values[mode]);
    if (modes.length > 1) throw new UsageError("Choose one of --squash, --merge, --rebase");
    const maxAttempts = values["max-attempts"] === undefined
      ? undefined
      : Number(values["max-attempts"]);
    if (maxAttempts !== undefined && !Number.isInteger(maxAttempts)) {
      throw new UsageError("--max-attempts takes a whole number");
    }
    if (!values.status && values.cancel === undefined && positionals.length === 0) {
      throw new UsageError("Name the sessions to land, or use --status");
    }
    return await withClient(values.home, io, async (client) => {
      if (values.cancel !== undefined) {
        const response = await client.post<{ item: LandItem }>(
          `/land-queue/${encodeURIComponent(values.cancel)}/cancel`,
          {},
        );
        return printResponse(io, response, values.json, ({ item }) => `Cancelled ${item.itemId}`);
      }
      if (values.status) {
        const response = await client.get<{ items: LandItem[] }>("/land-queue");
        return printResponse(io, response, values.json, ({ items }) => queueText(items));
      }
      const items = [];
      for (const idText of positionals) items.push(await resolveSessionId(client, idText));
      const response = await client.post<{ items: LandItem[] }>("/land-queue", {
        items,
        mode: modes[0] ?? "squash",
        ...(values["send-back"] && { sendBack: true }),
        ...(maxAttempts !== undefined && { maxAttempts }),
      });
      return printResponse(
        io,
        response,
        values.json,
        ({ items }) => `Queued ${items.length} lands:\n${queueText(items)}`,
      );
    });
  },
};

/** The queue as a table: item, session, state, attempts, what failed or landed. Pure. */
export function queueText(items: LandItem[]): string {
  if (items.length === 0) return "The land queue is empty";
  return table(
    ["ITEM", "SESSION", "STATE", "ATTEMPTS", "RESULT"],
    items.map((item) => [
      item.itemId,
      item.sessionId,
      item.state,
      `${item.attempts}/${item.maxAttempts}`,
      terminalSafe(
        item.landedCommit?.slice(0, 12) ??
          (item.lastError
            ? `${item.lastError.code}${
              item.lastError.files ? `: ${item.lastError.files.join(", ")}` : ""
            }`
            : ""),
      ),
    ]),
  );
}
