/**
 * Attention (`/#/attention`, D30): the sessions that need the user, most
 * urgent first, in `svc ui`'s order (an approval waiting, then failed or
 * stalled, then a finished turn not yet seen); each a link to its session.
 */
import type { AttentionRow } from "../lists.ts";
import { hrefOf } from "../route.ts";
import { selectedProps } from "./selection.ts";

export function AttentionView(
  { rows, selected }: { rows: readonly AttentionRow[]; selected: number },
) {
  return (
    <section aria-labelledby="attention-title">
      <h1 id="attention-title">Attention</h1>
      {rows.length === 0 ? <p>Nothing needs you.</p> : (
        <ul className="fleet attention">
          {rows.map((row, index) => (
            <li key={row.sessionId} aria-label={row.label} {...selectedProps(index === selected)}>
              <a href={hrefOf({ view: "session", sessionId: row.sessionId })}>
                <span className={`reason ${row.reason.replace(" ", "-")}`}>{row.reason}</span>
                <span className="title">{row.title}</span>
                <span className="meta">{row.meta}</span>
              </a>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
