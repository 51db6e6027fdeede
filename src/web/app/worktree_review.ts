/**
 * The diff and land view of an isolated session (D27, D34, `/#/s/<id>/diff`),
 * offered to an `operate` device only: the land check as one line
 * (`checkText`), the diff page by page with the API's offsets, and the land
 * modes `svc ui` would offer. Face-free: the actions come in; the view only
 * renders what this returns.
 */
import type { LandMode, UiActions } from "../../ui/actions.ts";
import type { SessionRecord } from "../../ui/model.ts";
import { discardCost, landModes } from "../../ui/worktree_review.ts";
import { checkText } from "../../worktrees/check_text.ts";
import { allows } from "./device.ts";

/** What the view shows: the check line, the diff read so far and where the rest starts. */
export interface Review {
  /** The land check as a line, or why there is none. */
  readonly check: string;
  /** The ways it may land now (none: it conflicts, the HEAD is detached, or no check). */
  readonly modes: readonly LandMode[];
  /** The diff read so far (plain text), or null when it could not be read. */
  readonly diff: string | null;
  /** Why the diff could not be read (or the next page failed). */
  readonly problem: string | null;
  /** Where the next page starts (null: the diff is all here). */
  readonly nextOffset: number | null;
}

type ReviewActions = Pick<UiActions, "landCheck" | "diffPage">;

/** Whether the session view links to the diff view: an isolated session, an `operate` device. */
export function offersDiff(session: SessionRecord, scopes: readonly string[]): boolean {
  return Boolean(session.worktree) && allows(scopes, "operate");
}

/** The land check and the first page of the diff. */
export async function loadReview(actions: ReviewActions, sessionId: string): Promise<Review> {
  const [check, page] = await Promise.all([
    actions.landCheck(sessionId),
    actions.diffPage(sessionId, 0),
  ]);
  return {
    check: check.ok ? checkText(check.check) : check.message,
    modes: check.ok ? landModes(check.check) : [],
    diff: page.ok ? page.data : null,
    problem: page.ok ? null : page.message,
    nextOffset: page.ok ? page.nextOffset : null,
  };
}

/** The review with the diff's next page added (a failure is kept as the problem). */
export async function moreDiff(
  actions: ReviewActions,
  sessionId: string,
  review: Review,
): Promise<Review> {
  if (review.nextOffset === null) return review;
  const page = await actions.diffPage(sessionId, review.nextOffset);
  if (!page.ok) return { ...review, problem: page.message };
  return {
    ...review,
    diff: (review.diff ?? "") + page.data,
    problem: null,
    nextOffset: page.nextOffset,
  };
}

/** The question the page asks before discarding, and whether the discard is forced. */
export function discardQuestion(
  session: SessionRecord,
): { question: string; warning: string; force: boolean } {
  const { landed, warning } = discardCost(session);
  return {
    question: `Discard the worktree of ${session.id} and its branch ${
      session.worktree?.branch ?? ""
    }?`,
    warning: warning[0].toUpperCase() + warning.slice(1),
    force: !landed,
  };
}

/** The label of a land button. */
export function landLabel(mode: LandMode): string {
  return `Land (${mode})`;
}
