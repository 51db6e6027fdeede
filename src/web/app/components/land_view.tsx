/**
 * The land queue (`/#/land`, D34; `svc ui`'s view 7): each item in queue
 * order with its state, send-backs used and why it did not land (or the
 * commit it landed as), live as `land.*` notices arrive; a link to its
 * session; Cancel (asked first) on a queued, sent back or failed item for an
 * `operate` device, the only scope that may read the queue.
 */
import { allows } from "../device.ts";
import type { LandListRow } from "../lists.ts";
import { hrefOf } from "../route.ts";
import type { WebRuntime } from "../web_runtime.ts";
import { selectedProps } from "./selection.ts";

export function LandView(
  { runtime, rows, scopes, selected }: {
    runtime: WebRuntime;
    rows: readonly LandListRow[];
    scopes: readonly string[];
    selected: number;
  },
) {
  return (
    <section aria-labelledby="land-title">
      <h1 id="land-title">Land queue</h1>
      {!allows(scopes, "operate")
        ? <p>The land queue needs a device paired with the operate scope.</p>
        : rows.length === 0
        ? <p>Nothing to land. svc land A B queues sessions.</p>
        : (
          <ul className="fleet land">
            {rows.map((row, index) => (
              <li key={row.itemId} aria-label={row.label} {...selectedProps(index === selected)}>
                <a href={hrefOf({ view: "session", sessionId: row.sessionId })}>
                  <span className={`land-state ${row.state}`}>{row.stateText}</span>
                  <span className="title">{row.title || row.sessionId}</span>
                  <span className="meta">
                    {row.sessionId} · tries {row.tries}
                    {row.detail === "" ? "" : ` · ${row.detail}`}
                  </span>
                </a>
                {row.mayCancel && (
                  <div className="controls">
                    <button
                      type="button"
                      aria-label={`Cancel the land of ${row.sessionId}`}
                      onClick={() => cancelLand(runtime, row)}
                    >
                      Cancel
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

/** Asks on the page, then cancels the item (as `X` in `svc ui` and here). */
export function cancelLand(
  runtime: WebRuntime,
  row: { itemId: string; sessionId: string; stateText: string },
): void {
  if (globalThis.confirm(`Cancel the land of ${row.sessionId} (${row.stateText})?`)) {
    void runtime.cancelLand(row.itemId);
  }
}
