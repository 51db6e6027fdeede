/**
 * The web app's views and their URLs (D30): `/pair#<code>` pairs, and every
 * other view lives in the fragment (`/#/fleet`, `/#/approvals`, `/#/s/<id>`),
 * so the page is one file, notifications link to a view and the back button
 * follows. Pure: the location comes in.
 */

/** A view and what it shows. */
export type Route =
  | { view: "pair"; code: string | null }
  | { view: "fleet" }
  | { view: "approvals" }
  | { view: "session"; sessionId: string };

/** The route of a location (`pathname`, `hash` as `location` has them); unknown ones: the fleet. */
export function routeOf(location: { pathname: string; hash: string }): Route {
  const fragment = location.hash.replace(/^#/, "");
  if (location.pathname === "/pair") {
    return { view: "pair", code: fragment === "" ? null : fragment };
  }
  if (fragment === "/approvals") return { view: "approvals" };
  const session = /^\/s\/([^/]+)$/.exec(fragment);
  if (session !== null) {
    try {
      return { view: "session", sessionId: decodeURIComponent(session[1]) };
    } catch {
      return { view: "fleet" };
    }
  }
  return { view: "fleet" };
}

/** The URL of a route (pairing has none to link to: its code is single-use). */
export function hrefOf(route: Exclude<Route, { view: "pair" }>): string {
  switch (route.view) {
    case "fleet":
      return "/#/fleet";
    case "approvals":
      return "/#/approvals";
    case "session":
      return `/#/s/${encodeURIComponent(route.sessionId)}`;
  }
}
