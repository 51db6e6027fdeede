/**
 * Reviewing an isolated session's work from `svc ui` (D27, D34): `d` pages
 * its diff, `L` checks how it would land on the checkout's HEAD and asks how
 * to land it, `D` asks before discarding it. Face-free: a key becomes a step
 * (a text to page, a question, a line for the footer) that any face shows.
 */
import type { Confirm } from "./confirms.ts";
import type { Actions, LandCheck, LandMode, Outcome } from "./actions.ts";
import { safeLine } from "./format.ts";
import type { SessionRecord } from "./model.ts";

/** What a review key leads to. */
export type ReviewStep =
  | { pager: { title: string; lines: string[] } }
  | { confirm: Confirm }
  | { message: Outcome };

/** The step of `command` for the session in focus (null: none). */
export async function reviewStep(
  command: "diff" | "land" | "discard",
  session: SessionRecord | null,
  actions: Actions,
): Promise<ReviewStep> {
  if (!session?.worktree) {
    return { message: { ok: false, message: "This session has no worktree" } };
  }
  switch (command) {
    case "diff": {
      const result = await actions.diff(session.id);
      if (!result.ok) return { message: { ok: false, message: result.lines[0] } };
      return {
        pager: {
          title:
            `worktree diff of ${session.id} · ↑/↓ PgUp/PgDn scroll · L lands · D discards · Esc back`,
          lines: result.lines,
        },
      };
    }
    case "land": {
      const got = await actions.landCheck(session.id);
      return got.ok ? { confirm: landConfirm(session, got.check, actions) } : { message: got };
    }
    case "discard":
      return { confirm: discardConfirm(session, actions) };
  }
}

/**
 * Landing shows the check first (D34): a clean land asks how (`s` squash,
 * named after the session's title; `m` merge; `r` rebase); one that would
 * conflict, or a detached HEAD, is shown with only Esc to close it.
 */
export function landConfirm(session: SessionRecord, check: LandCheck, actions: Actions): Confirm {
  const list = (paths: readonly string[]) => paths.map(safeLine).join(", ");
  const onto = check.branch === null
    ? "a detached HEAD"
    : safeLine(check.branch.replace(/^refs\/heads\//, ""));
  const lines = [
    `Land the work of ${session.id} (${safeLine(session.worktree?.branch)}) on ${onto} of ${
      safeLine(session.worktree?.repository)
    }?`,
  ];
  const modes = landModes(check);
  if (check.branch === null) {
    lines.push("  the checkout's HEAD is detached: check out a branch first");
  } else if (!check.clean) {
    lines.push(`  it would conflict with the checkout's HEAD in: ${list(check.conflicts)}`);
  } else lines.push("  checked against the checkout's HEAD: it lands cleanly");
  if (check.bothChanged.length > 0) {
    lines.push(`  changed on both sides: ${list(check.bothChanged)}`);
  }
  if (check.verify.configured) lines.push("  the project's verify runs on the result first");
  lines.push(
    modes.length > 0
      ? `s squash (one commit: "${safeLine(session.title)}") · m merge · r rebase · Esc cancels`
      : "Esc closes (svc worktrees diff shows the work)",
  );
  return {
    lines,
    keys: modes.length > 0 ? { s: "squash", m: "merge", r: "rebase" } : {},
    run: (mode) => actions.land(session.id, mode as LandMode),
  };
}

/** The ways a checked land may go: all three when it lands cleanly on a branch, else none. */
export function landModes(check: LandCheck): LandMode[] {
  return check.clean && check.branch !== null ? ["squash", "merge", "rebase"] : [];
}

/**
 * What discarding a session's worktree costs: whether its work was landed,
 * and so whether discarding must be forced (work never landed is lost for good).
 */
export function discardCost(session: SessionRecord): { landed: boolean; warning: string } {
  const landed = Boolean(session.worktree?.landedAt);
  return {
    landed,
    warning: landed
      ? "its work was landed"
      : "its work was never landed: discarding loses it for good",
  };
}

/** Discarding asks first, and says when the work was never landed (then it is lost for good). */
export function discardConfirm(session: SessionRecord, actions: Actions): Confirm {
  const { landed, warning } = discardCost(session);
  return {
    lines: [
      `Discard the worktree of ${session.id} and its branch ${safeLine(session.worktree?.branch)}?`,
      `  ${warning}`,
      "y discards, n keeps it",
    ],
    run: () => actions.discard(session.id, !landed),
  };
}
