/**
 * Routines (`/#/routines`, D30): each with its status, when it runs next,
 * its last run and health, and Run now when the device may operate.
 * Activating and pausing stay on the owner's socket, so they are not offered.
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
                {row.mayRun && (
                  <div className="answers">
                    <button
                      type="button"
                      aria-label={`Run ${row.id} now`}
                      onClick={() => runtime.runRoutine(row.id)}
                    >
                      Run now
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
