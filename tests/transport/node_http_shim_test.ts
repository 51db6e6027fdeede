import assert from "node:assert/strict";
import { listenNodeShim } from "../../src/transport/node_http_shim.ts";
import { listenUnix } from "../../src/transport/unix_socket.ts";
import { createHandler } from "../../src/api/app.ts";
import { jsonResponse } from "../../src/api/json.ts";
import { readJsonBody } from "../../src/policy/body.ts";
import { silentLogger } from "../../src/log.ts";
import { PIPE_PEER } from "../../src/policy/peer.ts";
import { httpRequest, rawHttp } from "../helpers/http.ts";
import { removeTree, tempHome } from "../helpers/home.ts";

const handler = createHandler([
  {
    method: "GET",
    path: "/who",
    summary: "test",
    operationId: "test",
    tag: "system",
    responses: {},
    handler: ({ peer }) => jsonResponse({ transport: peer.transport }),
  },
  {
    method: "POST",
    path: "/echo",
    summary: "test",
    operationId: "test",
    tag: "system",
    responses: {},
    handler: async ({ req }) => jsonResponse({ got: await readJsonBody(req) }),
  },
], { instanceId: "shim", log: silentLogger });

Deno.test("listenNodeShim() serves the same handler as Deno.serve on a Unix path (D15)", async () => {
  const dir = await tempHome();
  const shim = await listenNodeShim(`${dir}/shim.sock`, handler, PIPE_PEER);
  const native = listenUnix(`${dir}/native.sock`, handler);
  try {
    for (const path of [`${dir}/shim.sock`, `${dir}/native.sock`]) {
      const who = await rawHttp({ transport: "unix", path }, httpRequest("GET", "/api/v1/who"));
      assert.equal(who.status, 200);
      assert.equal(who.headers.get("svc-instance"), "shim");
      const body = JSON.stringify({ text: "é".repeat(300_000) });
      const echo = await rawHttp(
        { transport: "unix", path },
        httpRequest("POST", "/api/v1/echo", {
          headers: { "content-type": "application/json" },
          body,
        }),
      );
      assert.equal(echo.status, 200);
      assert.equal((echo.body as { got: { text: string } }).got.text.length, 300_000);
      const missing = await rawHttp(
        { transport: "unix", path },
        httpRequest("GET", "/api/v1/nope"),
      );
      assert.equal(missing.status, 404);
      assert.equal((missing.body as { error: { code: string } }).error.code, "not_found");
      const plain = await rawHttp(
        { transport: "unix", path },
        httpRequest("POST", "/api/v1/echo", {
          headers: { "content-type": "text/plain" },
          body: "x",
        }),
      );
      assert.equal(plain.status, 415);
    }
    const who = await rawHttp(
      { transport: "unix", path: `${dir}/shim.sock` },
      httpRequest("GET", "/api/v1/who"),
    );
    assert.deepEqual(who.body, { transport: "pipe" });
  } finally {
    await shim.shutdown();
    await native.shutdown();
    await removeTree(dir);
  }
});
