import assert from "node:assert/strict";
import type { z } from "zod";
import {
  ACTION_NEEDS,
  actionNeed,
  DEVICE_SCOPES,
  heldScopes,
  ROUTE_NEEDS,
  routeNeed,
  scopeMeets,
} from "../../src/policy/device_scopes.ts";
import { TCP_AUTOMATION_ALLOWLIST } from "../../src/policy/access.ts";
import { routeTable } from "../../scripts/openapi.ts";

const routes = routeTable();

/** The action ids of `POST /actions`, read from its documented request schema. */
function actionIds(): string[] {
  const router = routes.find((route) => route.path === "/actions")!;
  const union = router.body as z.ZodDiscriminatedUnion<z.ZodObject[]>;
  return union.options.map((option) => (option.shape.action as z.ZodLiteral<string>).value);
}

Deno.test("ROUTE_NEEDS decides every route of the table, and only those (D30)", () => {
  const listed = routes.map((route) => `${route.method} ${route.path}`);
  const undecided = listed.filter((key) => !ROUTE_NEEDS.has(key));
  assert.deepEqual(undecided, [], "a new route needs a decided device scope");
  assert.deepEqual([...ROUTE_NEEDS.keys()].filter((key) => !listed.includes(key)), []);
});

Deno.test("ACTION_NEEDS decides every action of the router, and only those (D30)", () => {
  const ids = actionIds();
  assert.ok(ids.length > 10);
  assert.deepEqual(ids.filter((id) => !ACTION_NEEDS.has(id)), []);
  assert.deepEqual([...ACTION_NEEDS.keys()].filter((id) => !ids.includes(id)), []);
});

Deno.test("routeNeed() keeps owner-only routes beyond `read`, and reads at `read`", async (t) => {
  for (const route of routes) {
    const need = routeNeed(route.method, route.path);
    await t.step(`${route.method} ${route.path} → ${need}`, () => {
      if (route.ownerOnly) assert.notEqual(need, "read", "TCP may not call it today");
      else if (route.method === "GET") assert.equal(need, "read");
    });
  }
});

Deno.test("the scope table of D30", async (t) => {
  const cases: Array<[string, string]> = [
    ["POST /sessions/:id/interrupt", "approve"],
    ["POST /sessions", "operate"],
    ["POST /sessions/:id/input", "operate"],
    ["POST /sessions/:id/resume", "operate"],
    ["POST /sessions/:id/close", "operate"],
    ["POST /sessions/:id/kill", "operate"],
    ["GET /sessions/:id/worktree/diff", "operate"],
    ["POST /sessions/:id/worktree/land", "operate"],
    ["POST /sessions/:id/worktree/discard", "operate"],
    ["POST /shutdown", "socket"],
    ["GET /devices", "socket"],
    ["POST /devices/pairing-codes", "socket"],
    ["POST /devices/revoke", "socket"],
    ["POST /devices/pair", "pairing"],
    ["GET /not/a/route", "socket"],
  ];
  for (const [key, expected] of cases) {
    await t.step(key, () => {
      const [method, path] = key.split(" ");
      assert.equal(routeNeed(method, path), expected);
    });
  }
  const actions: Array<[string, string]> = [
    ["svc.sessions.approve", "approve"],
    ["svc.automations.run", "operate"],
    ["svc.approvals.rules.add", "socket"],
    ["svc.automations.create", "socket"],
    ["svc.automations.prune", "socket"],
    ["svc.unknown", "socket"],
  ];
  for (const [id, expected] of actions) {
    await t.step(id, () => assert.equal(actionNeed(id), expected));
  }
  await t.step("what TCP may run today is `read`", () => {
    for (const id of TCP_AUTOMATION_ALLOWLIST) assert.equal(actionNeed(id), "read");
  });
});

Deno.test("scopeMeets() nests the scopes and never meets `socket`", () => {
  const table = DEVICE_SCOPES.map((scope) =>
    ["read", "approve", "operate", "socket", "pairing"].map((need) =>
      scopeMeets(scope, need as never) ? "y" : "-"
    ).join("")
  );
  assert.deepEqual(table, ["y---y", "yy--y", "yyy-y"]);
  assert.deepEqual(heldScopes("approve"), ["read", "approve"]);
});
