/**
 * What `svc ui` shows for one state of the view (view_state.ts) over the
 * store and the focus store: the lists each view pages through, the
 * session in focus and its request, and the layout of the body (how many
 * rows the conversation, a request and the help get). Face-free and pure:
 * the keys read the same frame the screen renders, so a selection or a
 * request's `whole` cannot mean one thing on screen and another to a key.
 */
import type { FocusSnapshot } from "./focus.ts";
import { hostsBanners, type HostStatus, sessionIdWidth } from "./hosts.ts";
import { type HelpPage, helpPage } from "./help_page.ts";
import { type LandRow, landRows } from "./land_queue_view.ts";
import {
  type AttentionItem,
  attentionItems,
  type FleetRow,
  fleetRows,
  fleetState,
  type InboxEntry,
  inboxOrder,
  lastEventOf,
  type PendingApproval,
  type SessionRecord,
  type Snapshot,
} from "./model.ts";
import { conversationRoom, type RequestPanel, requestPanel, requestRoom } from "./request_panel.ts";
import type { TranscriptWindow } from "./transcript_window.ts";
import type { ViewSnapshot } from "./view_state.ts";

/** The views whose keys move a selection through a list. */
export const LISTS = ["fleet", "attention", "approvals", "routines", "inbox", "land"] as const;
export type ListName = typeof LISTS[number];

/** Whether `view` is a list view. */
export function isListView(view: string): view is ListName {
  return (LISTS as readonly string[]).includes(view);
}

/**
 * The daemon's state a frame is made from: one host's snapshot (the web's),
 * or several hosts' merged, with each host's status (svc ui's, hosts.ts).
 */
export type FrameSnapshot = Snapshot & { readonly hosts?: readonly HostStatus[] };

/** The terminal's size in cells. */
export interface ScreenSize {
  readonly columns: number;
  readonly rows: number;
}

/** The part of the view state a frame depends on. */
export type FrameState = Pick<
  ViewSnapshot,
  | "view"
  | "selected"
  | "showEnded"
  | "filter"
  | "help"
  | "input"
  | "scroll"
  | "requestRead"
  | "diff"
  | "nowMs"
>;

/** Every list a view pages through, in the order it shows them. */
export interface FrameLists {
  readonly fleet: FleetRow[];
  readonly attention: AttentionItem[];
  readonly approvals: readonly PendingApproval[];
  readonly routines: Snapshot["routines"];
  readonly inbox: InboxEntry[];
  readonly land: LandRow[];
}

export interface ViewFrame {
  readonly lists: FrameLists;
  /** The selected row of each list, kept inside it. */
  readonly selected: Readonly<Record<ListName, number>>;
  /** The shortest prefix that tells the sessions' ids apart. */
  readonly idWidth: number;
  /** Several hosts (D32): a HOST column, ids shown without their host. */
  readonly multiHost: boolean;
  /** The session in focus, and its state as the fleet shows it. */
  readonly session: SessionRecord | null;
  readonly sessionState: ReturnType<typeof fleetState> | null;
  /** The request `y`/`n`/`a` answer here: the session's own, or the selected one. */
  readonly approval: PendingApproval | null;
  /** That request as the view shows it (null: none shown, e.g. under a diff). */
  readonly request: RequestPanel | null;
  /** Rows under the header and above the footer. */
  readonly bodyHeight: number;
  /** The session view's conversation window. */
  readonly conversation: { readonly width: number; readonly height: number };
  /** Rows a page key moves. */
  readonly pageLines: number;
  /** The `?` overlay's page on screen, or null. */
  readonly help: HelpPage | null;
}

/** What a frame is made from besides the view state. */
export interface FrameSources {
  readonly snapshot: FrameSnapshot;
  readonly focused: FocusSnapshot;
  readonly size: ScreenSize;
  readonly stalledAfterMs: number;
  /** The conversation's wrapper (svc ui's); without one no request panel is laid out. */
  readonly transcript: TranscriptWindow | null;
  /** Rows a page key moves a list by; null: the body's rows less the list's frame. */
  readonly listPage: number | null;
}

/**
 * The lists of `snapshot` under `state`, made again only when what they
 * depend on changed (typing in the input line does not sort the fleet).
 */
export class FrameLister {
  #key: unknown[] = [];
  #lists: FrameLists | null = null;
  #idKey: unknown = null;
  #idWidth = 0;

  lists(snapshot: Snapshot, state: FrameState, stalledAfterMs: number): FrameLists {
    const key = [snapshot, state.nowMs, state.showEnded, state.filter, stalledAfterMs];
    if (this.#lists !== null && key.every((part, i) => part === this.#key[i])) return this.#lists;
    const options = { nowMs: state.nowMs, stalledAfterMs };
    this.#key = key;
    this.#lists = {
      fleet: fleetRows(snapshot, { ...options, showEnded: state.showEnded, filter: state.filter }),
      attention: attentionItems(snapshot, options),
      approvals: snapshot.approvals,
      routines: snapshot.routines,
      inbox: inboxOrder(snapshot.inbox),
      land: landRows(snapshot.landQueue, snapshot.sessions),
    };
    return this.#lists;
  }

  idWidth(snapshot: FrameSnapshot): number {
    if (this.#idKey !== snapshot.sessions) {
      this.#idKey = snapshot.sessions;
      this.#idWidth = sessionIdWidth({ ...snapshot, hosts: snapshot.hosts ?? [] });
    }
    return this.#idWidth;
  }
}

/** The frame of `state` over `sources`. */
export function viewFrame(
  state: FrameState,
  sources: FrameSources,
  lister: FrameLister,
): ViewFrame {
  const { snapshot, focused, size } = sources;
  const lists = lister.lists(snapshot, state, sources.stalledAfterMs);
  const selected = Object.fromEntries(
    LISTS.map((name) => [
      name,
      Math.min(state.selected[name] ?? 0, Math.max(0, lists[name].length - 1)),
    ]),
  ) as Record<ListName, number>;
  const session = focused.sessionId === null
    ? null
    : snapshot.sessions.get(focused.sessionId) ?? null;
  const approval = state.view === "session"
    ? session === null
      ? null
      : snapshot.approvals.find((waiting) => waiting.sessionId === session.id) ?? null
    : snapshot.approvals[selected.approvals] ?? null;
  const hosts = snapshot.hosts ?? [];
  const banners = hostsBanners({ banner: snapshot.banner, connection: snapshot.connection, hosts });
  const bodyHeight = Math.max(3, size.rows - 4 - banners.length);
  // The session view's rows below the conversation: the partial line, the input line (and what
  // Enter does on an ended session), the request whole before its keys (issue 38).
  const reserved = (focused.partial !== null && state.scroll === null ? 1 : 0) +
    (state.input === null ? 0 : session?.status === "running" ? 1 : 2);
  const requestView = state.view === "session" || state.view === "approvals" ? state.view : null;
  const request = requestView && approval && !state.diff && sources.transcript
    ? requestPanel(approval, {
      width: size.columns,
      room: requestRoom(requestView, {
        height: bodyHeight,
        listed: lists.approvals.length,
        reserved,
      }),
      reading: state.requestRead,
      window: sources.transcript,
      nowMs: state.nowMs,
    })
    : null;
  const conversation = {
    width: size.columns,
    height: conversationRoom(bodyHeight, { request, reserved }),
  };
  return {
    lists,
    selected,
    idWidth: lister.idWidth(snapshot),
    multiHost: hosts.length > 1,
    session,
    sessionState: session
      ? fleetState(session, lastEventOf(snapshot, session), state.nowMs, sources.stalledAfterMs)
      : null,
    approval: requestView ? approval : null,
    request,
    bodyHeight,
    conversation,
    pageLines: state.view === "session" && !state.diff
      ? conversation.height
      : isListView(state.view) && sources.listPage !== null
      ? sources.listPage
      : Math.max(1, bodyHeight - 4),
    help: state.help === null
      ? null
      : helpPage(state.view, { width: size.columns, height: bodyHeight, page: state.help }),
  };
}
