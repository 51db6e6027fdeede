import { z } from "zod";
import { API_PREFIX } from "./app.ts";
import type { Route } from "./route.ts";
import { API_VERSION } from "../version.ts";

const errorEnvelope = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    details: z.record(z.string(), z.unknown()),
  }),
});

/**
 * The OpenAPI 3.1 document of the route table: every route, its summary,
 * path parameters, request body (zod 4's JSON Schema of the same schema the
 * handler validates with) and the error envelope (C2.3). Outside the stable
 * subset (C9.6): it may change without a contract version bump.
 */
export function openApiDocument(
  routes: readonly Route[],
  svcVersion: string,
): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = API_PREFIX + route.path.replace(/:(\w+)/g, "{$1}");
    const parameters = [...route.path.matchAll(/:(\w+)/g)].map(([, name]) => ({
      name,
      in: "path",
      required: true,
      schema: { type: "string" },
    }));
    paths[path] ??= {};
    paths[path][route.method.toLowerCase()] = {
      summary: route.summary,
      ...(route.ownerOnly ? { description: "Owner-local IPC only: 403 forbidden over TCP." } : {}),
      ...(parameters.length > 0 ? { parameters } : {}),
      ...(route.body
        ? {
          requestBody: {
            required: true,
            content: {
              "application/json": {
                schema: z.toJSONSchema(route.body, { io: "input", unrepresentable: "any" }),
              },
            },
          },
        }
        : {}),
      responses: {
        "2XX": { description: "Success", content: { "application/json": { schema: {} } } },
        default: {
          description: "The error envelope",
          content: { "application/json": { schema: z.toJSONSchema(errorEnvelope) } },
        },
      },
    };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "svc daemon API",
      version: svcVersion,
      description: `Contract ${API_VERSION} over HTTP/1.1 on $SVC_HOME/svc.sock (see docs/api.md).`,
    },
    servers: [{ url: "http://localhost" }],
    paths,
  };
}
