/** RFC 9110 details through the real socket (issue 15): 405 with Allow, HEAD on GET routes. */
import assert from "node:assert/strict";
import { startTestDaemon } from "../helpers/daemon.ts";
import { httpRequest, rawHttp } from "../helpers/http.ts";
import { removeTree, tempHome } from "../helpers/home.ts";

// deno-lint-ignore no-explicit-any
type Json = Record<string, any>;

Deno.test("405 answers carry Allow, listing HEAD wherever GET is", async () => {
  await using t = await startTestDaemon();
  const socket = { transport: "unix" as const, path: t.socket };
  const cases: Array<[string, string, string]> = [
    ["DELETE", "/api/v1/health", "GET, HEAD"],
    ["PUT", "/api/v1/sessions", "GET, HEAD, POST"],
    ["GET", "/api/v1/sessions/restricted", "POST"], // not GET /sessions/:id
    ["GET", "/api/v1/actions", "POST"],
    ["DELETE", "/api/v1/sessions/ses_x", "GET, HEAD"],
    ["GET", "/api/v1/sessions/ses_x/kill", "POST"],
  ];
  for (const [method, path, allow] of cases) {
    const response = await rawHttp(socket, httpRequest(method, path));
    assert.equal(response.status, 405, `${method} ${path}`);
    assert.equal(response.headers.get("allow"), allow, `${method} ${path}`);
    assert.equal((response.body as Json).error.code, "method_not_allowed");
  }
});

Deno.test("HEAD answers like GET without a body, streams included", async () => {
  const project = await Deno.realPath(await tempHome());
  await using t = await startTestDaemon();
  try {
    const socket = { transport: "unix" as const, path: t.socket };
    for (const path of ["/api/v1/health", "/api/v1/sessions", "/api/v1/openapi.json"]) {
      const get = await rawHttp(socket, httpRequest("GET", path));
      const head = await rawHttp(socket, httpRequest("HEAD", path));
      assert.equal(head.status, get.status, path);
      assert.equal(head.headers.get("content-type"), get.headers.get("content-type"), path);
      assert.equal(head.text, "", path);
    }
    const missing = await rawHttp(socket, httpRequest("HEAD", "/api/v1/sessions/ses_nope"));
    assert.equal(missing.status, 404);
    assert.equal(missing.text, "");
    // A stream answers its headers and ends at once.
    const stream = await rawHttp(socket, httpRequest("HEAD", "/api/v1/stream"));
    assert.equal(stream.status, 200);
    assert.match(stream.headers.get("content-type") ?? "", /text\/event-stream/);
    assert.equal(stream.text, "");
  } finally {
    await removeTree(project);
  }
});
