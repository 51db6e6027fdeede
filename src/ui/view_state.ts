/**
 * `svc ui`'s view state and what its commands do (D25, issue 34: one model,
 * two faces): which view shows, the selection of each list, the fleet's
 * filter, the help's page, the input line, the scroll of the conversation,
 * a question being asked, a request being read, the new-session form, an
 * inbox result or a routine's runs being read, a diff being paged.
 * Commands (or keys) come in, a snapshot goes out; acts go through
 * `UiActions`. Face-free: no React, no terminal, no DOM. The terminal face
 * renders `snapshot()` and `frame()`; the web face drives the same state
 * for the commands it shares (src/web/app/components/page_keys.ts).
 */
import type { Actions, Outcome } from "./actions.ts";
import { type Confirm, landCancelConfirm, quitConfirm } from "./confirms.ts";
import type { FocusSnapshot, FocusStore } from "./focus.ts";
import { edit } from "./key_input.ts";
import { type Command, commandFor, type View, VIEWS } from "./keymap.ts";
import { cancellable, type LandRow, NOT_CANCELLABLE } from "./land_queue_view.ts";
import {
  type InboxEntry,
  nextAttention,
  type PendingApproval,
  pendingSession,
  type RoutineOverview,
  type SessionRecord,
} from "./model.ts";
import { emptyForm, formKey, type FormState, launchOf } from "./new_session_form.ts";
import { type Paged, pagedScroll } from "./paged_scroll.ts";
import type { RequestReading } from "./request_panel.ts";
import type { TranscriptScroll, TranscriptWindow } from "./transcript_window.ts";
import { runViewCommand } from "./view_commands.ts";
import {
  FrameLister,
  type FrameSnapshot,
  isListView,
  type ListName,
  type ScreenSize,
  type ViewFrame,
  viewFrame,
} from "./view_frame.ts";
import { Listeners } from "./listeners.ts";

/** An inbox result being read. */
export interface Reading {
  readonly runId: string;
  readonly lines: string[];
  readonly scroll: number;
}

/** A routine's last runs being read. */
export interface RunHistory {
  readonly routineId: string;
  readonly lines: string[];
}

/** Everything the view holds besides the daemon's state. */
export interface ViewSnapshot {
  readonly view: View;
  /** The selected row of each list, by list name (kept inside the list by the frame). */
  readonly selected: Readonly<Record<string, number>>;
  readonly showEnded: boolean;
  readonly filter: string;
  /** The filter field has the keys. */
  readonly filtering: boolean;
  /** The page of the `?` overlay on screen, or null. */
  readonly help: number | null;
  /** The input line's text, or null when it is closed. */
  readonly input: string | null;
  readonly scroll: TranscriptScroll;
  /** The question over the view, or null. */
  readonly confirm: Confirm | null;
  /** How far a request longer than its room has been read (`v`). */
  readonly requestRead: RequestReading;
  /** The footer's line: an act's outcome or a refusal, or null. */
  readonly message: Outcome | null;
  readonly form: FormState;
  /** A launch from the form is under way. */
  readonly launching: boolean;
  readonly reading: Reading | null;
  readonly history: RunHistory | null;
  /** The focused session's worktree diff (D27), shown over its conversation. */
  readonly diff: Paged | null;
  /** The clock of the ages and countdowns, as of the last `tick`. */
  readonly nowMs: number;
}

/** The daemon's state as the view state reads and changes it: one host's store or several's. */
export interface ViewStore {
  snapshot(): FrameSnapshot;
  dismissBanner(): void;
  inboxRead(runId: string, readAt: string): void;
}

/** What the state acts through. */
export interface ViewStateOptions {
  store: ViewStore;
  focus: FocusStore;
  sync: { focus(session: SessionRecord | null): void };
  actions: Actions;
  /** `ui.stalledAfterSeconds` (D25) in ms. */
  stalledAfterMs: number;
  /** The form's default project root. */
  cwd: string;
  now: () => number;
  /** What quitting does (svc ui's exit); a face that does not quit never sends `quit`. */
  exit?: () => void;
  /** The conversation's wrapper, for the session view's scroll and a request's layout. */
  transcript?: TranscriptWindow;
  /** The fleet shows ended sessions from the start (the web's fleet does). */
  showEnded?: boolean;
  /** Rows a page key moves a list by (default: the terminal's rows, less the list's frame). */
  listPage?: number;
}

/** The fields of a key a text field reads (Ink's key has them; a test passes them). */
export interface KeyFlags {
  backspace: boolean;
  delete: boolean;
  ctrl: boolean;
  meta: boolean;
}

const NO_FLAGS: KeyFlags = { backspace: false, delete: false, ctrl: false, meta: false };

export class ViewState {
  readonly options: ViewStateOptions;
  readonly #listeners = new Listeners();
  readonly #lister = new FrameLister();
  #state: ViewSnapshot;
  /** The size the face laid the last frame out in; the keys act on that layout. */
  #size: ScreenSize = { columns: 80, rows: 24 };
  #frameKey: unknown[] = [];
  #frame: ViewFrame | null = null;

  constructor(options: ViewStateOptions) {
    this.options = options;
    this.#state = {
      view: "fleet",
      selected: {},
      showEnded: options.showEnded ?? false,
      filter: "",
      filtering: false,
      help: null,
      input: null,
      scroll: null,
      confirm: null,
      requestRead: null,
      message: null,
      form: emptyForm(options.cwd),
      launching: false,
      reading: null,
      history: null,
      diff: null,
      nowMs: options.now(),
    };
  }

  readonly snapshot = (): ViewSnapshot => this.#state;

  readonly subscribe = this.#listeners.subscribe;

  /**
   * The frame of the current state in a screen of `size` (the last size
   * given when omitted). Made again only when the state, the store, the
   * focus store or the size changed.
   */
  frame(size: ScreenSize = this.#size): ViewFrame {
    if (size.columns !== this.#size.columns || size.rows !== this.#size.rows) this.#size = size;
    const snapshot = this.options.store.snapshot();
    const focused = this.options.focus.snapshot();
    const key = [this.#state, snapshot, focused, this.#size];
    if (this.#frame !== null && key.every((part, i) => part === this.#frameKey[i])) {
      return this.#frame;
    }
    this.#frameKey = key;
    this.#frame = viewFrame(this.#state, {
      snapshot,
      focused,
      size: this.#size,
      stalledAfterMs: this.options.stalledAfterMs,
      transcript: this.options.transcript ?? null,
      listPage: this.options.listPage ?? null,
    }, this.#lister);
    return this.#frame;
  }

  /** The focus store's snapshot (the conversation the session view shows). */
  focused(): FocusSnapshot {
    return this.options.focus.snapshot();
  }

  /** Reads the clock again: ages and countdowns move on. */
  tick(): void {
    this.set({ nowMs: this.options.now() });
  }

  /** Shows `view` (a face whose address names the view says which it is). */
  show(view: View): void {
    if (this.#state.view !== view) this.set({ view });
  }

  /** The row of list `name` selected, inside the list. */
  selectedOf(name: ListName): number {
    return this.frame().selected[name];
  }

  /** Selects row `index` of list `name`. */
  select(name: ListName, index: number): void {
    this.set({ selected: { ...this.#state.selected, [name]: Math.max(0, index) } });
  }

  /** Moves the selection of the current view's list by `by` rows, never out of it. */
  move(by: number): void {
    const view = this.#state.view;
    if (!isListView(view)) return;
    const length = this.frame().lists[view].length;
    const from = this.#state.selected[view] ?? 0;
    this.select(view, Math.max(0, Math.min(length - 1, from + by)));
  }

  /** The filter of the fleet (typed into the face's field). */
  setFilter(filter: string): void {
    this.set({ filter });
  }

  /** Says `message` on the footer (null clears it). */
  say(message: Outcome | null): void {
    this.set({ message });
  }

  /** The session that needs the user after `current` (the focused one), or why there is none. */
  nextAttention(
    current: string | null = this.focused().sessionId,
  ): { sessionId: string } | { message: Outcome } {
    const next = nextAttention(this.frame().lists.attention, current);
    return next === null
      ? { message: { ok: true, message: "Nothing needs you" } }
      : { sessionId: next };
  }

  /**
   * The request `y`/`n`/`a` answer: in the session view the session's own
   * (`sessionId`, the focused one), elsewhere the selected one.
   */
  approvalHere(sessionId: string | null = this.focused().sessionId): PendingApproval | null {
    const { lists, selected } = this.frame();
    if (this.#state.view !== "session") return lists.approvals[selected.approvals] ?? null;
    return lists.approvals.find((waiting) => waiting.sessionId === sessionId) ?? null;
  }

  /** The selected routine, or null. */
  routineHere(): RoutineOverview | null {
    const { lists, selected } = this.frame();
    return lists.routines[selected.routines] ?? null;
  }

  /** The inbox result `m` marks read: the one being read (`readingRunId`), else the selected one. */
  inboxEntryHere(readingRunId: string | null = this.#state.reading?.runId ?? null) {
    const { lists, selected } = this.frame();
    const entry: InboxEntry | undefined = readingRunId === null
      ? lists.inbox[selected.inbox]
      : lists.inbox.find((e) => e.runId === readingRunId);
    return entry ?? null;
  }

  /** The land `X` would cancel, or why none can be (D34). */
  landToCancel(): { row: LandRow } | { refusal: string } {
    const { lists, selected } = this.frame();
    const row = lists.land[selected.land];
    if (!row) return { refusal: "Nothing to cancel" };
    if (!cancellable(row.state)) return { refusal: NOT_CANCELLABLE };
    return { row };
  }

  /** Runs `command` (svc ui's keys, after the modes of `key`). */
  dispatch(command: Command): void {
    runViewCommand(this, command);
  }

  /**
   * The key `name` (typed `text`): a question being asked takes it, then
   * the filter field, the input line and the form; else the keymap's
   * command in the current view runs.
   */
  key(name: string, text = "", flags: KeyFlags = NO_FLAGS): void {
    this.dismiss(); // A key answers the footer's message and a restart banner; it may set a new one.
    const state = this.#state;
    if (state.confirm) return this.#answer(state.confirm, name);
    if (state.filtering) {
      if (name === "<return>") this.set({ filtering: false });
      else if (name === "<escape>") this.set({ filter: "", filtering: false });
      else this.set({ filter: edit(state.filter, text, flags) });
      return;
    }
    if (state.input !== null) return this.#inputKey(state.input, name, text, flags);
    if (state.view === "new" && state.help === null) {
      const harnesses = this.options.store.snapshot().harnesses.length;
      const step = formKey(state.form, { name, text, key: flags }, harnesses);
      if (step === null) return;
      if ("form" in step) return this.set({ form: step.form });
      if (step.do === "launch") return void this.launch();
      if (step.do === "back") return this.set({ view: "fleet" });
      return this.dispatch("quit");
    }
    const command = commandFor(name, state.view);
    if (command) this.dispatch(command);
  }

  /** Clears the footer's message and the restart banner. */
  dismiss(): void {
    if (this.#state.message !== null) this.set({ message: null });
    this.options.store.dismissBanner();
  }

  /** Quits, asking first while sessions run. */
  quit(): void {
    const live = [...this.options.store.snapshot().sessions.values()]
      .filter((session) => session.status === "running").length;
    const exit = this.options.exit ?? (() => {});
    const ask = quitConfirm(live, exit);
    if (ask) this.set({ confirm: ask });
    else exit();
  }

  /** Opens `target` in the session view, following its stream. */
  open(target: SessionRecord | undefined): void {
    if (!target) return;
    this.options.sync.focus(target);
    this.set({ diff: null, scroll: null, input: null, view: "session" });
  }

  /** Shows what `outcome` came to; a launch's session opens. */
  report(outcome: Promise<Outcome>): void {
    void outcome.then((result) => {
      this.set({ message: result });
      if (result.sessionId) {
        const launched = this.options.store.snapshot().sessions.get(result.sessionId);
        this.open(
          launched ??
            pendingSession(result.sessionId, new Date(this.options.now()).toISOString()),
        );
      }
    });
  }

  /** Changes the form's fields (a face whose fields are its own: the web's). */
  editForm(change: Partial<FormState>): void {
    this.set({ form: { ...this.#state.form, ...change } });
  }

  /**
   * Launches the form's session; its outcome once shown (null: the form
   * said why it cannot launch yet), so a face that opens pages by address
   * can open the new session's.
   */
  launch(): Promise<Outcome | null> {
    const form = this.#state.form;
    const request = launchOf(form, this.options.store.snapshot().harnesses);
    if ("problem" in request) {
      this.say({ ok: false, message: request.problem });
      return Promise.resolve(null);
    }
    this.set({ launching: true });
    const outcome = this.options.actions.launch(request)
      .finally(() => this.set({ launching: false }))
      .then((launched) => {
        if (launched.ok) this.set({ form: emptyForm(form.projectRoot) });
        return launched;
      });
    this.report(outcome);
    return outcome;
  }

  /** Asks the cancel of the selected land (D34). */
  cancelLand(): void {
    const target = this.landToCancel();
    if ("refusal" in target) return this.say({ ok: false, message: target.refusal });
    this.set({ confirm: landCancelConfirm(target.row, this.options.actions) });
  }

  /** Marks the inbox result here (or `readingRunId`'s) read; the list shows it at once. */
  markRead(readingRunId?: string | null): void {
    const entry = this.inboxEntryHere(readingRunId);
    if (!entry) return;
    this.report(
      this.options.actions.markRead(entry.runId).then((outcome) => {
        if (outcome.ok) {
          this.options.store.inboxRead(entry.runId, new Date(this.#state.nowMs).toISOString());
        }
        return outcome;
      }),
    );
  }

  /** A diff or an inbox result on screen scrolls with the moving keys: true when one did. */
  pageText(command: Command, pageLines: number): boolean {
    const { view, diff, reading } = this.#state;
    const paged = view === "session" ? diff : view === "inbox" ? reading : null;
    if (paged === null) return false;
    const to = pagedScroll(paged.scroll, command, { lines: paged.lines.length, page: pageLines });
    if (to === null) return false;
    if (paged === diff) this.set({ diff: { ...paged, scroll: to } });
    else this.set({ reading: { ...reading!, scroll: to } });
    return true;
  }

  /** Shows the next view, in the keymap's order. */
  nextView(): void {
    const view = this.#state.view;
    this.set({ view: VIEWS[(VIEWS.indexOf(view) + 1) % VIEWS.length] });
  }

  /** Changes the state and tells the face. */
  set(change: Partial<ViewSnapshot>): void {
    this.#state = { ...this.#state, ...change };
    this.#listeners.notify();
  }

  #answer(confirm: Confirm, name: string): void {
    if (confirm.keys) {
      const choice = Object.hasOwn(confirm.keys, name) ? confirm.keys[name] : undefined;
      const outcome = choice === undefined ? null : confirm.run(choice);
      if (choice !== undefined || name === "<escape>") this.set({ confirm: null });
      if (outcome) this.report(outcome);
      return;
    }
    const outcome = name === "y" ? confirm.run() : null;
    if (name === "y" || name === "n" || name === "<escape>") this.set({ confirm: null });
    if (outcome) this.report(outcome);
  }

  #inputKey(input: string, name: string, text: string, flags: KeyFlags): void {
    if (name === "<escape>" || name === "<ctrl-c>") return this.set({ input: null });
    if (name !== "<return>") return this.set({ input: edit(input, text, flags) });
    const session = this.frame().session;
    if (session && input.trim() !== "") {
      const { actions } = this.options;
      this.report(
        session.status === "running"
          ? actions.send(session.id, input)
          : actions.resumeAndSend(session.id, input),
      );
    }
    this.set({ input: null });
  }
}
