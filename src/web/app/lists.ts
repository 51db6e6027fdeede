/**
 * What the web app's attention, routines and inbox views list (D30), from
 * `svc ui`'s own snapshot and ordering (`attentionItems`, `inboxOrder`,
 * `routineHealth`): one row per item with the accessible name its list
 * item gets, and the controls the device's scopes allow. Daemon text is
 * made one line (`safeLine`); the views render it as React text, never HTML.
 */
import { age, safeLine, weekdayTime } from "../../ui/format.ts";
import {
  attentionItems,
  type AttentionReason,
  type FleetRow,
  fleetRows,
  type InboxEntry,
  inboxOrder,
  type PendingApproval,
  routineHealth,
  type RoutineOverview,
  type Snapshot,
} from "../../ui/model.ts";
import { cancellable, type LandRow, landRows } from "../../ui/land_queue_view.ts";
import { allows } from "./device.ts";

/** A session with no event for this long is shown stalled (as `svc ui` does). */
export const STALLED_AFTER_MS = 120_000;

/** A session that needs the user. */
export interface AttentionRow {
  readonly sessionId: string;
  readonly reason: AttentionReason;
  /** The list item's `aria-label`: why, and the session's title (or id). */
  readonly label: string;
  readonly title: string;
  readonly meta: string;
}

/** The sessions that need the user, most urgent first (`attentionItems`). */
export function attentionRows(snapshot: Snapshot, nowMs: number): AttentionRow[] {
  return attentionItems(snapshot, { nowMs, stalledAfterMs: STALLED_AFTER_MS }).map((item) => {
    const title = safeLine(item.session.title || item.session.id);
    return {
      sessionId: item.session.id,
      reason: item.reason,
      label: `${item.reason}: ${title}`,
      title,
      meta: `${safeLine(item.session.harness)} · ${item.session.id} · ${
        age(item.since, nowMs)
      } ago`,
    };
  });
}

/** A routine as the routines view lists it. */
export interface RoutineRow {
  readonly id: string;
  readonly label: string;
  readonly name: string;
  readonly status: "active" | "paused";
  /** When it runs next (local weekday and time), `-` when paused or never. */
  readonly nextDue: string;
  readonly lastRun: string;
  readonly health: string;
  readonly healthy: boolean;
  /** Whether Run now, Pause and Activate are offered: `svc.automations.run|pause|activate` need operate. */
  readonly mayOperate: boolean;
  /** What its status button does: a paused routine activates, an active one pauses (D30). */
  readonly statusAction: "Pause" | "Activate";
}

/** The routines in the daemon's order. */
export function routineRows(
  routines: readonly RoutineOverview[],
  scopes: readonly string[],
): RoutineRow[] {
  const mayOperate = allows(scopes, "operate");
  return routines.map((routine) => {
    const health = safeLine(routineHealth(routine));
    const name = safeLine(routine.name);
    return {
      id: routine.id,
      label: `${safeLine(routine.id)}: ${name}`,
      name,
      status: routine.status === "ACTIVE" ? "active" : "paused",
      nextDue: routine.status === "ACTIVE" ? weekdayTime(routine.nextDueAt) : "-",
      lastRun: safeLine(routine.lastRun?.status ?? "-"),
      health,
      healthy: health === "ok",
      mayOperate,
      statusAction: routine.status === "ACTIVE" ? "Pause" : "Activate",
    };
  });
}

/** A routine run's result as the inbox lists it. */
export interface InboxRow {
  readonly runId: string;
  readonly label: string;
  readonly unread: boolean;
  readonly routineId: string;
  readonly status: string;
  readonly headline: string;
  readonly ended: string;
}

/** The inbox, unread first, then the newest (`inboxOrder`). */
export function inboxRows(entries: readonly InboxEntry[], nowMs: number): InboxRow[] {
  return inboxOrder(entries).map((entry) => {
    const routineId = safeLine(entry.routineId);
    const headline = safeLine(entry.headline ?? "");
    const unread = entry.readAt === null;
    return {
      runId: entry.runId,
      label: `${unread ? "unread: " : ""}${routineId}: ${headline || entry.status}`,
      unread,
      routineId,
      status: safeLine(entry.status),
      headline,
      ended: entry.endedAt === null ? "" : `${age(Date.parse(entry.endedAt), nowMs)} ago`,
    };
  });
}

/** An item of the land queue as the land view lists it (D34). */
export interface LandListRow {
  readonly itemId: string;
  readonly sessionId: string;
  readonly label: string;
  readonly state: LandRow["state"];
  /** The state as `svc ui` shows it (`✓ landed`). */
  readonly stateText: string;
  readonly title: string;
  readonly tries: string;
  readonly detail: string;
  /** Whether Cancel is offered: a queued, sent back or failed item, an operate device. */
  readonly mayCancel: boolean;
}

/** The land queue in queue order (`landRows`, as `svc ui`'s view 7). */
export function landListRows(snapshot: Snapshot, scopes: readonly string[]): LandListRow[] {
  const operate = allows(scopes, "operate");
  return landRows(snapshot.landQueue, snapshot.sessions).map((row) => ({
    itemId: row.itemId,
    sessionId: row.sessionId,
    label: `${row.sessionId}: ${row.state.replace("_", " ")}`,
    state: row.state,
    stateText: row.label,
    title: row.title,
    tries: row.tries,
    detail: row.detail,
    mayCancel: operate && cancellable(row.state),
  }));
}

/** What the fleet shows: ended sessions too (`a` toggles), and the sessions matching a filter (`/`). */
export interface FleetOptions {
  readonly showEnded: boolean;
  readonly filter: string;
}

/** Every list view's rows, computed once a render for the view and its keys alike. */
export interface PageLists {
  readonly fleet: FleetRow[];
  readonly attention: AttentionRow[];
  readonly approvals: readonly PendingApproval[];
  readonly routines: RoutineRow[];
  readonly inbox: InboxRow[];
  readonly land: LandListRow[];
}

export function pageLists(
  snapshot: Snapshot,
  options: { scopes: readonly string[]; fleet: FleetOptions; nowMs: number },
): PageLists {
  const { scopes, nowMs } = options;
  return {
    fleet: fleetRows(snapshot, { nowMs, stalledAfterMs: STALLED_AFTER_MS, ...options.fleet }),
    attention: attentionRows(snapshot, nowMs),
    approvals: snapshot.approvals,
    routines: routineRows(snapshot.routines, scopes),
    inbox: inboxRows(snapshot.inbox, nowMs),
    land: landListRows(snapshot, scopes),
  };
}

/** A list view's name in `PageLists`. */
export type ListName = keyof PageLists;

/** Whether `view` is a list view (its keys move a selection). */
export function isList(view: string): view is ListName {
  return ["fleet", "attention", "approvals", "routines", "inbox", "land"].includes(view);
}

/** The session Enter opens from row `index` of a list (routines: none; the inbox: a result). */
export function openedBy(
  lists: PageLists,
  list: ListName,
  index: number,
): { view: "session"; sessionId: string } | { view: "inbox"; runId: string } | null {
  const session = (sessionId: string | undefined) =>
    sessionId === undefined ? null : { view: "session" as const, sessionId };
  switch (list) {
    case "fleet":
      return session(lists.fleet[index]?.session.id);
    case "attention":
      return session(lists.attention[index]?.sessionId);
    case "approvals":
      return session(lists.approvals[index]?.sessionId);
    case "land":
      return session(lists.land[index]?.sessionId);
    case "inbox": {
      const runId = lists.inbox[index]?.runId;
      return runId === undefined ? null : { view: "inbox", runId };
    }
    case "routines":
      return null;
  }
}
