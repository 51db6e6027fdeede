import assert from "node:assert/strict";
import { buildRoutes, type RouteDeps } from "../../src/api/routes.ts";

// The table is data: building it needs no live dependencies, only their shapes.
const routes = buildRoutes(
  new Proxy({}, { get: () => new Proxy({}, { get: () => () => {} }) }) as RouteDeps,
);

Deno.test("buildRoutes() lists every route of the contract once (C4)", () => {
  const table = routes.map((route) => `${route.method} ${route.path}`);
  assert.equal(new Set(table).size, table.length, "no route twice");
  for (
    const route of [
      "GET /health",
      "GET /capabilities",
      "GET /api-version",
      "POST /actions",
      "GET /sessions",
      "POST /sessions",
      "GET /sessions/:id",
      "POST /sessions/:id/input",
      "POST /sessions/:id/kill",
      "GET /events",
      "GET /sessions/:id/events",
      "GET /session-policy",
      "POST /sessions/restricted",
      "GET /sessions/:sessionId/artifacts/:artifactId",
    ]
  ) {
    assert.ok(table.includes(route), route);
  }
});

Deno.test("buildRoutes() puts static paths before parameterised ones that could shadow them", () => {
  const paths = routes.map((route) => route.path);
  assert.ok(paths.indexOf("/sessions/restricted") < paths.indexOf("/sessions/:id"));
});

Deno.test("buildRoutes() marks the owner-only routes (C5.4, D9, D11, D23)", () => {
  const ownerOnly = routes.filter((route) => route.ownerOnly).map((route) =>
    `${route.method} ${route.path}`
  );
  assert.deepEqual(
    ownerOnly.sort(),
    [
      "GET /sessions/:sessionId/artifacts/:artifactId",
      "POST /sessions",
      "POST /sessions/:id/close",
      "POST /sessions/:id/input",
      "POST /sessions/:id/interrupt",
      "POST /sessions/:id/kill",
      "POST /sessions/:id/resume",
      "POST /sessions/:id/unpark",
      "POST /sessions/:id/worktree/discard",
      "POST /sessions/:id/worktree/land",
      "POST /sessions/restricted",
      "POST /sessions/adopt",
      "POST /shutdown",
      "POST /notifications/test",
      "GET /sessions/:id/worktree/diff",
      "GET /sessions/:id/worktree/check",
      "GET /land-queue",
      "POST /land-queue",
      "POST /land-queue/:itemId/cancel",
      "GET /devices",
      "POST /devices/pairing-codes",
      "POST /devices/revoke",
    ].sort(),
  );
});

Deno.test("every route that changes anything is owner-only; /actions decides per action (D23)", () => {
  // The pairing exchange is open to a page with the right Origin and a one-use code (D30).
  const open = routes.filter((route) =>
    route.method !== "GET" && !route.ownerOnly && route.path !== "/actions" &&
    route.path !== "/devices/pair"
  );
  assert.deepEqual(open.map((route) => `${route.method} ${route.path}`), []);
});
