import { invalidRequest, ServiceError, sessionNotFound } from "../errors.ts";
import type { ResponseBudget } from "./response_budget.ts";
import { z } from "zod";
import { errorDoc, eventPageSchema } from "./schemas.ts";
import { cursorParam, integerParam, kindsParam } from "./query.ts";
import type { Route, RouteContext } from "./route.ts";
import type { EventLog } from "../events/event_log.ts";
import { buildPage, type PageRead, resolveCursor, utf8Length } from "../events/page.ts";
import type { EventsStore } from "../store/events_store.ts";
import type { SessionsStore } from "../store/sessions_store.ts";

/** Longest long-poll wait (D8 `waitMs`). */
const MAX_WAIT_MS = 30_000;
/** Readers that may wait at once; more get an immediate (possibly empty) page. */
const MAX_WAITERS = 1024;
/** Pages this large count against the response budget (smaller ones are cheap). */
const BUDGETED_PAGE_BYTES = 64 * 1024;
/** How long a read waits for room in the budget before 503 `server_busy`. */
const BUDGET_WAIT_MS = 30_000;

/** What the event routes need. */
export interface EventDeps {
  readonly sessions: SessionsStore;
  readonly events: EventsStore;
  readonly log: EventLog;
  /** Aborted when the daemon stops, ending every long-poll at once. */
  readonly stopping: AbortSignal;
  /** Large pages held in memory at once (issue 13). */
  readonly budget: ResponseBudget;
}

/** The query of both page routes (C4.2, D8, D17). */
const pageQuery = z.object({
  afterSeq: z.int().min(0).optional().describe("Events after this seq (wins over afterEventId)"),
  afterEventId: z.string().optional().describe("Events after this event id"),
  limit: z.int().min(1).max(1000).optional().describe("Clamped; without it the whole rest or 413"),
  waitMs: z.int().min(0).max(MAX_WAIT_MS).optional().describe("Long-poll while nothing is new"),
  kinds: z.string().optional().describe("Comma-separated exact event kinds (D17)"),
});

const PAGE_RESPONSES = {
  200: { description: "An event page", schema: eventPageSchema },
  400: errorDoc("A bad query parameter"),
  404: errorDoc("`session_not_found`"),
  413: errorDoc("`event_response_too_large`: the rest passes 4 MiB without `limit`"),
  503: errorDoc("`server_busy`: no room among the large pages being sent"),
};

/** `GET /events?sessionId=` and `GET /sessions/{id}/events` (C4.2, D8). */
export function eventRoutes(deps: EventDeps): Route[] {
  return [
    {
      method: "GET",
      path: "/events",
      summary: "An event page of a session (C4.2, D8)",
      operationId: "readEvents",
      tag: "events",
      query: pageQuery.extend({ sessionId: z.string().min(1) }),
      responses: PAGE_RESPONSES,
      handler: (ctx) => {
        const sessionId = ctx.url.searchParams.get("sessionId");
        if (!sessionId) {
          throw invalidRequest('Query parameter "sessionId" is required', "sessionId");
        }
        return readEvents(deps, ctx, sessionId);
      },
    },
    {
      method: "GET",
      path: "/sessions/:id/events",
      summary: "An event page of a session, id in the path (C4.2, D8)",
      operationId: "readSessionEvents",
      tag: "events",
      query: pageQuery,
      responses: PAGE_RESPONSES,
      handler: (ctx) => readEvents(deps, ctx, ctx.params.id),
    },
  ];
}

/** Events whose payload has this many bytes or more are read a row each; smaller ones joined. */
const LARGE_EVENT_BYTES = 4096;
/** How many of a page's first events decide its path. */
const SAMPLE_EVENTS = 4;

/**
 * How a page reads its rows (issue 14). Every record's JSON is made by
 * SQLite; the size of the page's first events picks how it crosses into
 * JavaScript, since a session's events tend to be alike: small ones joined
 * by SQLite into one row (1000 events of 100 B: 1.7 ms instead of 3.1 ms
 * with a row and a `JSON.stringify` each), large ones a row each (63 of 64
 * KiB: 3.5 ms instead of 7.0 ms; a batch would build the whole `limit` in
 * SQLite before the byte bound could cut it, so a batch that meets a large
 * event is not used, issue 26). docs/benchmarks.md.
 */
export function pageReader(
  events: EventsStore,
  sessionId: string,
  cursor: number,
  kinds: string[] | undefined,
): PageRead {
  // A few events, not one: a session's log starts with small ones (session.started, input).
  const sample = events.readAfter(sessionId, cursor, SAMPLE_EVENTS, kinds);
  const large = sample.some((event) => utf8Length(event.payload_json) >= LARGE_EVENT_BYTES);
  return (after, max, roomBytes) => {
    if (!large) {
      const batch = events.readJsonBatch(sessionId, after, max, kinds, LARGE_EVENT_BYTES);
      if (batch.count === 0) return [];
      // A large event among them (small ones, then large: issue 26) is read a row at a time.
      if (batch.large === 0 && batch.json.length + 1 <= roomBytes) return [batch];
    }
    return events.readJsonAfter(sessionId, after, max, kinds, roomBytes);
  };
}

async function readEvents(
  deps: EventDeps,
  { url }: RouteContext,
  sessionId: string,
): Promise<Response> {
  const afterSeq = cursorParam(url, "afterSeq");
  const afterEventId = url.searchParams.get("afterEventId") ?? undefined;
  const limit = integerParam(url, "limit", { min: 1, max: 1000 });
  const waitMs = integerParam(url, "waitMs", { min: 0, max: MAX_WAIT_MS }) ?? 0;
  const kinds = kindsParam(url);
  if (!deps.sessions.get(sessionId)) throw sessionNotFound(sessionId);
  const cursor = resolveCursor(
    { afterSeq, afterEventId },
    (eventId) => deps.events.seqOf(sessionId, eventId),
  );
  const read = pageReader(deps.events, sessionId, cursor, kinds);
  const pageAt = () =>
    buildPage(read, {
      afterSeq: cursor,
      limit,
      ...(kinds === undefined ? {} : { examinedTo: deps.events.lastSeq(sessionId) }),
    });
  // Issue 13: each page reserves room in the memory budget before it is built (a waiting
  // long-poll holds none).
  const built = async () => {
    const reservation = await deps.budget.reserve(BUDGET_WAIT_MS);
    if (reservation === null) {
      throw new ServiceError(
        "server_busy",
        503,
        "Too many large answers are being sent right now: retry shortly",
        { retryAfterSeconds: 1 },
      );
    }
    try {
      return { page: pageAt(), reservation };
    } catch (error) {
      reservation.release();
      throw error;
    }
  };
  // Not req.signal: Deno aborts it on every completed response (legacy behaviour).
  const signal = deps.stopping;
  const deadline = Date.now() + waitMs;
  let { page, reservation } = await built();
  // Long-poll: wait for a commit on this session while it is live and nothing is new.
  while (page.count === 0 && Date.now() < deadline) {
    if (deps.sessions.get(sessionId)?.status !== "running") break;
    reservation.release();
    const waited = await deps.log.waitForChange(sessionId, deadline - Date.now(), {
      signal,
      maxWaiters: MAX_WAITERS,
    });
    ({ page, reservation } = await built());
    if (!waited || signal.aborted) break;
  }
  const init = { status: 200, headers: { "content-type": "application/json; charset=utf-8" } };
  if (page.body.length >= BUDGETED_PAGE_BYTES) return reservation.response(page.body, init);
  reservation.release();
  return new Response(page.body, init);
}
