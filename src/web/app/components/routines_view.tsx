/**
 * Routines (`/#/routines`, D30): each with its status, when it runs next,
 * its last run and health, and Run now, Pause or Activate when the device
 * may operate; Pause and Activate ask first with `svc ui`'s question.
 */
import type { RoutineRow } from "../lists.ts";
import type { WebRuntime } from "../web_runtime.ts";
import { selectedProps } from "./selection.ts";

export function RoutinesView(
  { runtime, rows, selected }: {
    runtime: WebRuntime;
    rows: readonly RoutineRow[];
    selected: number;
  },
) {
  return (
    <section aria-labelledby="routines-title">
      <h1 id="routines-title">Routines</h1>
      {rows.length === 0
        ? <p>No routines. svc automations create adds one.</p>
        : (
          <ul className="approvals">
            {rows.map((row, index) => (
              <li
                key={row.id}
                aria-label={row.label}
                {...selectedProps(index === selected, "card")}
              >
                <div className="tool">{row.name}</div>
                <dl className="facts">
                  <dt>Status</dt>
                  <dd>{row.status}</dd>
                  <dt>Next due</dt>
                  <dd>{row.nextDue}</dd>
                  <dt>Last run</dt>
                  <dd>{row.lastRun}</dd>
                  <dt>Health</dt>
                  <dd className={row.healthy ? undefined : "bad"}>{row.health}</dd>
                </dl>
                <p className="meta">{row.label}</p>
                {row.mayOperate && (
                  <div className="answers">
                    <button
                      type="button"
                      aria-label={`Run ${row.id} now`}
                      onClick={() => runtime.runRoutine(row.id)}
                    >
                      Run now
                    </button>
                    <button
                      type="button"
                      aria-label={`${row.statusAction} ${row.id}`}
                      onClick={() => askRoutineStatus(runtime, row.id)}
                    >
                      {row.statusAction}
                    </button>
                  </div>
                )}
              </li>
            ))}
          </ul>
        )}
    </section>
  );
}

/** Pauses or activates `routineId` once the browser's confirm agrees (as `p` in `svc ui` and here). */
export function askRoutineStatus(runtime: WebRuntime, routineId: string): void {
  void runtime.setRoutineStatus(routineId, (question) => globalThis.confirm(question));
}
