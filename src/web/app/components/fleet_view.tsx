/**
 * The fleet (`/#/fleet`): live sessions first, each a link to its session
 * view (D30); a filter field (`/` focuses it, as `svc ui`'s filter) and the
 * ended sessions shown or hidden (`a`).
 */
import { age, money, STATE_STYLE } from "../../../ui/format.ts";
import type { FleetRow, Snapshot } from "../../../ui/model.ts";
import type { FleetOptions } from "../lists.ts";
import { hrefOf } from "../route.ts";
import { selectedProps } from "./selection.ts";

/** The filter field's id: `/` focuses it. */
export const FLEET_FILTER_ID = "fleet-filter";

export function FleetView(
  { snapshot, rows, selected, options, onFilter }: {
    snapshot: Snapshot;
    rows: readonly FleetRow[];
    selected: number;
    options: FleetOptions;
    onFilter: (filter: string) => void;
  },
) {
  const nowMs = Date.now();
  return (
    <section aria-labelledby="fleet-title">
      <h1 id="fleet-title">Fleet</h1>
      <p className="summary">
        {rows.filter((row) => row.session.status === "running").length} live · today{" "}
        {money(snapshot.todayCostUsd)}
        {options.showEnded ? "" : " · ended sessions hidden (a shows them)"}
      </p>
      <input
        id={FLEET_FILTER_ID}
        className="filter"
        type="search"
        aria-label="Filter the fleet"
        placeholder="Filter (/)"
        value={options.filter}
        onChange={(event) => onFilter(event.target.value)}
        onKeyDown={(event) => {
          // As svc ui's filter: Enter keeps it, Esc clears it; both give the keys back.
          if (event.key === "Escape") onFilter("");
          if (event.key === "Enter" || event.key === "Escape") event.currentTarget.blur();
        }}
      />
      {rows.length === 0
        ? <p>{options.filter === "" ? "No sessions yet." : "No session matches the filter."}</p>
        : (
          <ul className="fleet">
            {rows.map(({ session, state, lastEventAt }, index) => (
              <li key={session.id} {...selectedProps(index === selected)}>
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
