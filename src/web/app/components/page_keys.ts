/// <reference lib="dom" />
/**
 * The desktop keys on the page (D30): each keydown outside a field becomes
 * `svc ui`'s command (`pageCommand`, keyboard.ts) and runs on `svc ui`'s own
 * view state (`runtime.view`, src/ui/view_state.ts): the list moves and
 * their bounds, the help, the fleet's ended sessions, which request, routine,
 * inbox result or land a key means, the next session that needs you, marking
 * read, a land's cancel refused as in `svc ui`. What stays the page's: the
 * view is the address (Enter, the number keys and Esc go to a page), `/` and
 * `i` focus the page's fields, a session's transcript and a result scroll
 * as pages, questions are the browser's, and the device's scopes are checked
 * first. `c` opens the new-session page for an operate device. A command
 * this face has no part for says so where outcomes show.
 */
import { useEffect, useRef } from "react";
import type { Command, View } from "../../../ui/keymap.ts";
import type { Snapshot } from "../../../ui/model.ts";
import { allows } from "../device.ts";
import { launchRefusal } from "../launch_form.ts";
import {
  backRoute,
  isMove,
  type KeyPlace,
  pageCommand,
  scrollOf,
  viewKeyRoute,
} from "../keyboard.ts";
import { isList, type ListName, openedBy, type PageLists } from "../lists.ts";
import { hrefOf, type Route } from "../route.ts";
import { sessionControls } from "../session_controls.ts";
import type { WebRuntime } from "../web_runtime.ts";
import { offersDiff } from "../worktree_review.ts";
import { FLEET_FILTER_ID } from "./fleet_view.tsx";
import { launchFromForm } from "./new_session_view.tsx";
import { cancelLand } from "./land_view.tsx";
import { askRoutineStatus } from "./routines_view.tsx";
import { INPUT_ID, TRANSCRIPT_ID } from "./session_view.tsx";

/** Everything a key may read on the page. */
export interface KeyPage {
  runtime: WebRuntime;
  route: Route;
  view: View | null;
  snapshot: Snapshot;
  scopes: readonly string[];
  lists: PageLists;
  /** The selected row of the current list view (as the page shows it). */
  selected: number;
  help: boolean;
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
      if (command === null || at.view === null) return;
      if (at.help && command !== "help" && command !== "back") return;
      event.preventDefault();
      // The view state acts on the page the address names, at the page's time.
      at.runtime.view.show(at.view);
      at.runtime.view.tick();
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

/** The list a page shows (the inbox's result page is not one), or null. */
export function listOf(route: Route): ListName | null {
  if (route.view === "inbox") return route.runId === null ? "inbox" : null;
  return isList(route.view) ? route.view : null;
}

/** What `command` does on the page. */
function runCommand(command: Command, page: KeyPage): void {
  const { runtime, route, snapshot, scopes } = page;
  const state = runtime.view;
  const say = (message: string) => runtime.say({ ok: false, message });
  const go = (to: Exclude<Route, { view: "pair" }>) => location.assign(hrefOf(to));
  const sessionId = route.view === "session" || route.view === "diff" ? route.sessionId : null;
  const session = sessionId === null ? null : snapshot.sessions.get(sessionId) ?? null;
  if (command === "help" || (command === "back" && page.help)) return state.dispatch(command);
  if (command === "back") {
    const back = backRoute(route);
    if (back !== null) go(back);
    return;
  }
  if (command.startsWith("view-")) {
    const to = viewKeyRoute(command, runtime.lastSessionId);
    return to === null ? say("No session shown yet: Enter on a session opens it") : go(to);
  }
  if (isMove(command)) {
    // A list's selection moves in the view state; any other page scrolls.
    return listOf(route) === null ? scroll(command, route) : state.dispatch(command);
  }
  switch (command) {
    case "open": {
      // Enter off the form's fields launches, as in svc ui's form.
      if (route.view === "new") return void launchFromForm(runtime);
      const list = listOf(route);
      const to = list === null ? null : openedBy(page.lists, list, page.selected);
      if (to !== null) go(to);
      return;
    }
    case "next-attention": {
      const next = state.nextAttention(sessionId);
      return "message" in next
        ? state.say(next.message)
        : go({ view: "session", sessionId: next.sessionId });
    }
    case "filter":
      return document.getElementById(FLEET_FILTER_ID)?.focus();
    case "toggle-ended":
      return state.dispatch(command);
    case "mark-read":
      // On a result's page, that result; on the list, the selected one.
      return runtime.markRead(route.view === "inbox" ? route.runId : null);
    case "allow":
    case "deny":
    case "always": {
      const approval = state.approvalHere(sessionId);
      if (!approval) return say("No request waits here");
      if (!allows(scopes, "approve")) return say("This device may read only");
      // The card shows the whole request; `a` allows for this session, as the card's Always does.
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
      const routine = state.routineHere();
      if (!routine) return;
      if (!allows(scopes, "operate")) return say("Running a routine needs the operate scope");
      void runtime.runRoutine(routine.id);
      return;
    }
    case "pause-routine": {
      const routine = state.routineHere();
      if (!routine) return;
      if (!allows(scopes, "operate")) {
        return say("Pausing or activating a routine needs the operate scope");
      }
      return askRoutineStatus(runtime, routine.id);
    }
    case "cancel-land": {
      const target = state.landToCancel();
      if ("refusal" in target) return say(target.refusal);
      if (!allows(scopes, "operate")) return say("Cancelling a land needs the operate scope");
      const { itemId, sessionId, label } = target.row;
      return cancelLand(runtime, { itemId, sessionId, stateText: label });
    }
    case "new-session": {
      const refusal = launchRefusal(scopes);
      if (refusal !== null) return say(refusal);
      state.dispatch(command);
      return go({ view: "new" });
    }
  }
}

/** A moving key off a list: the session's transcript, else the page, scrolls. */
function scroll(command: Command, route: Route): void {
  const transcript = route.view === "session" ? document.getElementById(TRANSCRIPT_ID) : null;
  const scroller = transcript ?? document.scrollingElement;
  if (!scroller) return;
  const step = scrollOf(command, { height: scroller.clientHeight, line: 40 });
  if ("by" in step) scroller.scrollBy({ top: step.by });
  else scroller.scrollTo({ top: step.to === "top" ? 0 : scroller.scrollHeight });
}
