import assert from "node:assert/strict";
import { createHandler } from "../../src/api/app.ts";
import { jsonResponse } from "../../src/api/json.ts";
import type { Route } from "../../src/api/route.ts";
import { silentLogger } from "../../src/log.ts";
import { tcpPeer, UNIX_PEER } from "../../src/policy/peer.ts";
import { openDatabase } from "../../src/store/db.ts";
import { DevicesStore } from "../../src/store/devices_store.ts";
import { Devices } from "../../src/web/devices.ts";
import { fileAssets } from "../../src/web/static_assets.ts";
import { HTML_CSP, webGate } from "../../src/web/web_gate.ts";
import { systemClock } from "../../src/clock.ts";

const PEER = tcpPeer("127.0.0.1", 3000, {
  remote: "127.0.0.1",
  web: { origins: [], trustProxy: false },
});

const ROUTES: Route[] = [{
  method: "GET",
  path: "/health",
  summary: "health",
  operationId: "health",
  tag: "system",
  responses: {},
  handler: () => jsonResponse({ ok: true }),
}];

function gateOver(files: Record<string, string>) {
  const encoder = new TextEncoder();
  const db = openDatabase(":memory:");
  const devices = new Devices({
    store: new DevicesStore(db),
    clock: systemClock,
    log: silentLogger,
  });
  const gate = webGate(createHandler(ROUTES, { log: silentLogger }), {
    devices,
    assets: fileAssets(
      Object.fromEntries(Object.entries(files).map(([path, text]) => [path, encoder.encode(text)])),
    ),
    log: silentLogger,
  });
  return {
    get: (path: string, method = "GET") =>
      gate(
        new Request(`http://127.0.0.1:3000${path}`, {
          method,
          headers: { host: "127.0.0.1:3000" },
        }),
        PEER,
      ),
    gate,
    [Symbol.dispose]() {
      db.close();
    },
  };
}

Deno.test("webGate() serves the app's page and files with the D30 headers", async (t) => {
  using web = gateOver({
    "index.html": "<!doctype html><title>svc</title><script src=/assets/app.js></script>",
    "assets/app.js": "console.log(1)",
    "assets/app.css": "body{}",
  });
  await t.step("the page at / and /pair: CSP, no-referrer, COOP, no-store, nosniff", async () => {
    for (const path of ["/", "/pair"]) {
      const page = await web.get(path);
      assert.equal(page.status, 200);
      assert.equal(page.headers.get("content-type"), "text/html; charset=utf-8");
      assert.equal(page.headers.get("content-security-policy"), HTML_CSP);
      assert.equal(page.headers.get("referrer-policy"), "no-referrer");
      assert.equal(page.headers.get("cross-origin-opener-policy"), "same-origin");
      assert.equal(page.headers.get("cache-control"), "no-store");
      assert.equal(page.headers.get("x-content-type-options"), "nosniff");
      assert.match(await page.text(), /<title>svc<\/title>/);
    }
  });
  await t.step("a script: its type and nosniff, no CSP", async () => {
    const script = await web.get("/assets/app.js");
    assert.equal(script.headers.get("content-type"), "text/javascript; charset=utf-8");
    assert.equal(script.headers.get("x-content-type-options"), "nosniff");
    assert.equal(script.headers.get("content-security-policy"), null);
    assert.equal(await script.text(), "console.log(1)");
  });
  await t.step("HEAD: the length, no body", async () => {
    const head = await web.get("/assets/app.css", "HEAD");
    assert.equal(head.headers.get("content-length"), "6");
    assert.equal(await head.text(), "");
  });
  await t.step("nothing outside the directory, no other method", async () => {
    for (const path of ["/assets/missing.js", "/%2e%2e/secret", "/assets/.hidden", "/a//b"]) {
      const answer = await web.get(path);
      assert.equal(answer.status, 404, path);
      assert.equal(answer.headers.get("x-content-type-options"), "nosniff");
    }
    assert.equal((await web.get("/", "POST")).status, 405);
  });
  await t.step("API answers: no-store and nosniff, never a CORS header", async () => {
    const health = await web.get("/api/v1/health");
    assert.equal(health.status, 200);
    assert.equal(health.headers.get("cache-control"), "no-store");
    assert.equal(health.headers.get("x-content-type-options"), "nosniff");
    assert.ok(![...health.headers.keys()].some((name) => name.startsWith("access-control-")));
  });
  await t.step("the socket's answers pass through untouched", async () => {
    const health = await web.gate(new Request("http://localhost/api/v1/health"), UNIX_PEER);
    assert.equal(health.headers.get("x-content-type-options"), null);
  });
});

Deno.test("webGate() says so when the app is not built, and never makes a page up", async () => {
  using web = gateOver({});
  const page = await web.get("/");
  assert.equal(page.status, 404);
  const body = await page.json();
  assert.equal(body.error.code, "web_app_not_built");
  assert.equal(page.headers.get("content-type"), "application/json; charset=utf-8");
  assert.equal(page.headers.get("cache-control"), "no-store");
});
