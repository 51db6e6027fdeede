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

Deno.test("what each scope adds, and what stays on the socket (D30)", async (t) => {
  const needing = (need: string) =>
    [...ROUTE_NEEDS].filter(([, each]) => each === need).map(([key]) => key).sort();
  await t.step("approve: interrupt a turn (and answer, below)", () => {
    assert.deepEqual(needing("approve"), ["POST /sessions/:id/interrupt"]);
  });
  await t.step(
    "operate: launch, adopt, input, resume, close, kill, diffs, land, discard, the land queue",
    () => {
      assert.deepEqual(needing("operate"), [
        "GET /land-queue",
        "GET /sessions/:id/worktree/check",
        "GET /sessions/:id/worktree/diff",
        "POST /land-queue",
        "POST /land-queue/:itemId/cancel",
        "POST /sessions",
        "POST /sessions/:id/close",
        "POST /sessions/:id/input",
        "POST /sessions/:id/kill",
        "POST /sessions/:id/resume",
        "POST /sessions/:id/unpark",
        "POST /sessions/:id/worktree/discard",
        "POST /sessions/:id/worktree/land",
        "POST /sessions/adopt",
      ]);
    },
  );
  await t.step("socket: devices, shutdown, raw artifacts, restricted launch", () => {
    assert.deepEqual(needing("socket"), [
      "GET /devices",
      "GET /sessions/:sessionId/artifacts/:artifactId",
      "POST /devices/pairing-codes",
      "POST /devices/revoke",
      "POST /notifications/test",
      "POST /sessions/restricted",
      "POST /shutdown",
    ]);
    assert.equal(routeNeed("GET", "/not/a/route"), "socket");
  });
  await t.step("the pairing exchange needs no device", () => {
    assert.deepEqual(needing("pairing"), ["POST /devices/pair"]);
  });
  await t.step(
    "actions: approve answers, operate runs, pauses and activates routines, changes stay on the socket",
    () => {
      const actionsNeeding = (need: string) =>
        [...ACTION_NEEDS].filter(([, each]) => each === need).map(([id]) => id).sort();
      assert.deepEqual(actionsNeeding("approve"), ["svc.sessions.approve"]);
      assert.deepEqual(actionsNeeding("operate"), [
        "svc.automations.activate",
        "svc.automations.pause",
        "svc.automations.run",
      ]);
      for (
        const id of [
          "svc.approvals.rules.add",
          "svc.automations.create",
          // D30: the whole definition stays the owner's; a device sets the status alone.
          "svc.automations.update",
          "svc.automations.delete",
          "svc.unknown",
        ]
      ) {
        assert.equal(actionNeed(id), "socket", id);
      }
      for (const id of TCP_AUTOMATION_ALLOWLIST) assert.equal(actionNeed(id), "read");
    },
  );
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
