/**
 * What a land is asked and answers (D27, D34): shared by the review, the
 * land queue, the routes and the CLI.
 */
import type { MergeCheck } from "./land_check.ts";
import type { LandVerify } from "./land_verify.ts";

export const LAND_MODES = ["squash", "merge", "rebase"] as const;
export type LandMode = typeof LAND_MODES[number];

/** A land request (D27's `{ mode, message }`, D34's `verify`). */
export interface LandRequest {
  mode: LandMode;
  message?: string;
  /** Run instead of the project's configured verify. */
  verify?: LandVerify;
}

/** What the land queue follows of one land (D34). */
export interface LandHooks {
  /** The queue item, named in the `land.*` events. */
  itemId?: string;
  /** The verify command is about to run. */
  verifying?: () => void;
  /** The checkout is about to move to `result`: record it first (a land is never done twice). */
  moving?: (result: string) => void;
}

/** The `land.*` notices of the `/stream` feed (D34). */
export type LandEventKind =
  | "land.queued"
  | "land.checked"
  | "land.verified"
  | "land.landed"
  | "land.failed"
  | "land.sent_back"
  | "land.cancelled";

/** Whether the work applies to the checkout's HEAD, answered without writing to the checkout (D34). */
export interface LandCheck extends MergeCheck {
  sessionId: string;
  /** The checkout's branch (`refs/heads/...`), or null when its HEAD is detached. */
  branch: string | null;
  /** The checkout's HEAD the check was made against. */
  headCommit: string;
  verify: { configured: boolean };
}

/** What a land did. */
export interface Landed {
  sessionId: string;
  mode: LandMode;
  /** The owner's branch (`refs/heads/...`) that was moved. */
  branch: string;
  previousCommit: string;
  landedCommit: string;
  landedAt: string;
  /** The commit of the worktree's uncommitted changes, when there were some. */
  uncommittedCommit: string | null;
}
