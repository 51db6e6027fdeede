import assert from "node:assert/strict";
import { openApiDocument } from "../../src/api/openapi.ts";
import { routeTable } from "../../scripts/openapi.ts";

Deno.test("openApiDocument() covers every route of the table (issue 5)", () => {
  const routes = routeTable();
  const document = openApiDocument(routes, "test") as {
    openapi: string;
    paths: Record<string, Record<string, unknown>>;
  };
  assert.equal(document.openapi, "3.1.0");
  for (const route of routes) {
    const path = "/api/v1" + route.path.replace(/:(\w+)/g, "{$1}");
    assert.ok(document.paths[path]?.[route.method.toLowerCase()], `${route.method} ${path}`);
  }
  const launch = document.paths["/api/v1/sessions"].post as {
    requestBody: { content: Record<string, { schema: { properties: Record<string, unknown> } }> };
  };
  const schema = launch.requestBody.content["application/json"].schema;
  assert.ok(
    "projectRoot" in schema.properties && "harness" in schema.properties &&
      "prompt" in schema.properties,
  );
  // One closed request schema per action, told apart by `action` (issue 15).
  const actions = document.paths["/api/v1/actions"].post as {
    operationId: string;
    requestBody: {
      content: Record<string, {
        schema: {
          oneOf: Array<{ properties: { action: { const: string } } }>;
        };
      }>;
    };
  };
  const body = actions.requestBody.content["application/json"].schema;
  assert.ok(
    body.oneOf.some((variant) => variant.properties.action.const === "svc.automations.tick"),
  );
  assert.equal(actions.operationId, "runAction");
});

Deno.test("every operation has a unique operationId, a tag, a 2XX answer and its query (issue 15)", () => {
  const document = openApiDocument(routeTable(), "test") as {
    paths: Record<string, Record<string, Record<string, unknown>>>;
  };
  const ids = new Set<string>();
  for (const [path, operations] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const where = `${method} ${path}`;
      assert.equal(typeof operation.operationId, "string", where);
      assert.ok(!ids.has(operation.operationId as string), `duplicate ${operation.operationId}`);
      ids.add(operation.operationId as string);
      assert.equal((operation.tags as string[]).length, 1, where);
      const statuses = Object.keys(operation.responses as Record<string, unknown>);
      if (path !== "/api/v1/sessions/restricted") {
        assert.ok(statuses.some((status) => status.startsWith("2")), where);
      }
      assert.ok(statuses.includes("500") && statuses.includes("405"), where);
    }
  }
  const events = document.paths["/api/v1/events"].get.parameters as Array<{ name: string }>;
  assert.deepEqual(events.map((p) => p.name).sort(), [
    "afterEventId",
    "afterSeq",
    "kinds",
    "limit",
    "sessionId",
    "waitMs",
  ]);
});

Deno.test("docs/openapi.json is up to date (run `deno task openapi`)", async () => {
  const committed = JSON.parse(
    await Deno.readTextFile(new URL("../../docs/openapi.json", import.meta.url)),
  );
  const current = openApiDocument(routeTable(), committed.info.version);
  assert.deepEqual(committed, JSON.parse(JSON.stringify(current)));
});
