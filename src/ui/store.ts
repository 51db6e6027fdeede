/**
 * The one store of `svc ui` (D25): a snapshot replaced whole on every
 * change, fed only by the sync loop (sync.ts), read by the views through
 * `subscribe`/`snapshot` (React's external-store shape). A focused
 * session's transcript lives in its own small store (focus.ts).
 */
import {
  type DaemonFacts,
  EMPTY_SNAPSHOT,
  type HarnessChoice,
  type InboxEntry,
  type PendingApproval,
  type RoutineOverview,
  type SessionRecord,
  type Snapshot,
} from "./model.ts";
import { type Clock, systemClock } from "../clock.ts";
import type { LandQueueItem } from "./land_queue_view.ts";
import { type SeenState, unseenAfterRestart } from "./seen_state.ts";
import { Listeners } from "./listeners.ts";

/** Everything a full sync reads from the list routes. */
export interface SyncedLists {
  daemon: DaemonFacts;
  sessions: readonly SessionRecord[];
  approvals: readonly PendingApproval[];
  routines: readonly RoutineOverview[];
  inbox: readonly InboxEntry[];
  harnesses: readonly HarnessChoice[];
  todayCostUsd: number | null;
}

/**
 * Views hear of progress at most this often: 50 busy sessions send 50
 * progress notices a second, and a frame per notice would cost the UI most
 * of a core (measured: 54 % of one for 50 sessions). Four fleet frames a
 * second are plenty to read; the focused session's conversation has its own
 * store and is not delayed, and what the user acts on (an approval, a
 * session that needs them or ended, the connection) is published at once
 * (issue 38: approvals reached the screen 250 ms late at p50).
 */
export const NOTIFY_INTERVAL_MS = 250;

/** The banner after a daemon restart (D25). */
const RESTARTED = "The daemon restarted: everything was read again";

export class UiStore {
  #snapshot: Snapshot = EMPTY_SNAPSHOT;
  readonly #listeners = new Listeners();
  readonly #urgentListeners = new Listeners();
  #lastNotified = -Infinity;
  /** Aborts the wait of a publication that is held back. */
  #pendingNotify: AbortController | null = null;
  readonly #notifyIntervalMs: number;
  readonly #clock: Clock;

  /** What the last run of the UI left unseen, applied at the first sync (then null). */
  #restored: SeenState | null;

  /**
   * `notifyIntervalMs`: 0 tells views of every change at once (tests); `clock`: the throttle's;
   * `restored`: what the last run left (seen_state.ts).
   */
  constructor(
    options: { notifyIntervalMs?: number; clock?: Clock; restored?: SeenState | null } = {},
  ) {
    this.#notifyIntervalMs = options.notifyIntervalMs ?? NOTIFY_INTERVAL_MS;
    this.#clock = options.clock ?? systemClock;
    this.#restored = options.restored ?? null;
  }
  /** The session on screen: its finished turns and failures are seen as they happen. */
  #focused: string | null = null;
  /** New approvals since the last `takeNewApprovals` (one bell each). */
  #newApprovals = 0;

  /** The current snapshot (the same object until something changes). */
  readonly snapshot = (): Snapshot => this.#snapshot;

  /** Calls `listener` after every change; returns the unsubscribe. */
  readonly subscribe = this.#listeners.subscribe;

  /**
   * Calls `listener` after the `subscribe` listeners of each change published
   * at once (what the user acts on), so a face can put it on screen without
   * its own frame throttle (issue 38 item 7); returns the unsubscribe.
   */
  readonly subscribeUrgent = this.#urgentListeners.subscribe;

  /** Approvals that arrived since the last call (for the bell). */
  takeNewApprovals(): number {
    const count = this.#newApprovals;
    this.#newApprovals = 0;
    return count;
  }

  /** A full sync after (re)connecting: every list replaced. */
  synced(lists: SyncedLists): void {
    const restarted = this.#snapshot.daemon !== null &&
      this.#snapshot.daemon.instanceId !== lists.daemon.instanceId;
    const sessions = new Map(lists.sessions.map((session) => [session.id, session]));
    const known = new Set(this.#snapshot.approvals.map(approvalKey));
    this.#newApprovals += lists.approvals.filter((a) => !known.has(approvalKey(a))).length;
    this.#set({
      connection: "connected",
      banner: restarted ? RESTARTED : null,
      daemon: lists.daemon,
      sessions,
      lastEventAt: new Map(),
      approvals: lists.approvals,
      routines: lists.routines,
      inbox: lists.inbox,
      harnesses: lists.harnesses,
      todayCostUsd: lists.todayCostUsd,
      landQueue: this.#snapshot.landQueue,
      unseen: this.#unseenAt(sessions),
    }, { now: true });
  }

  /**
   * The user has read the banner of a connected daemon (the restart): it
   * goes. A disconnected daemon's banner stays until it answers again.
   */
  dismissBanner(): void {
    if (this.#snapshot.banner === null || this.#snapshot.connection !== "connected") return;
    this.#set({ ...this.#snapshot, banner: null }, { now: true });
  }

  /** Who needs the user after a sync: those known unseen, and at the first one, the restored. */
  #unseenAt(sessions: ReadonlyMap<string, SessionRecord>): Set<string> {
    const unseen = new Set([...this.#snapshot.unseen].filter((id) => sessions.has(id)));
    if (this.#restored !== null) {
      for (const id of unseenAfterRestart(sessions.values(), this.#restored)) unseen.add(id);
      this.#restored = null;
    }
    if (this.#focused !== null) unseen.delete(this.#focused);
    return unseen;
  }

  /** The daemon cannot be reached (or the feed dropped): say so, keep what is known. */
  disconnected(reason: string): void {
    this.#set({ ...this.#snapshot, connection: "disconnected", banner: reason }, { now: true });
  }

  /** A session's record changed (created, updated, ended). */
  session(record: SessionRecord): void {
    const previous = this.#snapshot.sessions.get(record.id);
    const sessions = new Map(this.#snapshot.sessions);
    sessions.set(record.id, record);
    let unseen = this.#snapshot.unseen;
    const turnEnded = record.activity === "idle" && previous?.activity !== "idle" &&
      record.turns > 0;
    const failed = record.status === "failed" && previous?.status !== "failed";
    if ((turnEnded || failed) && record.id !== this.#focused) {
      unseen = new Set(unseen).add(record.id);
    }
    // Waiting, a finished turn, an ending: the user acts on these, so they are not held back.
    const changed = previous?.status !== record.status || previous?.activity !== record.activity;
    this.#set({ ...this.#snapshot, sessions, unseen }, { now: changed });
  }

  /** A session's log grew (`session.progress`). */
  progress(sessionId: string, atMs: number): void {
    const lastEventAt = new Map(this.#snapshot.lastEventAt);
    lastEventAt.set(sessionId, atMs);
    this.#set({ ...this.#snapshot, lastEventAt });
  }

  /** The pending approvals, read again after a request or an answer. */
  approvals(approvals: readonly PendingApproval[]): void {
    const known = new Set(this.#snapshot.approvals.map(approvalKey));
    this.#newApprovals += approvals.filter((a) => !known.has(approvalKey(a))).length;
    this.#set({ ...this.#snapshot, approvals }, { now: true });
  }

  /** Routines and inbox, read again after an automation change or a run. */
  automations(routines: readonly RoutineOverview[], inbox: readonly InboxEntry[]): void {
    this.#set({ ...this.#snapshot, routines, inbox });
  }

  /**
   * An inbox result marked read: by this UI's `m` at once, by any UI through
   * the feed's `inbox.read`; the row and the tab's count change here.
   */
  inboxRead(runId: string, readAt: string): void {
    const unread = this.#snapshot.inbox.some((entry) =>
      entry.runId === runId && entry.readAt === null
    );
    if (!unread) return; // Already read: the notice of this UI's own `m`, or an unlisted result.
    const inbox = this.#snapshot.inbox.map((entry) =>
      entry.runId === runId && entry.readAt === null ? { ...entry, readAt } : entry
    );
    this.#set({ ...this.#snapshot, inbox }, { now: true });
  }

  /** Today's cost, read again after a session changed. */
  cost(todayCostUsd: number | null): void {
    this.#set({ ...this.#snapshot, todayCostUsd });
  }

  /** The land queue, read again after a `land.*` notice (D34): an item's state is acted on. */
  landQueue(landQueue: readonly LandQueueItem[]): void {
    this.#set({ ...this.#snapshot, landQueue }, { now: true });
  }

  /** The session on screen (null: none); looking at a session marks it seen. */
  focus(sessionId: string | null): void {
    this.#focused = sessionId;
    if (sessionId === null || !this.#snapshot.unseen.has(sessionId)) return;
    const unseen = new Set(this.#snapshot.unseen);
    unseen.delete(sessionId);
    this.#set({ ...this.#snapshot, unseen }, { now: true });
  }

  /** Replaces the snapshot; views hear of it at once (`now`) or within the interval. */
  #set(snapshot: Snapshot, options: { now?: boolean } = {}): void {
    this.#snapshot = snapshot;
    if (options.now) {
      this.#notify();
      this.#urgentListeners.notify();
      return;
    }
    if (this.#pendingNotify !== null) return;
    // At most one interval, even when the wall clock stepped back.
    const wait = Math.min(
      this.#notifyIntervalMs,
      this.#lastNotified + this.#notifyIntervalMs - this.#clock.now(),
    );
    if (wait <= 0) return this.#notify();
    const pending = new AbortController();
    this.#pendingNotify = pending;
    void this.#clock.sleep(wait, pending.signal).then(() => {
      if (!pending.signal.aborted) this.#notify();
    });
  }

  #notify(): void {
    this.#pendingNotify?.abort();
    this.#pendingNotify = null;
    this.#lastNotified = this.#clock.now();
    this.#listeners.notify();
  }
}

function approvalKey(approval: PendingApproval): string {
  return `${approval.sessionId}\n${approval.requestId}`;
}
