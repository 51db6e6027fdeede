/**
 * Every key of `svc ui` in one table (D25): the key handler looks keys up
 * here and the `?` overlay prints this same table, so help cannot drift.
 */

/** The views, in the order of their number keys (D25). */
export const VIEWS = [
  "fleet",
  "attention",
  "approvals",
  "session",
  "routines",
  "inbox",
  "land",
  "new",
] as const;

export type View = typeof VIEWS[number];

/** The heading each view names itself with. */
export const VIEW_TITLES: Record<View, string> = {
  fleet: "Fleet",
  attention: "Attention",
  approvals: "Approvals",
  session: "Session",
  routines: "Routines",
  inbox: "Inbox",
  land: "Land",
  new: "New",
};

/** What a key does. */
export type Command =
  | "quit"
  | "help"
  | "next-view"
  | "view-fleet"
  | "view-attention"
  | "view-approvals"
  | "view-session"
  | "view-routines"
  | "view-inbox"
  | "view-land"
  | "new-session"
  | "next-attention"
  | "up"
  | "down"
  | "page-up"
  | "page-down"
  | "top"
  | "bottom"
  | "open"
  | "back"
  | "filter"
  | "toggle-ended"
  | "allow"
  | "deny"
  | "always"
  | "more-request"
  | "interrupt"
  | "close"
  | "kill"
  | "diff"
  | "land"
  | "tool-output"
  | "discard"
  | "resume"
  | "input"
  | "run-routine"
  | "pause-routine"
  | "mark-read"
  | "cancel-land"
  | "previous-harness"
  | "next-harness"
  | "toggle-worktree";

/** One binding: the key as Ink reports it, where it works, and what the help says. */
export interface Binding {
  readonly key: string;
  /** Shown in the help instead of `key` (arrows, Ctrl-C). */
  readonly label?: string;
  /** Views where it works; absent: everywhere. */
  readonly views?: readonly View[];
  readonly command: Command;
  readonly help: string;
}

const VIEWS_HELP = "the views by number";
const REQUEST_VIEWS: readonly View[] = ["approvals", "session"];

/**
 * The keymap. Keys are single characters or Ink key names in angle brackets.
 * A key means one thing wherever it works (issue 38); D25 gives `a` and `r`
 * one meaning per view, and Ctrl-C interrupts a turn in the session view and
 * quits elsewhere, as in any terminal program.
 */
export const KEYMAP: readonly Binding[] = [
  { key: "?", command: "help", help: "this help (Esc closes)" },
  { key: "q", command: "quit", help: "quit (asks if sessions live)" },
  { key: "<ctrl-c>", label: "Ctrl-C", command: "quit", help: "quit, outside a session" },
  { key: "<tab>", label: "Tab", command: "next-view", help: "next view" },
  { key: "1", command: "view-fleet", help: VIEWS_HELP },
  { key: "2", command: "view-attention", help: VIEWS_HELP },
  { key: "3", command: "view-approvals", help: VIEWS_HELP },
  { key: "4", command: "view-session", help: VIEWS_HELP },
  { key: "5", command: "view-routines", help: VIEWS_HELP },
  { key: "6", command: "view-inbox", help: VIEWS_HELP },
  { key: "7", command: "view-land", help: VIEWS_HELP },
  { key: "c", command: "new-session", help: "new session" },
  { key: "!", command: "next-attention", help: "next session that needs you" },
  { key: "<up>", label: "↑", command: "up", help: "up a row or a line" },
  { key: "k", command: "up", help: "up a row or a line" },
  { key: "<down>", label: "↓", command: "down", help: "down a row or a line" },
  { key: "j", command: "down", help: "down a row or a line" },
  { key: "<pageup>", label: "PgUp", command: "page-up", help: "page up" },
  { key: "<pagedown>", label: "PgDn", command: "page-down", help: "page down" },
  { key: "g", command: "top", help: "to the top" },
  { key: "G", command: "bottom", help: "to the bottom (follows live)" },
  { key: "<return>", label: "Enter", command: "open", help: "open the selection" },
  { key: "<escape>", label: "Esc", command: "back", help: "back, or cancel" },
  { key: "/", command: "filter", help: "filter the fleet", views: ["fleet"] },
  { key: "a", command: "toggle-ended", help: "show ended sessions too", views: ["fleet"] },
  { key: "y", command: "allow", help: "allow the request", views: REQUEST_VIEWS },
  { key: "n", command: "deny", help: "deny the request", views: REQUEST_VIEWS },
  { key: "a", command: "always", help: "always allow (asks where)", views: REQUEST_VIEWS },
  { key: "v", command: "more-request", help: "more of a long request", views: REQUEST_VIEWS },
  { key: "i", command: "input", help: "type the next turn", views: ["session"] },
  {
    key: "<ctrl-c>",
    label: "Ctrl-C",
    command: "interrupt",
    help: "interrupt the turn",
    views: ["session"],
  },
  { key: "x", command: "close", help: "close the conversation", views: ["session"] },
  { key: "K", command: "kill", help: "kill (asks first)", views: ["session"] },
  { key: "o", command: "tool-output", help: "a tool's whole output", views: ["session"] },
  { key: "d", command: "diff", help: "the worktree's diff", views: ["session"] },
  {
    key: "L",
    command: "land",
    help: "land the work (checks first)",
    views: ["session"],
  },
  { key: "D", command: "discard", help: "discard the worktree (asks)", views: ["session"] },
  { key: "r", command: "resume", help: "resume the conversation", views: ["session"] },
  { key: "r", command: "run-routine", help: "run the routine now", views: ["routines"] },
  { key: "p", command: "pause-routine", help: "pause or activate (asks)", views: ["routines"] },
  { key: "m", command: "mark-read", help: "mark the result read", views: ["inbox"] },
  { key: "X", command: "cancel-land", help: "cancel the land (asks)", views: ["land"] },
  {
    key: "<left>",
    label: "←",
    command: "previous-harness",
    help: "previous harness",
    views: ["new"],
  },
  { key: "<right>", label: "→", command: "next-harness", help: "next harness", views: ["new"] },
  { key: " ", label: "Space", command: "toggle-worktree", help: "worktree on/off", views: ["new"] },
  {
    key: "<return>",
    label: "Enter",
    command: "open",
    help: "launch and open the session",
    views: ["new"],
  },
];

/** The command `key` runs in `view`: a view's own binding wins over a global one. */
export function commandFor(key: string, view: View): Command | null {
  let global: Command | null = null;
  for (const binding of KEYMAP) {
    if (binding.key !== key) continue;
    if (binding.views === undefined) global ??= binding.command;
    else if (binding.views.includes(view)) return binding.command;
  }
  return global;
}

/** One line of the help: the keys (`↑/k`, `1–6`) and what they do. */
export interface HelpEntry {
  keys: string;
  help: string;
}

/** The keys of one view (or of every view) under a title. */
export interface HelpSection {
  title: string;
  entries: HelpEntry[];
}

/**
 * Every key, for the `?` overlay of `view` (D25, issue 38): the view's own
 * keys first, then those of every view, then each other view's own keys
 * under its name. Keys that do the same thing share a line (`↑/k`, `1–6`).
 */
export function helpSections(view: View): HelpSection[] {
  const own = (of: View) => entriesOf(KEYMAP.filter((b) => b.views?.includes(of)));
  return [
    { title: `${VIEW_TITLES[view]} (this view)`, entries: own(view) },
    { title: "Every view", entries: entriesOf(KEYMAP.filter((b) => b.views === undefined)) },
    ...VIEWS.filter((other) => other !== view).map((other) => ({
      title: VIEW_TITLES[other],
      entries: own(other),
    })),
  ].filter((section) => section.entries.length > 0);
}

function entriesOf(bindings: readonly Binding[]): HelpEntry[] {
  const lines = new Map<string, string[]>();
  for (const binding of bindings) {
    const keys = lines.get(binding.help) ?? [];
    const label = binding.label ?? binding.key;
    if (!keys.includes(label)) keys.push(label);
    lines.set(binding.help, keys);
  }
  return [...lines].map(([help, keys]) => ({ keys: joinKeys(keys), help }));
}

/** `1–6` for a run of number keys, else the keys joined with `/`. */
function joinKeys(keys: string[]): string {
  const digits = keys.every((key) => /^\d$/.test(key));
  return digits && keys.length > 2 ? `${keys[0]}–${keys.at(-1)}` : keys.join("/");
}
