/**
 * The land queue as `svc ui` shows it (D34), without React: the rows of
 * view 7 from `GET /land-queue`, why an item did not land, and the reads the
 * `land.*` notices of `/stream` ask for (one at a time, and one more when a
 * notice arrived during a read, so the last state is never missed).
 */
import type { LandItem } from "../worktrees/land_queue.ts";
import type { LandFailure } from "../worktrees/send_back_turn.ts";
import { safeLine } from "./format.ts";
import type { SessionRecord } from "./model.ts";

/** An item of `GET /land-queue` (the fields the view reads). */
export type LandQueueItem = Pick<
  LandItem,
  | "itemId"
  | "sessionId"
  | "position"
  | "state"
  | "attempts"
  | "maxAttempts"
  | "lastError"
  | "landedCommit"
>;

/** The state as a row shows it: a glyph and a word. */
export const LAND_STATE_LABELS: Record<LandQueueItem["state"], string> = {
  queued: "… queued",
  checking: "● checking",
  verifying: "● verifying",
  landed: "✓ landed",
  failed: "✗ failed",
  sent_back: "↩ sent back",
  cancelled: "- cancelled",
};

/** One row of the land view. */
export interface LandRow {
  itemId: string;
  sessionId: string;
  /** The session's title, when the UI knows the session. */
  title: string;
  state: LandQueueItem["state"];
  label: string;
  /** Send-backs used of the allowed. */
  tries: string;
  /** Why it did not land (failed, sent back), or the commit it landed as. */
  detail: string;
}

/** The rows, in queue order (items sent back and queued again come last, as they will land). */
export function landRows(
  items: readonly LandQueueItem[],
  sessions: ReadonlyMap<string, SessionRecord>,
): LandRow[] {
  return [...items].sort((a, b) => a.position - b.position).map((item) => ({
    itemId: item.itemId,
    sessionId: item.sessionId,
    title: safeLine(sessions.get(item.sessionId)?.title ?? ""),
    state: item.state,
    label: LAND_STATE_LABELS[item.state],
    tries: `${item.attempts}/${item.maxAttempts}`,
    detail: item.state === "landed"
      ? `as ${item.landedCommit?.slice(0, 12) ?? "?"}`
      : item.lastError === null || item.state === "queued" && item.attempts === 0
      ? ""
      : failureText(item.lastError),
  }));
}

/** Whether an item in `state` can be cancelled (`POST /land-queue/{id}/cancel`, D34). */
export function cancellable(state: LandQueueItem["state"]): boolean {
  return state === "queued" || state === "sent_back" || state === "failed";
}

/** What a face says when the selected item cannot be cancelled. */
export const NOT_CANCELLABLE = "Only a queued, sent back or failed land can be cancelled";

/** Why an item did not land, on one line: the conflicting files, the verify's last line. */
export function failureText(failure: LandFailure): string {
  if (failure.code === "land_conflict" && failure.files && failure.files.length > 0) {
    return safeLine(`${failure.reason ?? "conflict"}: ${failure.files.join(", ")}`);
  }
  if (failure.code === "verify_failed") {
    const last = (failure.tail ?? "").trimEnd().split("\n").at(-1) ?? "";
    return safeLine(`verify failed${last === "" ? "" : `: ${last}`}`);
  }
  return safeLine(`${failure.code}: ${failure.message}`);
}

/** True for the `/stream` notices after which the queue is read again. */
export function isLandNotice(kind: string): boolean {
  return kind.startsWith("land.");
}

/**
 * Runs `read` for each call, never two at once: calls during a read are
 * folded into one more read after it.
 */
export function coalescedReads(read: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | null = null;
  let again = false;
  const start = (): Promise<void> => {
    if (running !== null) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        await read().catch(() => {});
      } while (again);
    })().finally(() => running = null);
    return running;
  };
  return start;
}
