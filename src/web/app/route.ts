/**
 * The web app's views and their URLs (D30): `/pair#<code>` pairs, and every
 * other view lives in the fragment (`/#/fleet`, `/#/attention`, `/#/approvals`,
 * `/#/routines`, `/#/inbox`, `/#/inbox/<run id>`, `/#/land`, `/#/new`,
 * `/#/s/<id>`, `/#/s/<id>/diff`),
 * so the page is one file, notifications link to a view and the back button
 * follows. Pure: the location comes in.
 */

/** A view and what it shows. */
export type Route =
  | { view: "land" }
  | { view: "new" }
  | { view: "pair"; code: string | null }
  | { view: "fleet" }
  | { view: "attention" }
  | { view: "approvals" }
  | { view: "routines" }
  | { view: "inbox"; runId: string | null }
  | { view: "land" }
  | { view: "session"; sessionId: string }
  | { view: "diff"; sessionId: string };

/** The route of a location (`pathname`, `hash` as `location` has them); unknown ones: the fleet. */
export function routeOf(location: { pathname: string; hash: string }): Route {
  const fragment = location.hash.replace(/^#/, "");
  if (location.pathname === "/pair") {
    return { view: "pair", code: fragment === "" ? null : fragment };
  }
  if (fragment === "/attention") return { view: "attention" };
  if (fragment === "/approvals") return { view: "approvals" };
  if (fragment === "/routines") return { view: "routines" };
  if (fragment === "/inbox") return { view: "inbox", runId: null };
  if (fragment === "/land") return { view: "land" };
  if (fragment === "/new") return { view: "new" };
  const result = /^\/inbox\/([^/]+)$/.exec(fragment);
  if (result !== null) {
    const runId = decoded(result[1]);
    return runId === null ? { view: "inbox", runId: null } : { view: "inbox", runId };
  }
  const session = /^\/s\/([^/]+)(\/diff)?$/.exec(fragment);
  const sessionId = session === null ? null : decoded(session[1]);
  if (sessionId === null) return { view: "fleet" };
  return session?.[2] === undefined ? { view: "session", sessionId } : { view: "diff", sessionId };
}

function decoded(part: string): string | null {
  try {
    return decodeURIComponent(part);
  } catch {
    return null;
  }
}

/** The URL of a route (pairing has none to link to: its code is single-use). */
export function hrefOf(route: Exclude<Route, { view: "pair" }>): string {
  switch (route.view) {
    case "fleet":
      return "/#/fleet";
    case "attention":
      return "/#/attention";
    case "approvals":
      return "/#/approvals";
    case "routines":
      return "/#/routines";
    case "inbox":
      return route.runId === null ? "/#/inbox" : `/#/inbox/${encodeURIComponent(route.runId)}`;
    case "land":
      return "/#/land";
    case "new":
      return "/#/new";
    case "session":
      return `/#/s/${encodeURIComponent(route.sessionId)}`;
    case "diff":
      return `/#/s/${encodeURIComponent(route.sessionId)}/diff`;
  }
}
