import { StreamRefused, type SvcClient } from "../client/client.ts";
import type { EventRecord } from "../store/events_store.ts";
import type { LiveEventRecord } from "../events/live_events.ts";
import type { SessionRecord } from "../store/sessions_store.ts";
import { CLIENT_OPTIONS, parseCommandArgs } from "./args.ts";
import { type Command, EXIT, type Io, UsageError } from "./command.ts";
import { connect } from "./connect.ts";
import { useColor } from "./color.ts";
import { describeError } from "./output.ts";
import { terminalSafe } from "./terminal_text.ts";
import { createTranscript } from "./transcript.ts";
import { resolveSessionId } from "./id_prefix.ts";

/** Refusals of a stream after which following falls back to long polls: no slot, no route. */
const LONG_POLL_FALLBACK = new Set(["too_many_streams", "not_found"]);
/** How long one long-poll request waits for a new event (D8 `waitMs`, at most 30000). */
const FOLLOW_WAIT_MS = 25_000;
/** Events per request when reading a whole log or following one. */
const PAGE_LIMIT = 1000;
/** Pause between reads while an ended session's `session.ended` event is being written. */
const ENDING_POLL_MS = 25;
/** Exit code after Ctrl-C: 128 + SIGINT, as shells report it. */
const EXIT_INTERRUPTED = 130;

/** A page of `GET /sessions/{id}/events` (C2.2, D8). */
interface EventPage {
  events: EventRecord[];
  nextCursor: { afterSeq: number };
  hasMore: boolean;
}

/** `svc events SESSION`: a session's events, once or followed to its end (D1, D8). */
export const eventsCommand: Command = {
  name: "events",
  summary: "Print or follow a session's events",
  usage: `Usage: svc events SESSION [--after N] [--limit N] [--follow] [--raw] [--home DIR] [--json]

Prints the events of SESSION after seq N (default 0). A conversation (a
session of an agent protocol) is printed as a transcript: messages, tool
calls, turns with their usage. A raw session's output is printed as the
session wrote it (its stdout data to stdout, its stderr data to stderr);
other events are one line "[seq] kind {payload}" on stderr. --raw prints
every session that way; --json prints one event record per line (JSONL).

Options:
  --after N   start after the event with seq N
  --limit N   print at most N events
  --follow    stream new events until the session ends (exit 0); Ctrl-C stops (exit 130)
  --raw       the records as lines, not a transcript (conversations' protocol lines included)`,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(args, {
      ...CLIENT_OPTIONS,
      after: { type: "string" },
      limit: { type: "string" },
      follow: { type: "boolean" },
      raw: { type: "boolean" },
    }, { positionals: 1 });
    const sessionText = positionals[0];
    if (sessionText === undefined) throw new UsageError("Missing SESSION");
    const afterSeq = values.after === undefined ? 0 : integerOption(values.after, "--after", 0);
    const limit = values.limit === undefined
      ? undefined
      : integerOption(values.limit, "--limit", 1);
    if (values.follow && limit !== undefined) {
      throw new UsageError('"--limit" cannot be combined with "--follow"');
    }
    if (values.json && values.raw) {
      throw new UsageError('"--raw" cannot be combined with "--json"');
    }
    const { client } = await connect(values.home, io);
    try {
      const sessionId = await resolveSessionId(client, sessionText);
      let printer = eventPrinter(io, values.json);
      if (!values.json && !values.raw) {
        const session = await client.get<SessionRecord>(
          `/sessions/${encodeURIComponent(sessionId)}`,
        );
        if (!session.ok) return printer.refused(session.body);
        printer = printerFor(io, session.body.protocol, {});
      }
      return values.follow
        ? await followEvents(client, sessionId, printer, afterSeq)
        : await readEvents(client, sessionId, printer, { afterSeq, limit });
    } finally {
      client.close();
    }
  },
};

/** Prints events, and a daemon refusal, the way `svc events` does. */
export interface EventPrinter {
  event(event: EventRecord): void;
  /** Prints an error envelope; returns exit 1. */
  refused(body: unknown): number;
}

/**
 * How `svc events` prints a session of `protocol`: records with `json`,
 * lines with `raw` or for a raw session, else the transcript.
 */
export function printerFor(
  io: Io,
  protocol: string,
  { json, raw }: { json?: boolean; raw?: boolean },
): EventPrinter {
  return json || raw || protocol === "raw"
    ? eventPrinter(io, json)
    : transcriptPrinter(io, protocol);
}

/**
 * A conversation's transcript (transcript.ts) on stdout, coloured only on a
 * terminal without `NO_COLOR`; a raw session's output as it came.
 */
export function transcriptPrinter(io: Io, protocol: string): EventPrinter {
  const transcript = createTranscript({ protocol, color: useColor(io, Deno.stdout) });
  let midLine = false;
  return {
    event(event) {
      for (const piece of transcript.render(event)) {
        if (piece.type === "output") {
          (piece.stream === "stderr" ? io.writeErr : io.write)(piece.data);
          midLine = !piece.data.endsWith("\n");
          continue;
        }
        if (piece.type === "partial") {
          io.write(piece.text);
          midLine = !piece.text.endsWith("\n");
          continue;
        }
        io.out((midLine ? "\n" : "") + piece.text);
        midLine = false;
      }
    },
    refused(body) {
      io.err(describeError(body));
      return EXIT.refused;
    },
  };
}

/**
 * `--json`: one event record per line. Otherwise output data raw on its
 * stream and other kinds as `[seq] kind {payload}` on stderr (terminal-safe),
 * dim only when both streams are terminals and `NO_COLOR` is unset.
 */
export function eventPrinter(io: Io, json: boolean | undefined): EventPrinter {
  const terminal = Deno.stdout.isTerminal() && Deno.stderr.isTerminal();
  const color = terminal && !io.env("NO_COLOR");
  let midLine = false;
  return {
    event(event) {
      if (json) {
        io.out(JSON.stringify(event));
        return;
      }
      if (event.kind === "output") {
        const payload = parsePayload(event.payload_json);
        const data = typeof payload.data === "string" ? payload.data : "";
        if (payload.stream === "stderr") io.writeErr(data);
        else io.write(data);
        if (data.length > 0) midLine = !data.endsWith("\n");
        return;
      }
      // On one terminal, start the note on its own line after unterminated output.
      const prefix = terminal && midLine ? "\n" : "";
      midLine = false;
      const line = terminalSafe(`[${event.seq}] ${event.kind} ${event.payload_json}`);
      io.err(prefix + (color ? `\x1b[2m${line}\x1b[22m` : line));
    },
    refused(body) {
      io.err(json ? JSON.stringify(body, null, 2) : describeError(body));
      return EXIT.refused;
    },
  };
}

/**
 * Follows a session's log from `afterSeq` until its `session.ended` event is
 * printed (exit 0). SIGINT aborts the wait: exit 130.
 */
export async function followEvents(
  client: SvcClient,
  sessionId: string,
  printer: EventPrinter,
  afterSeq: number,
): Promise<number> {
  const controller = new AbortController();
  const { signal } = controller;
  const interrupt = () => controller.abort();
  Deno.addSignalListener("SIGINT", interrupt);
  try {
    const end = await pollLog(client, sessionId, {
      afterSeq,
      signal,
      onEvent: (event) => printer.event(event),
    });
    return "refused" in end ? printer.refused(end.refused) : EXIT.ok;
  } catch (error) {
    if (signal.aborted) return EXIT_INTERRUPTED;
    if (error instanceof Deno.errors.BrokenPipe) return EXIT.ok;
    throw error;
  } finally {
    Deno.removeSignalListener("SIGINT", interrupt);
  }
}

/** How a followed log ended: its `session.ended` event (null if it has none), or a refusal. */
export type LogEnd = { ended: EventRecord | null } | { refused: unknown };

/** Where following a log starts, when it stops, and what gets each event. */
interface FollowOptions {
  afterSeq: number;
  signal: AbortSignal;
  onEvent: (event: EventRecord) => void;
  /** Live-only events (D29), while the stream is open; long polls have none. */
  onLive?: (event: LiveEventRecord) => void;
}

/**
 * Reads a session's log from `afterSeq` on its event stream (D19), handing
 * each event to `onEvent`, until the `session.ended` event or the end of an
 * ended session's log. A dropped stream resumes where it stopped; when the
 * daemon has no stream slot free it long-polls instead. Aborting `signal`
 * rejects with the abort reason.
 */
export async function pollLog(
  client: SvcClient,
  sessionId: string,
  { afterSeq, signal, onEvent, onLive }: FollowOptions,
): Promise<LogEnd> {
  let cursor = afterSeq;
  try {
    const events = client.streamSessionEvents(sessionId, { afterSeq, signal, onLive });
    for await (const event of events) {
      onEvent(event);
      cursor = event.seq;
      if (event.kind === "session.ended" && !await resumedAfter(client, sessionId, event.seq)) {
        return { ended: event };
      }
    }
    return { ended: null };
  } catch (error) {
    if (!(error instanceof StreamRefused)) throw error;
    if (error.code === null || !LONG_POLL_FALLBACK.has(error.code)) return { refused: error.body };
  }
  return await longPollLog(client, sessionId, { afterSeq: cursor, signal, onEvent });
}

/**
 * A `session.ended` event is not the end of the log when the conversation
 * was resumed after it (D26): its log goes on past that seq.
 */
async function resumedAfter(client: SvcClient, sessionId: string, seq: number): Promise<boolean> {
  const response = await client.get<{ status?: string; last_seq?: number }>(
    `/sessions/${encodeURIComponent(sessionId)}`,
  );
  if (!response.ok) return false;
  return response.body.status === "running" || (response.body.last_seq ?? 0) > seq;
}

/** `pollLog` with long polls (`waitMs`), for when no stream can be opened. */
async function longPollLog(
  client: SvcClient,
  sessionId: string,
  { afterSeq, signal, onEvent }: FollowOptions,
): Promise<LogEnd> {
  let cursor = afterSeq;
  for (;;) {
    const path = eventsPath(sessionId, {
      afterSeq: cursor,
      limit: PAGE_LIMIT,
      waitMs: FOLLOW_WAIT_MS,
    });
    const response = await client.request<EventPage>("GET", path, undefined, { signal });
    if (!response.ok) return { refused: response.body };
    for (const event of response.body.events) {
      onEvent(event);
      if (event.kind === "session.ended" && !await resumedAfter(client, sessionId, event.seq)) {
        return { ended: event };
      }
    }
    cursor = response.body.nextCursor.afterSeq;
    if (response.body.events.length > 0) continue;
    // An empty page: the wait ran out, or the session is no longer running.
    const state = await logState(client, sessionId, cursor, signal);
    if (state === "finished") return { ended: null };
    if (state === "ending") await abortableDelay(ENDING_POLL_MS, signal);
  }
}

/** Reads everything after `afterSeq`, or at most `limit` events, in pages. */
async function readEvents(
  client: SvcClient,
  sessionId: string,
  printer: EventPrinter,
  { afterSeq, limit }: { afterSeq: number; limit: number | undefined },
): Promise<number> {
  try {
    let cursor = afterSeq;
    let remaining = limit ?? Infinity;
    while (remaining > 0) {
      const pageLimit = Math.min(remaining, PAGE_LIMIT);
      const response = await client.get<EventPage>(
        eventsPath(sessionId, { afterSeq: cursor, limit: pageLimit }),
      );
      if (!response.ok) return printer.refused(response.body);
      for (const event of response.body.events) printer.event(event);
      remaining -= response.body.events.length;
      cursor = response.body.nextCursor.afterSeq;
      if (!response.body.hasMore) break;
    }
    return EXIT.ok;
  } catch (error) {
    if (error instanceof Deno.errors.BrokenPipe) return EXIT.ok;
    throw error;
  }
}

/**
 * Whether a log that had nothing after `cursor` can still grow: `live` (the
 * session runs), `ending` (it stopped but its `session.ended` event is still
 * being written), or `finished` (nothing will ever come after `cursor`).
 */
async function logState(
  client: SvcClient,
  sessionId: string,
  cursor: number,
  signal: AbortSignal,
): Promise<"live" | "ending" | "finished"> {
  const session = await client.request<SessionRecord>(
    "GET",
    `/sessions/${encodeURIComponent(sessionId)}`,
    undefined,
    { signal },
  );
  // A refusal here surfaces on the next events read.
  if (!session.ok || session.body.status === "running") return "live";
  if (cursor > session.body.last_seq) return "finished";
  if (cursor === 0) return "ending";
  const last = await client.request<EventPage>(
    "GET",
    eventsPath(sessionId, { afterSeq: cursor - 1, limit: 1 }),
    undefined,
    { signal },
  );
  return last.ok && last.body.events[0]?.kind === "session.ended" ? "finished" : "ending";
}

function eventsPath(sessionId: string, query: Record<string, number>): string {
  const params = new URLSearchParams(
    Object.entries(query).map(([name, value]) => [name, String(value)]),
  );
  return `/sessions/${encodeURIComponent(sessionId)}/events?${params}`;
}

function parsePayload(payloadJson: string): Record<string, unknown> {
  try {
    const payload = JSON.parse(payloadJson);
    return typeof payload === "object" && payload !== null ? payload : {};
  } catch {
    return {};
  }
}

function abortableDelay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", abort);
      resolve();
    }, ms);
    const abort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    if (signal.aborted) abort();
    else signal.addEventListener("abort", abort, { once: true });
  });
}

/** An integer flag value of at least `min`, else a `UsageError` naming the flag. */
export function integerOption(text: string, flag: string, min: number): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || value < min) {
    throw new UsageError(`"${flag}" must be an integer of ${min} or more, got "${text}"`);
  }
  return value;
}
