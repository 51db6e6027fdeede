/**
 * Everything the web app runs besides rendering (D30): the device (pairing
 * from `/pair#<code>`, then `GET /devices/me`), and once paired `svc ui`'s
 * own store, focus store, sync loop and actions over the browser client, and
 * its view state (src/ui/view_state.ts: the lists' selections, the fleet's
 * filter, the help, the line of the last outcome), which the page's keys
 * drive as `svc ui`'s do. A 401 `device_revoked` from any call stops the
 * loop and the page says so. The views read `snapshot()` and call the
 * methods; they never call the daemon themselves. Face-free: `fetch`, the
 * address bar and the clock come in.
 */
import { type LandMode, type Outcome, UiActions } from "../../ui/actions.ts";
import { routineActivates, routineQuestion } from "../../ui/confirms.ts";
import { FocusStore } from "../../ui/focus.ts";
import type { PendingApproval } from "../../ui/model.ts";
import { UiStore } from "../../ui/store.ts";
import { UiSync } from "../../ui/sync.ts";
import { ViewState } from "../../ui/view_state.ts";
import { BrowserClient, type Fetch } from "./browser_client.ts";
import { type DeviceState, pairDevice, readDevice } from "./device.ts";
import { STALLED_AFTER_MS } from "./lists.ts";
import type { SessionControl } from "./session_controls.ts";
import { discardQuestion, loadReview, moreDiff, type Review } from "./worktree_review.ts";

/** The address bar: where the page is, and replacing it without a new history entry. */
export interface AddressBar {
  read(): { pathname: string; hash: string };
  replace(url: string): void;
}

/** What the page shows besides the stores: the device and a pairing failure. */
export interface PageState {
  readonly device: DeviceState;
  readonly pairingError: string | null;
}

/** Rows a page key moves a list's selection by (a page has no terminal rows to count). */
const PAGE_ROWS = 10;

export class WebRuntime {
  readonly store = new UiStore();
  readonly focusStore = new FocusStore();
  /** svc ui's view state; its `message` is where the page shows the last outcome. */
  readonly view: ViewState;
  readonly #client: BrowserClient;
  readonly #sync: UiSync;
  readonly #actions: UiActions;
  readonly #fetch: Fetch;
  readonly #address: AddressBar;
  readonly #listeners = new Set<() => void>();
  #state: PageState = { device: { status: "checking" }, pairingError: null };
  #running: AbortController | null = null;
  #lastSessionId: string | null = null;

  constructor(options: { fetch: Fetch; address: AddressBar; now?: () => number }) {
    this.#fetch = options.fetch;
    this.#address = options.address;
    this.#client = new BrowserClient({
      fetch: options.fetch,
      onRefused: (refusal) => this.#refused(refusal),
    });
    this.#sync = new UiSync({ client: this.#client, store: this.store, focus: this.focusStore });
    this.#actions = new UiActions(this.#client);
    this.view = new ViewState({
      store: this.store,
      focus: this.focusStore,
      sync: { focus: (session) => this.focus(session?.id ?? null) },
      actions: this.#actions,
      stalledAfterMs: STALLED_AFTER_MS,
      cwd: "",
      now: options.now ?? Date.now,
      // The web's fleet shows the ended sessions from the start (`a` hides them).
      showEnded: true,
      listPage: PAGE_ROWS,
    });
  }

  readonly snapshot = (): PageState => this.#state;

  readonly subscribe = (listener: () => void): () => void => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };

  /**
   * Pairs when the page is `/pair#<code>` (the fragment is cleared at once,
   * and on success the page goes to the fleet), then reads the device and,
   * when it is paired, follows the daemon.
   */
  async start(): Promise<void> {
    const { pathname, hash } = this.#address.read();
    if (pathname === "/pair") {
      const code = hash.replace(/^#/, "");
      this.#address.replace("/pair");
      if (code === "") {
        this.#set({ pairingError: "This address holds no pairing code: run svc devices pair" });
      } else {
        const pairing = await pairDevice(code, this.#fetch);
        if (!pairing.ok) {
          this.#set({ pairingError: pairing.message, device: await readDevice(this.#fetch) });
          return;
        }
        this.#address.replace("/#/fleet");
      }
    }
    const device = await readDevice(this.#fetch);
    this.#set({ device });
    if (device.status === "paired" || device.status === "unreachable") this.#follow();
  }

  /** Shows the session `sessionId` (null: none) in the session view, following its stream. */
  focus(sessionId: string | null): void {
    const session = sessionId === null ? null : this.store.snapshot().sessions.get(sessionId);
    if (session) this.#lastSessionId = session.id;
    this.#sync.focus(session ?? null);
  }

  /** The session the session view showed last (`4` opens it again, as in `svc ui`), or null. */
  get lastSessionId(): string | null {
    return this.#lastSessionId;
  }

  /** Shows a line where outcomes show (a key that does nothing here says why). */
  say(outcome: Outcome): void {
    this.view.say(outcome);
  }

  answer(approval: PendingApproval, choice: "allow" | "deny" | "always"): Promise<void> {
    const request = { sessionId: approval.sessionId, requestId: approval.requestId };
    return this.#report(
      choice === "always"
        ? this.#actions.answer(request, "allow", "session")
        : this.#actions.answer(request, choice),
    );
  }

  /** Sends a turn; a resumable session that ended is resumed first (D26). */
  send(sessionId: string, text: string): Promise<void> {
    const session = this.store.snapshot().sessions.get(sessionId);
    return this.#report(
      session?.status === "running"
        ? this.#actions.send(sessionId, text)
        : this.#actions.resumeAndSend(sessionId, text),
    );
  }

  control(sessionId: string, control: SessionControl): Promise<void> {
    return this.#report(this.#actions[control](sessionId));
  }

  /** Runs a routine now (`svc.automations.run`, operate). */
  runRoutine(id: string): Promise<void> {
    return this.#report(this.#actions.runRoutine(id));
  }

  /**
   * Pauses or activates routine `routineId` (`svc.automations.pause|activate`,
   * operate, D30) once `ask` agrees to `svc ui`'s question: the stored
   * definition (prompt, cwd, schedule, isolation, approvals…) read first.
   * A routine the overview no longer lists, or a definition that cannot be
   * read, is said where outcomes show.
   */
  async setRoutineStatus(routineId: string, ask: (question: string) => boolean): Promise<void> {
    const routine = this.store.snapshot().routines.find((each) => each.id === routineId);
    if (!routine) return this.say({ ok: false, message: `Routine "${routineId}" is gone` });
    const got = await this.#actions.routine(routine.id);
    if (!got.ok) return this.say(got);
    if (!ask(routineQuestion(routine, got.definition).join("\n"))) return;
    const status = routineActivates(routine) ? "ACTIVE" : "PAUSED";
    await this.#report(this.#actions.setRoutineStatus(routine.id, status));
  }

  /** A routine run's result as plain text (shown as text, never HTML), or why there is none. */
  result(runId: string): Promise<{ ok: boolean; text: string }> {
    return this.#actions.result(runId);
  }

  /** Marks an inbox result read (the result `runId` shown, else the selected one); the list shows it at once. */
  markRead(runId: string | null): void {
    this.view.tick();
    this.view.markRead(runId);
  }

  /** An isolated session's land check and the first page of its diff (D27, D34). */
  review(sessionId: string): Promise<Review> {
    return loadReview(this.#actions, sessionId);
  }

  /** The review with the diff's next page. */
  moreDiff(sessionId: string, review: Review): Promise<Review> {
    return moreDiff(this.#actions, sessionId, review);
  }

  /** Lands an isolated session's work (D27); whether it did. */
  async land(sessionId: string, mode: LandMode): Promise<boolean> {
    const outcome = await this.#actions.land(sessionId, mode);
    this.say(outcome);
    return outcome.ok;
  }

  /** Discards an isolated session's worktree, forced when its work was never landed (asked first). */
  async discard(sessionId: string): Promise<boolean> {
    const session = this.store.snapshot().sessions.get(sessionId);
    if (!session) return false;
    const outcome = await this.#actions.discard(sessionId, discardQuestion(session).force);
    this.say(outcome);
    return outcome.ok;
  }

  /** Takes an item out of the land queue (D34); the queue is read again on its `land.cancelled`. */
  cancelLand(itemId: string): Promise<void> {
    return this.#report(this.#actions.cancelLand(itemId));
  }

  /** Stops following the daemon (the page is going away). */
  stop(): void {
    this.#running?.abort();
    this.#sync.stop();
  }

  #follow(): void {
    if (this.#running !== null) return;
    this.#running = new AbortController();
    void this.#sync.run(this.#running.signal);
  }

  #refused(refusal: "device_revoked" | "not_paired"): void {
    this.stop();
    this.#set({ device: { status: refusal === "device_revoked" ? "revoked" : "not_paired" } });
  }

  async #report(outcome: Promise<Outcome>): Promise<void> {
    this.say(await outcome);
  }

  #set(change: Partial<PageState>): void {
    this.#state = { ...this.#state, ...change };
    for (const listener of this.#listeners) listener();
  }
}
