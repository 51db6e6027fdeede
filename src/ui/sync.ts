/**
 * The one client loop of `svc ui` (D25): read the list routes once, follow
 * `GET /stream`, re-read only what a notice says changed, and follow the
 * focused session's event stream. After any reconnect everything is read
 * again (notices sent meanwhile are lost, D19). Nothing polls: without a
 * daemon it retries the connection with a bounded backoff and says so.
 */
import type { ClientResponse, FeedItem } from "../client/client.ts";
import type { SessionStreamOptions } from "../client/stream_reader.ts";
import type { FocusStore } from "./focus.ts";
import type {
  HarnessChoice,
  InboxEntry,
  PendingApproval,
  RoutineOverview,
  SessionRecord,
} from "./model.ts";
import type { UiStore } from "./store.ts";
import { coalescedReads, isLandNotice, type LandQueueItem } from "./land_queue_view.ts";

/** What the loop needs of `SvcClient` (tests hand in a real client on a real daemon). */
export interface UiClient {
  get<T = unknown>(path: string): Promise<ClientResponse<T>>;
  post<T = unknown>(path: string, body: unknown): Promise<ClientResponse<T>>;
  streamFeed(options: {
    signal?: AbortSignal;
    reconnect?: { attempts?: number; initialDelayMs?: number; maxDelayMs?: number };
  }): AsyncIterable<FeedItem>;
  streamSessionEvents(
    sessionId: string,
    options: SessionStreamOptions,
  ): AsyncIterable<{ seq: number; kind: string; payload_json: string }>;
}

/** What the loop writes of the focused session's stream (a `FocusStore`, or one host's view of it). */
export type FocusSink = Pick<FocusStore, "reset" | "append" | "ended" | "resumed">;

/** Sessions read at a sync: every live one, and this many of the newest of all. */
const RECENT_SESSIONS = 200;
/** Events read back when a session comes into focus (its scrollback). */
const FOCUS_HISTORY_EVENTS = 2000;
/** Between connection attempts while no daemon answers. */
const RETRY_MS = { first: 250, max: 2000 };

/** Local `YYYY-MM-DD` of `date` (GET /usage `since` is a day of the host's zone). */
export function localDay(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

export class UiSync {
  readonly #client: UiClient;
  readonly #store: UiStore;
  readonly #focus: FocusSink;
  readonly #now: () => Date;
  /**
   * Reads under way, by what they read: a burst of notices costs one read,
   * and one more when a notice came during it (the read may have been
   * answered before the change the notice announced).
   */
  readonly #reading = new Map<string, { again: boolean }>();
  readonly #awayAdvice: string;
  #focusAbort: AbortController | null = null;
  #focusedId: string | null = null;
  /** The last seq of the focused session's stream once it ended (the session did); else null. */
  #focusEndedAt: number | null = null;
  /** Reads the land queue (D34); notices during a read ask for one more. */
  readonly #readLandQueue = coalescedReads(async () => {
    const response = await this.#client.get<{ items: LandQueueItem[] }>("/land-queue");
    if (response.ok) this.#store.landQueue(response.body.items);
  });

  constructor(
    options: {
      client: UiClient;
      store: UiStore;
      focus: FocusSink;
      now?: () => Date;
      /** The banner's advice while the daemon is away (another host's: how to check it, D32). */
      awayAdvice?: string;
    },
  ) {
    this.#awayAdvice = options.awayAdvice ?? LOCAL_ADVICE;
    this.#client = options.client;
    this.#store = options.store;
    this.#focus = options.focus;
    this.#now = options.now ?? (() => new Date());
  }

  /** Follows the daemon until `signal` aborts; never throws for a daemon that is away. */
  async run(signal: AbortSignal): Promise<void> {
    let delay = RETRY_MS.first;
    while (!signal.aborted) {
      try {
        for await (const item of this.#client.streamFeed({ signal, reconnect: RECONNECT })) {
          delay = RETRY_MS.first;
          await this.#apply(item);
        }
      } catch (error) {
        if (signal.aborted) return;
        this.#store.disconnected(awayReason(error, this.#awayAdvice));
      }
      await sleep(delay, signal);
      delay = Math.min(RETRY_MS.max, delay * 2);
    }
  }

  /** Shows `sessionId` in the session view (null: none), following its stream live. */
  focus(session: SessionRecord | null): void {
    if ((session?.id ?? null) === this.#focusedId) return;
    this.#focusAbort?.abort();
    this.#focusAbort = null;
    this.#focusedId = session?.id ?? null;
    this.#focusEndedAt = null;
    this.#store.focus(this.#focusedId);
    this.#focus.reset(this.#focusedId, session?.protocol ?? "raw");
    if (session === null) return;
    const abort = new AbortController();
    this.#focusAbort = abort;
    void this.#follow(session, abort.signal);
  }

  /** Stops following the focused session. */
  stop(): void {
    this.#focusAbort?.abort();
  }

  async #follow(
    session: SessionRecord,
    signal: AbortSignal,
    afterSeq = Math.max(0, session.last_seq - FOCUS_HISTORY_EVENTS),
  ): Promise<void> {
    let lastSeq = afterSeq;
    try {
      const batch: Array<{ kind: string; payload_json: string }> = [];
      let flush: Promise<void> | null = null;
      // Records (and live deltas, D29) that arrive together are rendered together: one frame.
      const add = (record: { kind: string; payload_json: string }) => {
        batch.push(record);
        flush ??= Promise.resolve().then(() => {
          flush = null;
          if (!signal.aborted) this.#focus.append(batch.splice(0));
        });
      };
      for await (
        const record of this.#client.streamSessionEvents(session.id, {
          afterSeq,
          focus: true, // Its finished turns are not notified while shown (D31).
          signal,
          reconnect: RECONNECT,
          onLive: add,
        })
      ) {
        lastSeq = record.seq;
        add(record);
      }
      await flush;
      if (signal.aborted) return;
      this.#focusEndedAt = lastSeq;
      this.#focus.ended();
    } catch {
      // Aborted (focus moved) or the daemon went away: the feed loop reports that.
    }
  }

  async #apply(item: FeedItem): Promise<void> {
    switch (item.type) {
      case "connected":
        await this.#syncAll();
        void this.#readLandQueue();
        return;
      case "disconnected":
        this.#store.disconnected(`The daemon went away (${item.reason}); reconnecting`);
        return;
      case "notice":
        this.#notice(item.kind, item.data);
    }
  }

  #notice(kind: string, data: Record<string, unknown>): void {
    if (isLandNotice(kind)) void this.#readLandQueue();
    const sessionId = typeof data.sessionId === "string" ? data.sessionId : null;
    switch (kind) {
      case "session.created":
      case "session.updated":
      case "land.landed": // Its worktree now records the land (D27): discard knows it.
        if (sessionId !== null) {
          this.#once(`session ${sessionId}`, () => this.#readSession(sessionId));
        }
        // A live session's turn adds to today's cost too, not only its end (issue 38 item 12).
        if (kind === "session.updated") this.#once("cost", () => this.#readCost());
        return;
      case "session.progress":
        if (sessionId !== null && typeof data.at === "string") {
          this.#store.progress(sessionId, Date.parse(data.at));
        }
        return;
      case "approval.requested":
      case "approval.resolved":
        this.#once("approvals", () => this.#readApprovals());
        return;
      case "automations.changed":
      case "run.started":
      case "run.ended":
        this.#once("automations", () => this.#readAutomations());
        return;
      case "inbox.read": // Marked read here or in another UI (issue 38 item 12).
        if (typeof data.runId === "string" && typeof data.readAt === "string") {
          this.#store.inboxRead(data.runId, data.readAt);
        }
    }
  }

  /** Runs `read`, or once more after the same read under way (then all notices of a burst). */
  #once(key: string, read: () => Promise<void>): void {
    const underWay = this.#reading.get(key);
    if (underWay) {
      underWay.again = true;
      return;
    }
    const state = { again: false };
    this.#reading.set(key, state);
    void (async () => {
      do {
        state.again = false;
        await read().catch(() => {});
      } while (state.again);
    })().finally(() => this.#reading.delete(key));
  }

  async #syncAll(): Promise<void> {
    const [health, live, recent, approvals, overview, inbox, capabilities, cost] = await Promise
      .all([
        this.#client.get<{ svcVersion: string; startedAt: string; instanceId: string }>("/health"),
        this.#client.get<SessionRecord[]>("/sessions?status=running&limit=1000"),
        this.#client.get<SessionRecord[]>(`/sessions?limit=${RECENT_SESSIONS}`),
        this.#action<{ approvals: PendingApproval[] }>("svc.sessions.approvals"),
        this.#action<{ routines: RoutineOverview[] }>("svc.automations.overview"),
        this.#action<{ results: InboxEntry[] }>("svc.automations.inbox", { limit: 200 }),
        this.#client.get<{ capabilities: CapabilityRecord[] }>("/capabilities"),
        this.#todayCost(),
      ]);
    const sessions = new Map<string, SessionRecord>();
    for (const session of [...(recent.body ?? []), ...(live.body ?? [])]) {
      sessions.set(session.id, session);
    }
    this.#store.synced({
      daemon: {
        svcVersion: health.body.svcVersion,
        startedAt: health.body.startedAt,
        instanceId: health.body.instanceId,
      },
      sessions: [...sessions.values()],
      approvals: approvals?.approvals ?? [],
      routines: overview?.routines ?? [],
      inbox: inbox?.results ?? [],
      harnesses: enabledHarnesses(capabilities.body?.capabilities ?? []),
      todayCostUsd: cost,
    });
  }

  async #readSession(sessionId: string): Promise<void> {
    const response = await this.#client.get<SessionRecord>(
      `/sessions/${encodeURIComponent(sessionId)}`,
    );
    if (!response.ok) return;
    const record = response.body;
    this.#store.session(record);
    // A resumed conversation (D26) goes on in the same log: follow it again from where it ended.
    const abort = this.#focusAbort;
    if (
      record.id === this.#focusedId && record.status === "running" &&
      this.#focusEndedAt !== null && abort !== null
    ) {
      const afterSeq = this.#focusEndedAt;
      this.#focusEndedAt = null;
      this.#focus.resumed();
      void this.#follow(record, abort.signal, afterSeq);
    }
  }

  async #readApprovals(): Promise<void> {
    const result = await this.#action<{ approvals: PendingApproval[] }>("svc.sessions.approvals");
    if (result) this.#store.approvals(result.approvals);
  }

  async #readAutomations(): Promise<void> {
    const [overview, inbox] = await Promise.all([
      this.#action<{ routines: RoutineOverview[] }>("svc.automations.overview"),
      this.#action<{ results: InboxEntry[] }>("svc.automations.inbox", { limit: 200 }),
    ]);
    if (overview && inbox) this.#store.automations(overview.routines, inbox.results);
  }

  async #readCost(): Promise<void> {
    this.#store.cost(await this.#todayCost());
  }

  async #todayCost(): Promise<number | null> {
    const response = await this.#client.get<{ total?: { costUsd?: number | null } }>(
      `/usage?since=${localDay(this.#now())}`,
    );
    return response.ok ? response.body.total?.costUsd ?? null : null;
  }

  async #action<T>(action: string, fields: Record<string, unknown> = {}): Promise<T | null> {
    const response = await this.#client.post<{ result?: T }>("/actions", { action, ...fields });
    return response.ok ? response.body.result ?? null : null;
  }
}

/** Reconnects of a stream: forever, at most 2 s apart (the daemon may be restarting). */
const RECONNECT = { attempts: Infinity, initialDelayMs: 200, maxDelayMs: 2000 };

interface CapabilityRecord {
  id: string;
  label?: string;
  status: string;
}

const HARNESS_PREFIX = "svc.harness.";

/**
 * The harnesses a new session may use, from the capability records (D5):
 * enabled ones, and degraded ones (a slow version probe, still launchable).
 */
function enabledHarnesses(records: readonly CapabilityRecord[]): HarnessChoice[] {
  return records
    .filter((record) => record.id.startsWith(HARNESS_PREFIX) && record.status !== "disabled")
    .map((record) => ({
      id: record.id.slice(HARNESS_PREFIX.length),
      label: record.label ?? record.id.slice(HARNESS_PREFIX.length),
    }));
}

/**
 * The banner while no daemon answers: the advice first, the error after it,
 * so a cut at 80 columns loses only the error (issue 38 item 12).
 */
export function awayReason(error: unknown, advice = LOCAL_ADVICE): string {
  const message = error instanceof Error ? error.message : String(error);
  return `No daemon answers; retrying. ${advice} (${message})`;
}

/** What to do when this machine's daemon is away. */
export const LOCAL_ADVICE = "Start one with: svc serve";

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}
