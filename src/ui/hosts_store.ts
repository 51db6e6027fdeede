/**
 * `svc ui` over several hosts (D32): one `UiStore` and one `UiSync` per
 * host, each following its own daemon and reconnecting on its own, so a host
 * that is away stalls nobody else. `HostsStore` is what the views read (the
 * merge of hosts.ts, recomputed when a host's snapshot changes); `HostsSync`
 * sends the focused session to its own host's loop.
 */
import type { FocusStore } from "./focus.ts";
import {
  hostedId,
  type HostSnapshot,
  type HostsSnapshot,
  mergeHosts,
  splitHostedId,
} from "./hosts.ts";
import type { SessionRecord, Snapshot } from "./model.ts";
import type { UiStore } from "./store.ts";
import type { FocusSink, UiSync } from "./sync.ts";
import { Listeners } from "./listeners.ts";

/** One host as the UI holds it: its context name, its store and its loop. */
export interface UiHost {
  readonly name: string;
  readonly store: UiStore;
  readonly sync: UiSync;
}

/** What the views read and the few changes they make, over every host. */
export class HostsStore {
  readonly #hosts: readonly Pick<UiHost, "name" | "store">[];
  readonly #listeners = new Listeners();
  readonly #urgentListeners = new Listeners();
  /** The hosts' snapshots the merge was made of (a change to any makes a new merge). */
  #parts: readonly Snapshot[] = [];
  #merged: HostsSnapshot | null = null;

  constructor(hosts: readonly Pick<UiHost, "name" | "store">[]) {
    if (hosts.length === 0) throw new Error("A view of hosts needs at least one host");
    this.#hosts = hosts;
    for (const host of hosts) {
      host.store.subscribe(() => this.#listeners.notify());
      host.store.subscribeUrgent(() => this.#urgentListeners.notify());
    }
  }

  /** The merged snapshot (the same object until a host's changes). */
  readonly snapshot = (): HostsSnapshot => {
    const parts = this.#hosts.map((host) => host.store.snapshot());
    if (this.#merged === null || parts.some((part, i) => part !== this.#parts[i])) {
      this.#parts = parts;
      this.#merged = mergeHosts(
        this.#hosts.map((host, i): HostSnapshot => ({ name: host.name, snapshot: parts[i] })),
      );
    }
    return this.#merged;
  };

  /** Calls `listener` after any host's change; returns the unsubscribe. */
  readonly subscribe = this.#listeners.subscribe;

  /** Calls `listener` after a host's change that must reach the screen at once (store.ts). */
  readonly subscribeUrgent = this.#urgentListeners.subscribe;

  /** Approvals that arrived on any host since the last call (for the bell). */
  takeNewApprovals(): number {
    return this.#hosts.reduce((sum, host) => sum + host.store.takeNewApprovals(), 0);
  }

  /** The user read the banners: each answering host's goes; an away host's stays. */
  dismissBanner(): void {
    for (const host of this.#hosts) host.store.dismissBanner();
  }

  /** An inbox result marked read, on its host. */
  inboxRead(runId: string, readAt: string): void {
    const { host, id } = this.#route(runId);
    host.store.inboxRead(id, readAt);
  }

  #route(id: string): { host: Pick<UiHost, "store">; id: string } {
    return routeId(this.#hosts, id);
  }
}

/** What `HostsSync` needs of a host's loop. */
type HostLoop = { readonly name: string; readonly sync: Pick<UiSync, "run" | "focus" | "stop"> };

/** Runs every host's loop and follows the focused session on its own host. */
export class HostsSync {
  readonly #hosts: readonly HostLoop[];

  constructor(hosts: readonly HostLoop[]) {
    this.#hosts = hosts;
  }

  /** Follows every host until `signal` aborts; each host reconnects on its own. */
  async run(signal: AbortSignal): Promise<void> {
    await Promise.all(this.#hosts.map((host) => host.sync.run(signal)));
  }

  /** Shows `session` (a merged record; null: none), from its own host's stream. */
  focus(session: SessionRecord | null): void {
    if (this.#hosts.length === 1) return this.#hosts[0].sync.focus(session);
    const target = session === null ? null : routeId(this.#hosts, session.id);
    // The other hosts let go first: the one focus store then holds the new session only.
    for (const host of this.#hosts) if (host !== target?.host) host.sync.focus(null);
    if (session === null || target === null) return;
    const { host: _host, ...record } = session;
    target.host.sync.focus({ ...record, id: target.id });
  }

  stop(): void {
    for (const host of this.#hosts) host.sync.stop();
  }
}

/**
 * The focus store as one host's loop writes to it: the session it resets to
 * is named by its hosted id, so the views find it in the merged snapshot.
 */
export function hostedFocus(host: string, focus: FocusStore, multiHost: boolean): FocusSink {
  if (!multiHost) return focus;
  return {
    reset: (sessionId, protocol) =>
      focus.reset(sessionId === null ? null : hostedId(host, sessionId), protocol),
    append: (records) => focus.append(records),
    ended: () => focus.ended(),
    resumed: () => focus.resumed(),
  };
}

/** The host a merged id belongs to and the daemon's own id; one host takes every id as is. */
export function routeId<H extends { readonly name: string }>(
  hosts: readonly H[],
  id: string,
): { host: H; id: string } {
  if (hosts.length === 1) return { host: hosts[0], id };
  const split = splitHostedId(id);
  const host = hosts.find((candidate) => candidate.name === split.host);
  if (host === undefined) throw new Error(`No host "${split.host}" in this view`);
  return { host, id: split.id };
}
