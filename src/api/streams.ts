import { forbidden, invalidRequest, ServiceError, sessionNotFound } from "../errors.ts";
import { cursorParam, kindsParam } from "./query.ts";
import type { Route, RouteContext } from "./route.ts";
import type { Peer } from "../policy/peer.ts";
import type { EventLog } from "../events/event_log.ts";
import type { DaemonFeed } from "../events/daemon_feed.ts";
import type { LiveEvents } from "../events/live_events.ts";
import { sessionEventStream } from "../events/session_stream.ts";
import { StreamReads } from "./stream_reads.ts";
import type { EventsStore } from "../store/events_store.ts";
import type { FocusRegistry } from "../notify/focus.ts";
import type { SessionsStore } from "../store/sessions_store.ts";
import { z } from "zod";
import { errorDoc } from "./schemas.ts";

/** What both session streams answer (D19). */
const SESSION_STREAM_RESPONSES = {
  200: {
    description: "Server-Sent Events (`id` = seq, `event` = kind, `data` = the event record); " +
      "live-only events such as `agent.message.delta` have no `id` (D29)",
    schema: () => z.string(),
    contentType: "text/event-stream" as const,
  },
  400: errorDoc("A bad query parameter"),
  403: errorDoc("`forbidden`: `focus` over TCP without a paired device"),
  404: errorDoc("`session_not_found`"),
  503: errorDoc("`too_many_streams`"),
};

/** The query of both session streams (D19); `Last-Event-ID` wins over `afterSeq`. */
const streamQuery = z.object({
  afterSeq: z.int().min(0).optional(),
  kinds: z.string().optional().describe("Comma-separated exact event kinds (D17)"),
  focus: z.enum(["1"]).optional().describe(
    "`1`: a face shows this session while the stream is open, so its finished turns are " +
      "not notified (D31); owner only, 403 over TCP",
  ),
});

/** What the stream routes need. */
export interface StreamDeps {
  readonly sessions: SessionsStore;
  readonly events: EventsStore;
  readonly log: EventLog;
  /** Live-only events merged into the session streams (D29). */
  readonly live: LiveEvents;
  readonly feed: DaemonFeed;
  /** Sessions a face has in focus (`focus=1`, D31). */
  readonly focus: FocusRegistry;
  /** Open streams allowed at once (config `maxStreams`, D19). */
  readonly maxStreams: () => number;
  /** Aborted when the daemon stops: every stream ends. */
  readonly stopping: AbortSignal;
}

const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-store",
};

/** Server-Sent Events (D19): a session's log with resume, and the daemon-wide feed. */
export function streamRoutes(deps: StreamDeps): Route[] {
  const reads = new StreamReads(() => deps.log.changes);
  const slots = new StreamSlots(deps.maxStreams);
  const takeSlot = (peer: Peer) => slots.take(peer);
  return [
    {
      method: "GET",
      path: "/events/stream",
      summary: "A session's events as Server-Sent Events, sessionId in the query (D19)",
      operationId: "followEvents",
      query: streamQuery.extend({ sessionId: z.string().min(1) }),
      tag: "streams",
      responses: SESSION_STREAM_RESPONSES,
      handler: (ctx) => {
        const sessionId = ctx.url.searchParams.get("sessionId");
        if (!sessionId) {
          throw invalidRequest('Query parameter "sessionId" is required', "sessionId");
        }
        return streamSession(deps, reads, ctx, sessionId, takeSlot);
      },
    },
    {
      method: "GET",
      path: "/sessions/:id/events/stream",
      summary: "A session's events as Server-Sent Events (D19)",
      operationId: "followSessionEvents",
      query: streamQuery,
      tag: "streams",
      responses: SESSION_STREAM_RESPONSES,
      handler: (ctx) => streamSession(deps, reads, ctx, ctx.params.id, takeSlot),
    },
    {
      method: "GET",
      path: "/stream",
      summary: "The daemon-wide feed: sessions, approvals, automations, runs (D19)",
      operationId: "followDaemon",
      tag: "streams",
      responses: {
        200: {
          description: "Server-Sent Events of what changes in the daemon (D19)",
          schema: () => z.string(),
          contentType: "text/event-stream",
        },
        503: errorDoc("`too_many_streams`"),
      },
      handler: ({ peer }) => {
        const release = takeSlot(peer);
        const body = deps.feed.subscribe({ stop: deps.stopping, onClose: release });
        return new Response(body, { headers: SSE_HEADERS });
      },
    },
  ];
}

function streamSession(
  deps: StreamDeps,
  reads: StreamReads,
  { req, url, peer }: RouteContext,
  sessionId: string,
  takeSlot: (peer: Peer) => () => void,
): Response {
  const afterSeq = lastEventId(req) ?? cursorParam(url, "afterSeq") ?? 0;
  const kinds = kindsParam(url);
  const focus = focusParam(url, peer);
  if (!deps.sessions.get(sessionId)) throw sessionNotFound(sessionId);
  const release = takeSlot(peer);
  const unfocus = focus ? deps.focus.hold(sessionId) : () => {};
  const leave = reads.join(sessionId);
  const liveEvents = deps.live.subscribe(sessionId, kinds);
  const kindsKey = kinds?.join(",") ?? "";
  const body = sessionEventStream({
    read: (after, limit) =>
      reads.rows(
        sessionId,
        `${after} ${limit} ${kindsKey}`,
        () => deps.events.readAfter(sessionId, after, limit, kinds),
      ),
    lastSeq: () => deps.events.lastSeq(sessionId),
    live: () => reads.live(sessionId, () => deps.sessions.get(sessionId)?.status === "running"),
    waitForChange: async (ms, signal) => {
      const woken = new AbortController();
      const either = AbortSignal.any([signal, woken.signal]);
      // Streams are capped by maxStreams, not by the long-poll waiter budget.
      await Promise.race([
        deps.log.waitForChange(sessionId, ms, { signal: either, maxWaiters: Infinity }),
        liveEvents.wait(either),
      ]);
      woken.abort(); // The other wait ends too.
    },
    takeLive: (seq) => liveEvents.takeUpTo(seq),
  }, {
    afterSeq,
    filtered: kinds !== undefined,
    stop: deps.stopping,
    onClose: () => {
      release();
      unfocus();
      leave();
      liveEvents.close();
    },
  });
  return new Response(body, { headers: SSE_HEADERS });
}

/**
 * `focus=1` (D31): it changes what the owner is told, so only the owner and
 * the owner's paired devices (a web page showing the session, D30) may set
 * it; an unpaired TCP peer may not (D23: 403 `forbidden`).
 */
function focusParam(url: URL, peer: Peer): boolean {
  const value = url.searchParams.get("focus");
  if (value === null) return false;
  if (value !== "1") throw invalidRequest('Query parameter "focus" must be 1', "focus");
  if (!peer.owner && peer.device === undefined) {
    throw forbidden(
      'Query parameter "focus" is owner-only: use the local socket or a paired device',
    );
  }
  return true;
}

/** The `Last-Event-ID` header as a seq (D19); a malformed one is 400. */
function lastEventId(req: Request): number | undefined {
  const header = req.headers.get("last-event-id");
  if (header === null || header === "") return undefined;
  if (!/^\d{1,15}$/.test(header)) {
    throw invalidRequest('Header "Last-Event-ID" must be an event seq', "Last-Event-ID");
  }
  return Number(header);
}

/**
 * Stream slots, in two pools (issue 28): the owner's streams count against
 * `maxStreams`; TCP peers share their own, smaller pool (an eighth of it),
 * so streams any local user opens over TCP never take the owner's room.
 */
class StreamSlots {
  readonly #maxStreams: () => number;
  readonly #open = { owner: 0, tcp: 0 };

  constructor(maxStreams: () => number) {
    this.#maxStreams = maxStreams;
  }

  /** Takes a slot for `peer` or refuses with 503; the returned function gives it back (once). */
  take(peer: Peer): () => void {
    const pool = peer.owner ? "owner" : "tcp";
    const limit = peer.owner ? this.#maxStreams() : tcpStreamLimit(this.#maxStreams());
    if (this.#open[pool] >= limit) {
      throw new ServiceError(
        "too_many_streams",
        503,
        peer.owner
          ? `Cannot open a stream: ${limit} are already open (maxStreams)`
          : `Cannot open a stream over TCP: ${limit} TCP streams are already open`,
        { limit },
      );
    }
    this.#open[pool]++;
    let released = false;
    return () => {
      if (!released) this.#open[pool]--;
      released = true;
    };
  }
}

/** TCP peers' stream pool: an eighth of `maxStreams`, at least one. */
export function tcpStreamLimit(maxStreams: number): number {
  return Math.max(1, Math.floor(maxStreams / 8));
}
