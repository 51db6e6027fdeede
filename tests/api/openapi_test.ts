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
  const actions = document.paths["/api/v1/actions"].post as {
    requestBody: {
      content: Record<string, { schema: { properties: { action: { enum: string[] } } } }>;
    };
  };
  assert.ok(
    actions.requestBody.content["application/json"].schema.properties.action.enum.includes(
      "svc.automations.tick",
    ),
  );
});

Deno.test("docs/openapi.json is up to date (run `deno task openapi`)", async () => {
  const committed = JSON.parse(
    await Deno.readTextFile(new URL("../../docs/openapi.json", import.meta.url)),
  );
  const current = openApiDocument(routeTable(), committed.info.version);
  assert.deepEqual(committed, JSON.parse(JSON.stringify(current)));
});
