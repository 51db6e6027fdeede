/**
 * The questions `svc ui` asks before an act (D25, D28): what the user sees
 * and what each answer does. Face-free: a face shows `lines` and hands the
 * chosen key back; `run` does the act through the actions module.
 */
import { alwaysChoices, type RuleScope } from "../policy/rule_proposal.ts";
import type { Actions, Outcome } from "./actions.ts";
import { keyValues } from "../cli/key_values.ts";
import { safeLine } from "./format.ts";
import type { PendingApproval, RoutineOverview, SessionRecord } from "./model.ts";

/**
 * A question over the view: `y` runs it (`n` and Esc cancel), or, with
 * `keys`, one of them runs it with its value (Esc cancels). `run` returns the
 * outcome to show, or null when there is nothing to show (quitting).
 */
export interface Confirm {
  lines: string[];
  keys?: Record<string, string>;
  run: (choice?: string) => Promise<Outcome> | null;
}

/** "Always" (D28): the rule each scope would create; the user picks where it applies. */
export function alwaysConfirm(approval: PendingApproval, actions: Actions): Confirm {
  return {
    lines: [
      "Always allow — the rule it creates:",
      ...alwaysChoices(approval).map(safeLine),
      "s this session · p this project · e everywhere · Esc cancels",
    ],
    keys: { s: "session", p: "project", e: "everywhere" },
    run: (scope) => actions.answer(approval, "allow", scope as RuleScope),
  };
}

/** Cancelling a land (D34): the item leaves the queue; a failed one stops holding the rest. */
export function landCancelConfirm(
  item: { itemId: string; sessionId: string; label: string },
  actions: Actions,
): Confirm {
  return {
    lines: [
      `Cancel the land of ${safeLine(item.sessionId)} (${item.label})? y cancels, n keeps it`,
    ],
    run: () => actions.cancelLand(item.itemId),
  };
}

export function killConfirm(session: SessionRecord, actions: Actions): Confirm {
  return {
    lines: [`Kill ${session.id} (${safeLine(session.harness)})? y kills, n keeps it`],
    run: () => actions.kill(session.id),
  };
}

/**
 * Pausing or activating a routine shows what it is first: its stored
 * `definition` (prompt, cwd, schedule, isolation, approvals…) as
 * `svc automations activate` prints it (issue 38 item 12), else the facts
 * of the overview. The question without its keys: the web asks it with the
 * browser's confirm (D30).
 */
export function routineQuestion(
  routine: RoutineOverview,
  definition?: Readonly<Record<string, unknown>>,
): string[] {
  const facts = definition
    ? keyValues(definition).split("\n").map((line) => `  ${safeLine(line)}`)
    : [
      `  name     ${safeLine(routine.name)}`,
      `  runtime  ${safeLine(routine.runtime)}`,
      `  next due ${routine.nextDueAt ?? "-"}`,
    ];
  return [
    `${routineActivates(routine) ? "Activate" : "Pause"} routine ${safeLine(routine.id)}?`,
    ...facts,
  ];
}

/** Whether `p` on `routine` activates it (else it pauses it). */
export function routineActivates(routine: RoutineOverview): boolean {
  return routine.status !== "ACTIVE";
}

/** `svc ui`'s question before pausing or activating (`routineQuestion`, answered with y or n). */
export function routineConfirm(
  routine: RoutineOverview,
  actions: Actions,
  definition?: Readonly<Record<string, unknown>>,
): Confirm {
  return {
    lines: [...routineQuestion(routine, definition), "y confirms, n cancels"],
    run: () =>
      actions.setRoutineStatus(routine.id, routineActivates(routine) ? "ACTIVE" : "PAUSED"),
  };
}

/**
 * Quitting while `live` sessions run (issue 38): they keep running, but a
 * stray `q` (typed ahead, or meant for a line that was not open) should not
 * close the screen that watches them. Null when nothing is live: quit at once.
 */
export function quitConfirm(live: number, quit: () => void): Confirm | null {
  if (live === 0) return null;
  const sessions = live === 1
    ? "1 session is live and keeps"
    : `${live} sessions are live and keep`;
  return {
    lines: [`${sessions} running after svc ui quits.`, "Quit? y quits, n stays"],
    run: () => {
      quit();
      return null;
    },
  };
}
