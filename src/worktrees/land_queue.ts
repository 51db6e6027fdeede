/**
 * The durable land queue (D34): isolated sessions' work landed one at a
 * time in the order asked, each checked and verified on top of the lands
 * before it. Without `sendBack` a failed item stops the queue (the rest
 * wait until the owner cancels it); with it, the item leaves its place, its
 * agent gets a turn naming what failed, and the item is queued again at the
 * end when that turn ends, at most `maxAttempts` times.
 *
 * A land is never done twice: the commit the checkout is about to move to
 * is stored on the item before it moves, and an item a restart finds
 * `checking` or `verifying` is taken as landed when that commit is in the
 * checkout's HEAD, else run again from the check.
 */
import { type Clock, isoTime } from "../clock.ts";
import { ServiceError, sessionNotFound } from "../errors.ts";
import { newId } from "../ids.ts";
import type { Logger } from "../log.ts";
import type { LandItemRow, LandItemState, LandQueueStore } from "../store/land_queue_store.ts";
import type {
  LandCheck,
  Landed,
  LandEventKind,
  LandHooks,
  LandMode,
  LandRequest,
} from "./land_types.ts";
import type { LandVerify } from "./land_verify.ts";
import { type LandFailure, sendBackTurn } from "./send_back_turn.ts";

/** Send-backs of one item when the request names none. */
export const DEFAULT_MAX_ATTEMPTS = 2;

/** `POST /land-queue`. */
export interface LandQueueRequest {
  /** Session ids (a run is named by its session), landed in this order. */
  items: string[];
  mode: LandMode;
  verify?: LandVerify;
  sendBack?: boolean;
  maxAttempts?: number;
}

/** One item as the API shows it. */
export interface LandItem {
  itemId: string;
  sessionId: string;
  position: number;
  state: LandItemState;
  attempts: number;
  maxAttempts: number;
  mode: LandMode;
  verify: LandVerify | null;
  sendBack: boolean;
  lastError: LandFailure | null;
  landedCommit: string | null;
  createdAt: string;
  updatedAt: string;
}

/** What the queue needs of the review (D27): `WorktreeReview`. */
export interface Lander {
  land(sessionId: string, request: LandRequest, hooks: LandHooks): Promise<Landed>;
  check(sessionId: string): Promise<LandCheck>;
  landedBefore(sessionId: string, attempt: { commit: string; mode: LandMode }): Promise<boolean>;
}

/** Resumes the session's agent (D26) with `turn`; resolves once the turn ended and it closed. */
export type SendBack = (sessionId: string, turn: string) => Promise<void>;

/** Refusals the agent can mend on its branch (not the owner's dirty checkout): these are sent back. */
function mendable(failure: LandFailure): boolean {
  return failure.code === "verify_failed" ||
    (failure.code === "land_conflict" && failure.reason === "conflict");
}

/** The queue: one item lands at a time, in position order. */
export class LandQueue {
  readonly #store: LandQueueStore;
  readonly #lander: Lander;
  readonly #sendBack: SendBack;
  readonly #sessionExists: (sessionId: string) => boolean;
  readonly #publish: (kind: LandEventKind, data: Record<string, unknown>) => void;
  readonly #clock: Clock;
  readonly #log: Logger;
  #draining: Promise<void> | null = null;
  #again = false;
  #stopped = false;

  constructor(options: {
    store: LandQueueStore;
    lander: Lander;
    sendBack: SendBack;
    sessionExists: (sessionId: string) => boolean;
    publish: (kind: LandEventKind, data: Record<string, unknown>) => void;
    clock: Clock;
    log: Logger;
  }) {
    this.#store = options.store;
    this.#lander = options.lander;
    this.#sendBack = options.sendBack;
    this.#sessionExists = options.sessionExists;
    this.#publish = options.publish;
    this.#clock = options.clock;
    this.#log = options.log;
  }

  /** Items in queue order. */
  list(): LandItem[] {
    return this.#store.list().map(landItem);
  }

  /** Queues the sessions at the end, in order; 404 when one does not exist. */
  enqueue(request: LandQueueRequest): LandItem[] {
    for (const sessionId of request.items) {
      if (!this.#sessionExists(sessionId)) throw sessionNotFound(sessionId);
    }
    const now = this.#clock.now();
    const at = isoTime(now);
    const first = this.#store.nextPosition();
    const rows: LandItemRow[] = request.items.map((sessionId, index) => ({
      id: newId("lnd", now),
      session_id: sessionId,
      position: first + index,
      state: "queued",
      attempts: 0,
      max_attempts: request.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
      mode: request.mode,
      verify_json: request.verify ? JSON.stringify(request.verify) : null,
      send_back: request.sendBack ? 1 : 0,
      last_error_json: null,
      landing_commit: null,
      landed_commit: null,
      created_at: at,
      updated_at: at,
    }));
    this.#store.insert(rows);
    for (const row of rows) {
      this.#publish("land.queued", { itemId: row.id, sessionId: row.session_id });
    }
    this.#kick();
    return rows.map(landItem);
  }

  /** Cancels an item that is not being landed nor done; 404, or 409 `land_item_busy`. */
  cancel(itemId: string): LandItem {
    const row = this.#store.get(itemId);
    if (!row) {
      throw new ServiceError("land_item_not_found", 404, `No land queue item "${itemId}"`, {
        itemId,
      });
    }
    if (!["queued", "failed", "sent_back"].includes(row.state)) {
      throw new ServiceError(
        "land_item_busy",
        409,
        `Land queue item "${itemId}" is ${row.state}: only a queued, sent back or failed item can be cancelled`,
        { itemId, state: row.state },
      );
    }
    this.#set(row, { state: "cancelled" });
    // Said on /stream like every other change of state: a UI showing the queue reads it again.
    this.#publish("land.cancelled", { itemId: row.id, sessionId: row.session_id });
    this.#kick();
    return landItem(row);
  }

  /**
   * At start-up: items a stop or crash left being landed are settled (landed
   * when their commit is in the checkout, else queued again where they
   * were); items waiting on a send-back turn, which the stop ended, are
   * queued again at the end. Then the queue runs.
   */
  async start(): Promise<void> {
    for (const row of this.#store.list()) {
      if (row.state === "checking" || row.state === "verifying") {
        const landed = row.landing_commit !== null && await this.#lander.landedBefore(
          row.session_id,
          { commit: row.landing_commit, mode: row.mode as LandMode },
        ).catch(() => false);
        if (landed) {
          this.#set(row, { state: "landed", landed_commit: row.landing_commit });
          this.#publish("land.landed", {
            itemId: row.id,
            sessionId: row.session_id,
            commit: row.landing_commit,
          });
        } else {
          this.#set(row, { state: "queued", landing_commit: null });
        }
      } else if (row.state === "sent_back") {
        this.#set(row, { state: "queued", position: this.#store.nextPosition() });
      }
    }
    this.#kick();
  }

  /**
   * Takes no more items (at once, before the daemon kills the verify
   * commands); resolves once the item being landed is left for the next start.
   */
  stop(): Promise<void> {
    this.#stopped = true;
    return this.#draining ?? Promise.resolve();
  }

  /** Runs the queue unless it runs already (then it looks again when done). */
  #kick(): void {
    if (this.#stopped) return;
    if (this.#draining) {
      this.#again = true;
      return;
    }
    this.#again = false;
    this.#draining = this.#drain()
      .catch((error) => this.#log.error("The land queue stopped", { error }))
      .finally(() => {
        this.#draining = null;
        if (this.#again) this.#kick();
      });
  }

  async #drain(): Promise<void> {
    for (let row = this.#next(); row !== null && !this.#stopped; row = this.#next()) {
      await this.#land(row);
    }
  }

  /** The first queued item, unless an item before it failed without send-back. */
  #next(): LandItemRow | null {
    for (const row of this.#store.list()) {
      if (row.state === "failed" && row.send_back === 0) return null;
      if (row.state === "queued") return row;
    }
    return null;
  }

  async #land(row: LandItemRow): Promise<void> {
    this.#set(row, { state: "checking" });
    try {
      const landed = await this.#lander.land(row.session_id, {
        mode: row.mode as LandMode,
        ...(row.verify_json !== null && { verify: JSON.parse(row.verify_json) }),
      }, {
        itemId: row.id,
        verifying: () => this.#set(row, { state: "verifying" }),
        moving: (commit) => this.#set(row, { landing_commit: commit }),
      });
      this.#set(row, { state: "landed", landed_commit: landed.landedCommit });
    } catch (error) {
      // A stop killed its verify: the item stays as it is and the next start settles it.
      if (this.#stopped) return;
      const failure = failureOf(error);
      const last_error_json = JSON.stringify(failure);
      if (row.send_back === 1 && mendable(failure) && row.attempts < row.max_attempts) {
        this.#set(row, { state: "sent_back", attempts: row.attempts + 1, last_error_json });
        this.#publish("land.sent_back", {
          itemId: row.id,
          sessionId: row.session_id,
          code: failure.code,
          ...(failure.files && { files: failure.files }),
        });
        this.#track(this.#turnFor(row, failure));
      } else {
        this.#set(row, { state: "failed", last_error_json });
      }
    }
  }

  /** Gives the agent its turn, then queues the item again at the end (unless cancelled meanwhile). */
  async #turnFor(row: LandItemRow, failure: LandFailure): Promise<void> {
    const check = await this.#lander.check(row.session_id).catch(() => null);
    try {
      await this.#sendBack(row.session_id, sendBackTurn(failure, check));
    } catch (error) {
      const current = this.#store.get(row.id);
      if (current?.state === "sent_back") {
        this.#set(current, { state: "failed", last_error_json: JSON.stringify(failureOf(error)) });
      }
      return;
    }
    const current = this.#store.get(row.id);
    if (current?.state !== "sent_back" || this.#stopped) return;
    this.#set(current, {
      state: "queued",
      position: this.#store.nextPosition(),
      landing_commit: null,
    });
    this.#publish("land.queued", { itemId: current.id, sessionId: current.session_id });
    this.#kick();
  }

  #track(work: Promise<void>): void {
    work.catch((error) => this.#log.error("Sending a land back failed", { error }));
  }

  #set(row: LandItemRow, fields: Partial<Omit<LandItemRow, "id">>): void {
    const changed = { ...fields, updated_at: isoTime(this.#clock.now()) };
    this.#store.update(row.id, changed);
    Object.assign(row, changed);
  }
}

function failureOf(error: unknown): LandFailure {
  if (!(error instanceof ServiceError)) {
    return { code: "internal_error", message: (error as Error).message ?? String(error) };
  }
  const files = error.details.files;
  const tail = error.details.tail;
  const command = error.details.command;
  const reason = error.details.reason;
  return {
    code: error.code,
    message: error.message,
    ...(typeof reason === "string" && { reason }),
    ...(Array.isArray(files) && { files: files as string[] }),
    ...(typeof tail === "string" && { tail }),
    ...(Array.isArray(command) && { command: command as string[] }),
  };
}

function landItem(row: LandItemRow): LandItem {
  return {
    itemId: row.id,
    sessionId: row.session_id,
    position: row.position,
    state: row.state,
    attempts: row.attempts,
    maxAttempts: row.max_attempts,
    mode: row.mode as LandMode,
    verify: row.verify_json === null ? null : JSON.parse(row.verify_json),
    sendBack: row.send_back === 1,
    lastError: row.last_error_json === null ? null : JSON.parse(row.last_error_json),
    landedCommit: row.landed_commit,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
