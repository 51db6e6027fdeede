import { StreamRefused, type SvcClient } from "../client/client.ts";
import { CLIENT_OPTIONS, parseCommandArgs } from "./args.ts";
import { type Command, EXIT, type Io } from "./command.ts";
import { connect } from "./connect.ts";
import { describeError, oneLine } from "./output.ts";
import { terminalSafe } from "./terminal_text.ts";

/** Exit code after Ctrl-C: 128 + SIGINT, as shells report it. */
const EXIT_INTERRUPTED = 130;
/** While the daemon is away, try again this often (and forever: Ctrl-C stops). */
const RECONNECT = { attempts: Infinity, initialDelayMs: 200, maxDelayMs: 2000 };

/** `svc watch`: the daemon-wide feed (D19), one line per notice, until Ctrl-C. */
export const watchCommand: Command = {
  name: "watch",
  summary: "Print what happens in the daemon as it happens",
  usage: `Usage: svc watch [--home DIR] [--json]

Prints the daemon-wide feed (GET /api/v1/stream) as it comes, one line per
notice: the local time it arrived, its kind, its ids and what changed, e.g.
  12:03:04 session.updated ses_01… running · working
Notes about the connection go to stderr. When the daemon stops or restarts,
it reconnects (every 2 s at most) and says so; notices sent meanwhile are
missed. Ctrl-C stops (exit 130).

Options:
  --json   one JSON object per notice: {"at": ISO time, "kind", "data"}; only
           this form includes session.progress (a session's log grew: its
           lastSeq and when, at most once a second per session)`,
  async run(args, io) {
    const { values } = parseCommandArgs(args, CLIENT_OPTIONS);
    const { client } = await connect(values.home, io);
    const controller = new AbortController();
    const interrupt = () => controller.abort();
    Deno.addSignalListener("SIGINT", interrupt);
    try {
      return await watchFeed(client, io, { signal: controller.signal, json: values.json });
    } finally {
      Deno.removeSignalListener("SIGINT", interrupt);
      client.close();
    }
  },
};

/**
 * Prints the feed until `signal` aborts (exit 130). Fails like any command
 * when no daemon answers at first (exit 3) or it refuses the stream (exit 1);
 * after that it reconnects for as long as it runs.
 */
export async function watchFeed(
  client: SvcClient,
  io: Io,
  { signal, json, now = () => new Date() }: {
    signal: AbortSignal;
    json?: boolean;
    now?: () => Date;
  },
): Promise<number> {
  let instanceId: string | null = null;
  try {
    for await (const item of client.streamFeed({ signal, reconnect: RECONNECT })) {
      switch (item.type) {
        case "connected":
          io.err(
            !item.reconnected
              ? "svc watch: connected (Ctrl-C stops)"
              : item.instanceId === instanceId
              ? "svc watch: reconnected; notices sent meanwhile were missed"
              : "svc watch: reconnected to a restarted daemon; notices sent meanwhile were missed",
          );
          instanceId = item.instanceId;
          break;
        case "disconnected":
          io.err(`svc watch: ${terminalSafe(item.reason)}; reconnecting`);
          break;
        case "notice": {
          // A session's log grew: a line per second per busy session is noise to read, not to
          // script (D25), so only --json shows it.
          if (item.kind === "session.progress" && !json) break;
          const at = now();
          io.out(
            json
              ? JSON.stringify({ at: at.toISOString(), kind: item.kind, data: item.data })
              : `${clockTime(at)} ${describeNotice(item.kind, item.data)}`,
          );
        }
      }
    }
    return EXIT.ok;
  } catch (error) {
    if (signal.aborted) return EXIT_INTERRUPTED;
    if (error instanceof Deno.errors.BrokenPipe) return EXIT.ok;
    if (error instanceof StreamRefused) {
      io.err(json ? JSON.stringify(error.body, null, 2) : describeError(error.body));
      return EXIT.refused;
    }
    throw error;
  }
}

/**
 * One notice as a line: its kind, its ids, then what changed, e.g.
 * `session.updated ses_1 running · working`, `run.ended run_1 · routine nightly · failed`.
 */
export function describeNotice(kind: string, data: Record<string, unknown>): string {
  const text = (name: string) => {
    const value = data[name];
    return typeof value === "string" && value !== "" ? terminalSafe(oneLine(value)) : null;
  };
  const id = (name: string) => text(name) ?? "-";
  const parts = (...values: Array<string | null>) =>
    values.filter((value) => value !== null).join(" · ");
  const labelled = (label: string, name: string) => {
    const value = text(name);
    return value === null ? null : `${label} ${value}`;
  };
  switch (kind) {
    case "session.created":
      return `${kind} ${id("sessionId")} ${parts(text("harness"), text("status"))}`;
    case "session.updated":
      return `${kind} ${id("sessionId")} ${parts(text("status"), text("activity"))}`;
    case "approval.requested":
      return `${kind} ${id("sessionId")} ${parts(text("requestId"), text("tool"))}`;
    case "approval.resolved":
      return `${kind} ${id("sessionId")} ${
        parts(text("requestId"), text("decision"), labelled("by", "by"))
      }`;
    case "automations.changed":
      return `${kind} ${id("action")}`;
    case "inbox.read":
      return `${kind} ${id("runId")} ${parts(labelled("routine", "routineId"))}`;
    case "run.started":
    case "run.ended":
      return `${kind} ${id("runId")} ${
        parts(labelled("routine", "routineId"), text("status"), text("sessionId"))
      }`;
    default:
      return terminalSafe(oneLine(`${kind} ${JSON.stringify(data)}`));
  }
}

/** `HH:MM:SS` in the local time zone. */
function clockTime(at: Date): string {
  return [at.getHours(), at.getMinutes(), at.getSeconds()]
    .map((part) => String(part).padStart(2, "0"))
    .join(":");
}
