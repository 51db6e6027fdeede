/** The fleet (`/#/fleet`): live sessions first, each a link to its session view (D30). */
import { age, money, STATE_STYLE } from "../../../ui/format.ts";
import { fleetRows, type Snapshot } from "../../../ui/model.ts";
import { STALLED_AFTER_MS } from "../lists.ts";
import { hrefOf } from "../route.ts";

export function FleetView({ snapshot }: { snapshot: Snapshot }) {
  const nowMs = Date.now();
  const rows = fleetRows(snapshot, {
    nowMs,
    stalledAfterMs: STALLED_AFTER_MS,
    showEnded: true,
    filter: "",
  });
  return (
    <section aria-labelledby="fleet-title">
      <h1 id="fleet-title">Fleet</h1>
      <p className="summary">
        {rows.filter((row) => row.session.status === "running").length} live · today{" "}
        {money(snapshot.todayCostUsd)}
      </p>
      {rows.length === 0 ? <p>No sessions yet.</p> : (
        <ul className="fleet">
          {rows.map(({ session, state, lastEventAt }) => (
            <li key={session.id}>
              <a href={hrefOf({ view: "session", sessionId: session.id })}>
                <span className={`state ${state}`} aria-label={state}>
                  {STATE_STYLE[state].glyph}
                </span>
                <span className="title">{session.title || session.id}</span>
                <span className="meta">
                  {session.harness} · {state} · {age(lastEventAt, nowMs)} ago
                </span>
              </a>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
