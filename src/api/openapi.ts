import { z } from "zod";
import { API_PREFIX } from "./app.ts";
import type { ResponseDoc, Route } from "./route.ts";
import { actionFailureSchema, errorEnvelopeSchema } from "./schemas.ts";
import { API_VERSION } from "../version.ts";

/** A schema in the document's dialect (JSON Schema 2020-12, OpenAPI 3.1's). */
function toSchema(schema: z.ZodType, io: "input" | "output"): Record<string, unknown> {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: "any" });
  return rest;
}

/** What any route may answer besides its own statuses (D6, D23, issue 13). */
const GENERIC_RESPONSES: Record<string, string> = {
  "403": "`forbidden` over TCP: a foreign Host or Origin (D14)",
  "404": "`not_found`: no route for the path",
  "405": "`method_not_allowed`, with `Allow`",
  "500": "`internal_error`: an unexpected daemon error",
};
const BODY_RESPONSES: Record<string, string> = {
  "413": "`payload_too_large`: a body over 1 MiB",
  "415": "`unsupported_media_type`: a body that is not application/json",
  "503": "`store_unavailable`: the store cannot record a change now",
};

/**
 * The OpenAPI 3.1 document of the route table (issue 15): for every route
 * its operationId, tag, path and query parameters with their bounds, the
 * request body (zod 4's JSON Schema of the same schema the handler
 * validates with), and every status it answers with the exact body schema:
 * records, pages, the error envelope, the action shapes, the special
 * refusals. Outside the stable subset (C9.6): it may change without a
 * contract version bump.
 */
export function openApiDocument(
  routes: readonly Route[],
  svcVersion: string,
): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = API_PREFIX + route.path.replace(/:(\w+)/g, "{$1}");
    paths[path] ??= {};
    paths[path][route.method.toLowerCase()] = {
      operationId: route.operationId,
      tags: [route.tag],
      summary: route.summary,
      description: route.ownerOnly
        ? "Owner-local IPC only: 403 forbidden over TCP (D23)."
        : route.path === "/actions"
        ? "On the socket every action; over TCP only the read-only ones (C4.1, D23)."
        : "On the socket, and over the TCP listener for any local user (a read, D23).",
      parameters: [...pathParameters(route), ...queryParameters(route)],
      ...(route.body
        ? {
          requestBody: {
            required: route.method === "POST" && !isEmptyAllowed(route),
            content: { "application/json": { schema: toSchema(route.body, "input") } },
          },
        }
        : {}),
      responses: responses(route),
    };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "svc daemon API",
      version: svcVersion,
      description: `Contract ${API_VERSION} over HTTP/1.1 on the owner-only socket ` +
        "$SVC_HOME/svc.sock (any Host; `curl --unix-socket`), or on the optional loopback TCP " +
        "listener (`svc serve --tcp`), where only reads are allowed (D23). See docs/api.md.",
      license: { name: "Proprietary", identifier: "LicenseRef-svc" },
      contact: { name: "svc developers (docs/api.md in the repository)" },
    },
    servers: [{
      url: "http://{host}:{port}",
      description: "The loopback TCP listener of `svc serve --tcp HOST:PORT` (read-only, D23); " +
        "on the Unix socket any host answers",
      variables: {
        host: { default: "127.0.0.1", description: "A loopback address" },
        port: { default: "3000", description: "The --tcp port" },
      },
    }],
    security: [],
    tags: [
      { name: "system", description: "Handshake, capabilities, discovery, stop" },
      { name: "sessions", description: "Launch, read, drive and end sessions" },
      { name: "events", description: "Event pages by cursor" },
      { name: "streams", description: "Server-Sent Events" },
      { name: "actions", description: "The action router" },
      { name: "approvals", description: "Standing approval rules and the approval log (D28)" },
      { name: "notifications", description: "Notification channels, their log and a test (D31)" },
      { name: "devices", description: "Paired devices of the web face (D30)" },
    ],
    paths,
  };
}

/** Kill takes an optional body: `{}` or nothing. */
function isEmptyAllowed(route: Route): boolean {
  return route.path.endsWith("/kill");
}

function pathParameters(route: Route) {
  return [...route.path.matchAll(/:(\w+)/g)].map(([, name]) => ({
    name,
    in: "path",
    required: true,
    schema: { type: "string" },
  }));
}

function queryParameters(route: Route) {
  if (!route.query) return [];
  return Object.entries(route.query.shape).map(([name, field]) => {
    const { description, ...rest } = toSchema(field as z.ZodType, "input");
    return {
      name,
      in: "query",
      required: !(field as z.ZodType).safeParse(undefined).success,
      ...(description ? { description } : {}),
      schema: rest,
    };
  });
}

function responses(route: Route): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [status, doc] of Object.entries(route.responses)) out[status] = response(doc);
  const generic = { ...GENERIC_RESPONSES, ...(route.method === "POST" ? BODY_RESPONSES : {}) };
  if (route.ownerOnly) generic["403"] = "`forbidden`: this route needs the owner's socket (TCP)";
  // The action router answers its own errors in the action failure shape (C4.1).
  const schema = route.failureShape ? actionFailureSchema : errorEnvelopeSchema;
  for (const [status, description] of Object.entries(generic)) {
    out[status] ??= response({
      description,
      schema: status === "405" ? errorEnvelopeSchema : schema,
    });
  }
  return out;
}

function response(doc: ResponseDoc): Record<string, unknown> {
  if (!doc.schema) return { description: doc.description };
  const type = doc.contentType ?? "application/json";
  const schema = type === "text/event-stream"
    ? { type: "string" }
    : toSchema(doc.schema(), "output");
  return { description: doc.description, content: { [type]: { schema } } };
}
