/**
 * Attention (`/#/attention`, D30): the sessions that need the user, most
 * urgent first, in `svc ui`'s order (an approval waiting, then failed or
 * stalled, then a finished turn not yet seen); each a link to its session.
 */
import type { Snapshot } from "../../../ui/model.ts";
import { attentionRows } from "../lists.ts";
import { hrefOf } from "../route.ts";

export function AttentionView({ snapshot }: { snapshot: Snapshot }) {
  const rows = attentionRows(snapshot, Date.now());
  return (
    <section aria-labelledby="attention-title">
      <h1 id="attention-title">Attention</h1>
      {rows.length === 0 ? <p>Nothing needs you.</p> : (
        <ul className="fleet attention">
          {rows.map((row) => (
            <li key={row.sessionId} aria-label={row.label}>
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
