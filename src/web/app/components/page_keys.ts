/// <reference lib="dom" />
/**
 * The desktop keys on the page (D30): each keydown outside a field becomes
 * `svc ui`'s command (`pageCommand`, keyboard.ts) and the command does what
 * it does in `svc ui`, here: the same actions through the runtime, the same
 * list moves, the session's own request answered by `y`/`n`/`a`. A command
 * this face has no part for says so where outcomes show.
 */
import { useEffect, useRef } from "react";
import type { Command, View } from "../../../ui/keymap.ts";
import { attentionItems, nextAttention, type Snapshot } from "../../../ui/model.ts";
import { cancellable, NOT_CANCELLABLE } from "../../../ui/land_queue_view.ts";
import { allows } from "../device.ts";
import {
  backRoute,
  isMove,
  type KeyPlace,
  movedSelection,
  pageCommand,
  scrollOf,
  viewKeyRoute,
} from "../keyboard.ts";
import {
  type FleetOptions,
  isList,
  type ListName,
  openedBy,
  type PageLists,
  STALLED_AFTER_MS,
} from "../lists.ts";
import { hrefOf, type Route } from "../route.ts";
import { sessionControls } from "../session_controls.ts";
import type { WebRuntime } from "../web_runtime.ts";
import { offersDiff } from "../worktree_review.ts";
import { FLEET_FILTER_ID } from "./fleet_view.tsx";
import { cancelLand } from "./land_view.tsx";
import { INPUT_ID, TRANSCRIPT_ID } from "./session_view.tsx";

/** Everything a key may read or change on the page. */
export interface KeyPage {
  runtime: WebRuntime;
  route: Route;
  view: View | null;
  snapshot: Snapshot;
  scopes: readonly string[];
  lists: PageLists;
  /** The selected row of the current list view. */
  selected: number;
  select(index: number): void;
  fleet: FleetOptions;
  setFleet(options: FleetOptions): void;
  help: boolean;
  setHelp(shown: boolean): void;
}

/** Follows the page's keydowns while it is mounted; `page` is read at each key. */
export function usePageKeys(page: KeyPage): void {
  const current = useRef(page);
  current.current = page;
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.isComposing) return;
      const at = current.current;
      const command = pageCommand(event, at.view, placeOf(event));
      if (command === null) return;
      if (at.help && command !== "help" && command !== "back") return;
      event.preventDefault();
      runCommand(command, at);
    };
    addEventListener("keydown", onKey);
    return () => removeEventListener("keydown", onKey);
  }, []);
}

function placeOf(event: KeyboardEvent): KeyPlace {
  const target = event.target instanceof Element ? event.target : null;
  return {
    typing: target !== null &&
      (target.closest("input, textarea, select") !== null ||
        (target instanceof HTMLElement && target.isContentEditable)),
    onControl: target !== null && target.closest("a[href], button") !== null,
    selectedText: (getSelection()?.toString() ?? "") !== "",
  };
}

/** Rows a page key moves the selection by. */
const PAGE_ROWS = 10;

/** The list a page shows (the inbox's result page is not one), or null. */
export function listOf(route: Route): ListName | null {
  if (route.view === "inbox") return route.runId === null ? "inbox" : null;
  return isList(route.view) ? route.view : null;
}

/** What `command` does on the page. */
function runCommand(command: Command, page: KeyPage): void {
  const { runtime, route, view, snapshot, scopes } = page;
  const say = (message: string) => runtime.say({ ok: false, message });
  const go = (to: Exclude<Route, { view: "pair" }>) => location.assign(hrefOf(to));
  const sessionId = route.view === "session" || route.view === "diff" ? route.sessionId : null;
  const session = sessionId === null ? null : snapshot.sessions.get(sessionId) ?? null;
  if (command === "help") return page.setHelp(!page.help);
  if (command === "back") {
    if (page.help) return page.setHelp(false);
    const back = backRoute(route);
    if (back !== null) go(back);
    return;
  }
  if (command.startsWith("view-")) {
    const to = viewKeyRoute(command, runtime.lastSessionId);
    return to === null ? say("No session shown yet: Enter on a session opens it") : go(to);
  }
  if (isMove(command)) return move(command, page);
  switch (command) {
    case "open": {
      const list = listOf(route);
      const to = list === null ? null : openedBy(page.lists, list, page.selected);
      if (to !== null) go(to);
      return;
    }
    case "next-attention": {
      const items = attentionItems(snapshot, {
        nowMs: Date.now(),
        stalledAfterMs: STALLED_AFTER_MS,
      });
      const next = nextAttention(items, sessionId);
      return next === null
        ? runtime.say({ ok: true, message: "Nothing needs you" })
        : go({ view: "session", sessionId: next });
    }
    case "filter":
      return document.getElementById(FLEET_FILTER_ID)?.focus();
    case "toggle-ended":
      return page.setFleet({ ...page.fleet, showEnded: !page.fleet.showEnded });
    case "allow":
    case "deny":
    case "always": {
      const approval = view === "session"
        ? snapshot.approvals.find((waiting) => waiting.sessionId === sessionId)
        : snapshot.approvals[page.selected];
      if (!approval) return say("No request waits here");
      if (!allows(scopes, "approve")) return say("This device may read only");
      // `a` allows for this session, as the card's Always does (svc ui asks where).
      void runtime.answer(approval, command);
      return;
    }
    case "more-request":
      return say("The whole request is on its card");
    case "input":
      if (document.getElementById(INPUT_ID) === null) return say("This session takes no turn here");
      return document.getElementById(INPUT_ID)?.focus();
    case "interrupt":
    case "close":
    case "resume":
    case "kill": {
      if (session === null) return;
      if (!sessionControls(session, scopes).controls.includes(command)) {
        return say(`No ${command} for this session here`);
      }
      if (command === "kill" && !confirm(`Kill ${session.id} (${session.harness})?`)) return;
      void runtime.control(session.id, command);
      return;
    }
    case "diff":
    case "land":
    case "discard":
      if (session === null || !offersDiff(session, scopes)) {
        return say("No worktree to review here (an isolated session, an operate device)");
      }
      // The diff page holds the land check, Land and Discard (asked there).
      return go({ view: "diff", sessionId: session.id });
    case "tool-output":
      return say("A tool's whole output: svc ui (o) or svc events");
    case "run-routine": {
      const routine = page.lists.routines[page.selected];
      if (!routine) return;
      if (!routine.mayRun) return say("Running a routine needs the operate scope");
      void runtime.runRoutine(routine.id);
      return;
    }
    case "pause-routine":
      return say(
        "Pausing and activating a routine stay on the owner's socket (svc ui, svc automations)",
      );
    case "mark-read": {
      const runId = route.view === "inbox" && route.runId !== null
        ? route.runId
        : page.lists.inbox[page.selected]?.runId;
      if (runId !== undefined) void runtime.markRead(runId);
      return;
    }
    case "cancel-land": {
      const row = page.lists.land[page.selected];
      if (!row) return say("Nothing to cancel");
      if (!cancellable(row.state)) return say(NOT_CANCELLABLE);
      if (!row.mayCancel) return say("Cancelling a land needs the operate scope");
      return cancelLand(runtime, row);
    }
    case "new-session":
      return say("Launching is not in the web app: svc ui (c) or svc launch");
  }
}

/** A moving key: the selection of a list, else the session's transcript or the page scrolls. */
function move(command: Command, page: KeyPage): void {
  const list = listOf(page.route);
  if (list !== null) {
    const length = page.lists[list].length;
    return page.select(movedSelection(page.selected, command, { length, page: PAGE_ROWS }));
  }
  const transcript = page.route.view === "session" ? document.getElementById(TRANSCRIPT_ID) : null;
  const scroller = transcript ?? document.scrollingElement;
  if (!scroller) return;
  const step = scrollOf(command, { height: scroller.clientHeight, line: 40 });
  if ("by" in step) scroller.scrollBy({ top: step.by });
  else scroller.scrollTo({ top: step.to === "top" ? 0 : scroller.scrollHeight });
}
