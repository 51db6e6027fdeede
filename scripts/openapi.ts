/** `deno task openapi`: writes docs/openapi.json from the route table. */
import { buildRoutes, type RouteDeps } from "../src/api/routes.ts";
import { openApiDocument } from "../src/api/openapi.ts";
import { SVC_VERSION } from "../src/version.ts";

/** The route table needs no live dependencies to be listed. */
export function routeTable() {
  const inert = new Proxy({}, { get: () => new Proxy({}, { get: () => () => {} }) });
  return buildRoutes(inert as RouteDeps);
}

if (import.meta.main) {
  const target = new URL("../docs/openapi.json", import.meta.url);
  const document = openApiDocument(routeTable(), SVC_VERSION);
  await Deno.writeTextFile(target, JSON.stringify(document, null, 2) + "\n");
  console.log(`wrote ${target.pathname}`);
}
