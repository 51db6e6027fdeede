/**
 * The web app's desktop keys (D30) are `svc ui`'s keymap: a key is named by
 * `browserKeyName` as the keymap names it and looked up with the same
 * `commandFor` in the same view, and `?` shows the same `helpSections`, so
 * the two faces cannot drift. What stays the browser's: every key while
 * typing in a field; Tab (it moves the focus, as on every page); Enter and
 * Space on a link or a button; Ctrl-C with text selected (it copies); `q`
 * (a page does not quit). Face-free: the key and where it was pressed come in.
 */
import { browserKeyName } from "../../ui/key_input.ts";
import { type Command, commandFor, type View } from "../../ui/keymap.ts";
import type { Route } from "./route.ts";

/** The keymap's view a page is (the diff is the session's), or null: no keys (pairing). */
export function keymapView(route: Route): View | null {
  switch (route.view) {
    case "pair":
      return null;
    case "diff":
      return "session";
    default:
      return route.view;
  }
}

/** Where a key was pressed. */
export interface KeyPlace {
  /** In an input, a textarea, a select or an editable element. */
  readonly typing: boolean;
  /** On a focused link or button (Enter and Space follow or press it). */
  readonly onControl: boolean;
  /** Text of the page is selected (Ctrl-C copies it). */
  readonly selectedText: boolean;
}

/** The browser's KeyboardEvent fields a key is named from. */
export interface BrowserKey {
  readonly key: string;
  readonly ctrlKey: boolean;
  readonly altKey: boolean;
  readonly metaKey: boolean;
}

/** The command a key runs on the page in `view`, or null: the browser's to handle. */
export function pageCommand(
  key: BrowserKey,
  view: View | null,
  place: KeyPlace,
): Command | null {
  if (view === null || place.typing) return null;
  const name = browserKeyName(key);
  if (name === null || name === "<tab>") return null;
  if (place.onControl && (name === "<return>" || name === " ")) return null;
  if (name === "<ctrl-c>" && place.selectedText) return null;
  const command = commandFor(name, view);
  return command === "quit" ? null : command;
}

/** The page a number key opens (`1`–`7`): null for the session when none was shown yet. */
export function viewKeyRoute(
  command: Command,
  lastSessionId: string | null,
): Exclude<Route, { view: "pair" }> | null {
  switch (command) {
    case "view-fleet":
      return { view: "fleet" };
    case "view-attention":
      return { view: "attention" };
    case "view-approvals":
      return { view: "approvals" };
    case "view-session":
      return lastSessionId === null ? null : { view: "session", sessionId: lastSessionId };
    case "view-routines":
      return { view: "routines" };
    case "view-inbox":
      return { view: "inbox", runId: null };
    case "view-land":
      return { view: "land" };
    default:
      return null;
  }
}

/** Where Esc goes back to from `route` (as `svc ui`: a session to the fleet), or null: nowhere. */
export function backRoute(route: Route): Exclude<Route, { view: "pair" }> | null {
  switch (route.view) {
    case "session":
    case "new":
      return { view: "fleet" };
    case "diff":
      return { view: "session", sessionId: route.sessionId };
    case "inbox":
      return route.runId === null ? null : { view: "inbox", runId: null };
    default:
      return null;
  }
}

/** The moving commands: a list's selection follows them, another page scrolls. */
const MOVES: Partial<Record<Command, "line" | "page" | "end">> = {
  up: "line",
  down: "line",
  "page-up": "page",
  "page-down": "page",
  top: "end",
  bottom: "end",
};

/** Whether `command` moves the selection of a list or scrolls a page. */
export function isMove(command: Command): boolean {
  return MOVES[command] !== undefined;
}

/** How far a moving command scrolls a page `height` pixels high: a line, a page, or to an end. */
export function scrollOf(
  command: Command,
  size: { height: number; line: number },
): { by: number } | { to: "top" | "bottom" } {
  if (command === "top") return { to: "top" };
  if (command === "bottom") return { to: "bottom" };
  const by = command === "up" || command === "down"
    ? size.line
    : Math.max(size.line, size.height * 0.9);
  return { by: command === "up" || command === "page-up" ? -by : by };
}
