import assert from "node:assert/strict";
import { createHandler, errorResponse } from "../../src/api/app.ts";
import { ServiceError } from "../../src/errors.ts";
import { jsonResponse } from "../../src/api/json.ts";
import type { Route } from "../../src/api/route.ts";
import { createLogger, silentLogger } from "../../src/log.ts";
import { tcpPeer, UNIX_PEER } from "../../src/policy/peer.ts";

/** The documentation every route carries; these test routes need none of it. */
const DOC = { operationId: "test", tag: "system", responses: {} } as const;

const routes: Route[] = [
  {
    method: "GET",
    path: "/things/:id",
    summary: "test",
    ...DOC,
    handler: ({ params }) => jsonResponse({ id: params.id }),
  },
  {
    method: "POST",
    path: "/things",
    summary: "test",
    ...DOC,
    handler: () => jsonResponse({ made: true }, 201),
  },
  {
    method: "POST",
    path: "/owner",
    summary: "test",
    ...DOC,
    ownerOnly: "Owner thing",
    handler: () => jsonResponse({}),
  },
  {
    method: "GET",
    path: "/boom",
    summary: "test",
    ...DOC,
    handler: () => {
      throw new Error("secret stack detail");
    },
  },
  {
    method: "GET",
    path: "/typed",
    summary: "test",
    ...DOC,
    handler: () => {
      throw new ServiceError("session_not_found", 404, 'Session "x" does not exist', {
        sessionId: "x",
      });
    },
  },
];

const handler = createHandler(routes, { log: silentLogger });
const get = (path: string) => new Request(`http://localhost/api/v1${path}`);

Deno.test("createHandler() routes by path and method with params", async () => {
  const response = await handler(get("/things/a%20b"), UNIX_PEER);
  assert.equal(response.status, 200);
  assert.deepEqual(await response.json(), { id: "a b" });
});

Deno.test("createHandler() answers 404 not_found and 405 method_not_allowed in the envelope", async () => {
  const missing = await handler(get("/nope"), UNIX_PEER);
  assert.equal(missing.status, 404);
  assert.equal((await missing.json()).error.code, "not_found");
  const wrong = await handler(
    new Request("http://localhost/api/v1/things/1", { method: "DELETE" }),
    UNIX_PEER,
  );
  assert.equal(wrong.status, 405);
  const body = await wrong.json();
  assert.equal(body.error.code, "method_not_allowed");
  assert.deepEqual(typeof body.error.details, "object");
});

Deno.test("createHandler() maps a ServiceError to its status and envelope", async () => {
  const response = await handler(get("/typed"), UNIX_PEER);
  assert.equal(response.status, 404);
  assert.deepEqual(await response.json(), {
    error: {
      code: "session_not_found",
      message: 'Session "x" does not exist',
      details: { sessionId: "x" },
    },
  });
});

Deno.test("createHandler() hides an unexpected error's stack and logs it", async () => {
  const lines: string[] = [];
  const logged = createHandler(routes, {
    log: createLogger([(l) => lines.push(l)]),
  });
  const response = await logged(get("/boom"), UNIX_PEER);
  assert.equal(response.status, 500);
  const text = await response.text();
  assert.ok(!text.includes("secret stack detail"));
  assert.equal(JSON.parse(text).error.code, "internal_error");
  assert.equal(lines.length, 1);
  assert.ok(lines[0].includes("secret stack detail"));
  assert.ok(lines[0].includes("stack"));
});

Deno.test("createHandler() refuses owner-only routes over TCP before the handler", async () => {
  const req = new Request("http://127.0.0.1:3000/api/v1/owner", { method: "POST" });
  req.headers.set("host", "127.0.0.1:3000");
  const response = await handler(req, tcpPeer("127.0.0.1", 3000));
  assert.equal(response.status, 403);
  assert.equal((await response.json()).error.code, "forbidden");
});

Deno.test("createHandler() checks the body type before the handler (415)", async () => {
  const req = new Request("http://localhost/api/v1/things", {
    method: "POST",
    body: "hello",
    headers: { "content-type": "text/plain", "content-length": "5" },
  });
  const response = await handler(req, UNIX_PEER);
  assert.equal(response.status, 415);
  assert.equal((await response.json()).error.code, "unsupported_media_type");
});

Deno.test("createHandler() refuses a malformed path segment with 400", async () => {
  const response = await handler(get("/things/%E0%A4%A"), UNIX_PEER);
  assert.equal(response.status, 400);
  assert.equal((await response.json()).error.code, "invalid_request");
});

Deno.test("errorResponse() always gives details as an object", async () => {
  const response = errorResponse(new ServiceError("x", 418, "Teapot"), silentLogger);
  assert.deepEqual(await response.json(), { error: { code: "x", message: "Teapot", details: {} } });
});
