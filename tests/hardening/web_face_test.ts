/**
 * The web face's boundary through the real daemon and its TCP listener
 * (issue 34, D30): a paired device's cookie cannot be used by another
 * loopback origin, by a rebinding Host or without Origin; a code pairs
 * once; scopes hold; the token is never stored or logged; revocation ends
 * the device's stream within 1 s; an unpaired peer keeps D23.
 */
import assert from "node:assert/strict";
import { removeTree, tempHome } from "../helpers/home.ts";
import { freePort } from "../helpers/daemon.ts";
import { type Json, json, webDaemon } from "../helpers/web_daemon.ts";
import { agentConfig, launchAgent, waitForKind } from "../helpers/scripted_agent.ts";

Deno.test("pairing: the page gets the device and an HttpOnly SameSite=Strict cookie; a code works once", async () => {
  await using web = await webDaemon();
  const made = await web.t.client.post<Json>("/devices/pairing-codes", {
    name: "phone",
    scope: "approve",
  });
  assert.deepEqual(Object.keys(made.body).sort(), ["code", "expiresAt", "url", "urls"]);
  assert.equal(made.body.url, `${web.origin}/pair#${made.body.code}`);
  const exchange = () =>
    web.send("POST", "/api/v1/devices/pair", {
      headers: { origin: web.origin, "content-type": "application/json" },
      body: JSON.stringify({ code: made.body.code }),
    });
  const first = await exchange();
  assert.equal(first.status, 200, first.text);
  const device = (first.body as { device: Json }).device;
  assert.deepEqual(device.scopes, ["read", "approve"]);
  assert.equal(device.name, "phone");
  const cookie = first.headers.get("set-cookie")!;
  assert.match(
    cookie,
    /^svc_device=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Strict; Path=\/; Max-Age=\d+$/,
  );
  assert.equal(first.headers.get("access-control-allow-origin"), null, "no CORS header");
  assert.equal(first.headers.get("x-content-type-options"), "nosniff");
  assert.equal(first.headers.get("cache-control"), "no-store");
  const again = await exchange();
  assert.equal(again.status, 401);
  assert.equal((again.body as { error: Json }).error.code, "pairing_refused");
  const token = /svc_device=([^;]+)/.exec(cookie)![1];
  const me = await web.send("GET", "/api/v1/devices/me", {
    headers: { cookie: `svc_device=${token}` },
  });
  assert.equal(me.status, 200);
  assert.equal((me.body as { device: Json }).device.id, device.id);
  const anonymous = await web.send("GET", "/api/v1/devices/me");
  assert.equal((anonymous.body as { error: Json }).error.code, "not_paired");
});

Deno.test("another loopback origin cannot act with the victim's cookie, nor a rebinding Host", async () => {
  await using web = await webDaemon();
  const token = await web.pair("operate");
  const attacker = `http://127.0.0.1:${freePort()}`;
  const approve = JSON.stringify({
    action: "svc.sessions.approve",
    sessionId: "s",
    requestId: "r",
    decision: "allow",
  });
  const cases: Array<[string, Record<string, string>, string, string]> = [
    [
      "a form POST",
      { ...json(attacker, token), "content-type": "application/x-www-form-urlencoded" },
      "a=1",
      "403 origin_refused",
    ],
    [
      "a no-cors text/plain fetch",
      { ...json(attacker, token), "content-type": "text/plain" },
      approve,
      "403 origin_refused",
    ],
    [
      "no Origin (rebinding, old clients)",
      { cookie: `svc_device=${token}`, "content-type": "application/json" },
      approve,
      "403 origin_refused",
    ],
    [
      "a cross-site Sec-Fetch-Site",
      { ...json(web.origin, token), "sec-fetch-site": "same-site" },
      approve,
      "403 origin_refused",
    ],
    [
      "its own Origin with text/plain",
      { ...json(web.origin, token), "content-type": "text/plain" },
      approve,
      "415 unsupported_media_type",
    ],
    ["its own Origin and JSON", json(web.origin, token), approve, "404 approval_not_found"],
  ];
  for (const [name, headers, body, expected] of cases) {
    const answer = await web.send("POST", "/api/v1/actions", { headers, body });
    const code = (answer.body as { error?: Json })?.error?.code;
    assert.equal(`${answer.status} ${code}`, expected, name);
  }
  const rebound = await web.send("POST", "/api/v1/actions", {
    host: `evil.example:${web.port}`,
    headers: json(`http://evil.example:${web.port}`, token),
    body: approve,
  });
  assert.equal(rebound.status, 403, "a rebinding Host is refused");
  const readRebound = await web.send("GET", "/api/v1/sessions", {
    host: `evil.example:${web.port}`,
    headers: { cookie: `svc_device=${token}` },
  });
  assert.equal(readRebound.status, 403);
});

Deno.test("scopes: approve cannot launch, read cannot approve; device management stays on the socket", async () => {
  await using web = await webDaemon();
  const approver = await web.pair("approve");
  const reader = await web.pair("read");
  const launch = await web.send("POST", "/api/v1/sessions", {
    headers: json(web.origin, approver),
    body: JSON.stringify({ projectRoot: "/tmp", harness: "x", prompt: "p" }),
  });
  assert.equal(launch.status, 403, launch.text);
  const interrupt = await web.send("POST", "/api/v1/sessions/ses_nope/interrupt", {
    headers: json(web.origin, approver),
    body: "{}",
  });
  assert.equal(interrupt.status, 404, "approve may interrupt: the session is what is missing");
  const approve = JSON.stringify({
    action: "svc.sessions.approve",
    sessionId: "s",
    requestId: "r",
    decision: "deny",
  });
  const byReader = await web.send("POST", "/api/v1/actions", {
    headers: json(web.origin, reader),
    body: approve,
  });
  assert.equal((byReader.body as { error: Json }).error.code, "AUTHORITY_REQUIRED");
  for (
    const [method, path, body] of [
      ["POST", "/api/v1/devices/pairing-codes", "{}"],
      ["GET", "/api/v1/devices", undefined],
      ["POST", "/api/v1/devices/revoke", '{"all":true}'],
      ["POST", "/api/v1/shutdown", "{}"],
    ] as const
  ) {
    const answer = await web.send(method, path, { headers: json(web.origin, approver), body });
    assert.equal(answer.status, 403, `${method} ${path}`);
    const anonymous = await web.send(method, path, {
      headers: { origin: web.origin, "content-type": "application/json" },
      body,
    });
    assert.equal(anonymous.status, 403, `pairing refused over TCP: ${method} ${path}`);
  }
  const rules = await web.send("POST", "/api/v1/actions", {
    headers: json(web.origin, approver),
    body: JSON.stringify({ action: "svc.approvals.rules.add", decision: "allow", tool: "Bash" }),
  });
  assert.equal(rules.status, 403);
});

Deno.test("revoking a device ends its open stream within 1 s; its next request is 401 device_revoked", async () => {
  await using web = await webDaemon();
  const token = await web.pair("read");
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: web.port });
  try {
    await conn.write(new TextEncoder().encode(
      `GET /api/v1/stream HTTP/1.1\r\nHost: ${web.host}\r\nCookie: svc_device=${token}\r\n\r\n`,
    ));
    const buffer = new Uint8Array(65536);
    const head = new TextDecoder().decode(buffer.subarray(0, (await conn.read(buffer))!));
    assert.match(head, /^HTTP\/1\.1 200 /);
    assert.match(head, /text\/event-stream/);
    const deviceId = (await web.t.client.get<{ devices: Json[] }>("/devices")).body.devices[0].id;
    const revokedAt = Date.now();
    const revoked = await web.t.client.post<Json>("/devices/revoke", { id: deviceId });
    assert.deepEqual(revoked.body, { revoked: [deviceId] });
    let tail = "";
    for (;;) {
      const read = await conn.read(buffer);
      if (read === null) break;
      tail += new TextDecoder().decode(buffer.subarray(0, read));
      if (tail.endsWith("0\r\n\r\n")) break;
    }
    assert.ok(Date.now() - revokedAt < 1000, `stream ended after ${Date.now() - revokedAt} ms`);
  } finally {
    conn.close();
  }
  const next = await web.send("GET", "/api/v1/sessions", {
    headers: { cookie: `svc_device=${token}` },
  });
  assert.equal(next.status, 401);
  assert.equal((next.body as { error: Json }).error.code, "device_revoked");
});

Deno.test("the token and the code are in neither svc.db nor the daemon log", async () => {
  await using web = await webDaemon();
  const made = await web.t.client.post<Json>("/devices/pairing-codes", { scope: "read" });
  const answer = await web.send("POST", "/api/v1/devices/pair", {
    headers: { origin: web.origin, "content-type": "application/json" },
    body: JSON.stringify({ code: made.body.code }),
  });
  const token = /svc_device=([^;]+)/.exec(answer.headers.get("set-cookie")!)![1];
  await web.send("GET", "/api/v1/sessions", { headers: { cookie: `svc_device=${token}` } });
  await web.send("GET", "/api/v1/sessions", { headers: { cookie: "svc_device=not-a-token" } });
  const paths = web.t.daemon.paths;
  const files = [paths.db, `${paths.db}-wal`, paths.logFile];
  for (const file of files) {
    const text = new TextDecoder("latin1").decode(
      await Deno.readFile(file).catch(() => new Uint8Array()),
    );
    assert.ok(!text.includes(token), `token in ${file}`);
    assert.ok(!text.includes(made.body.code as string), `code in ${file}`);
  }
  const log = await Deno.readTextFile(paths.logFile);
  assert.match(log, /Device paired/);
  assert.match(log, /A device credential was refused/);
});

Deno.test("a web.origins Host without a device gets only the app's files and the pairing exchange", async () => {
  await using web = await webDaemon({ web: { origins: ["https://box.test"] } });
  const read = await web.send("GET", "/api/v1/health", { host: "box.test" });
  assert.equal(read.status, 401);
  assert.equal((read.body as { error: Json }).error.code, "not_paired");
  const page = await web.send("GET", "/", { host: "box.test" });
  assert.equal(page.status, 200);
  assert.match(page.headers.get("content-type")!, /^text\/html/);
  assert.match(page.headers.get("content-security-policy")!, /default-src 'self'/);
  assert.equal(page.headers.get("x-content-type-options"), "nosniff");
  const made = await web.t.client.post<Json>("/devices/pairing-codes", { scope: "read" });
  assert.deepEqual(made.body.urls, [
    `${web.origin}/pair#${made.body.code}`,
    `https://box.test/pair#${made.body.code}`,
  ]);
  const paired = await web.send("POST", "/api/v1/devices/pair", {
    host: "box.test",
    headers: { origin: "https://box.test", "content-type": "application/json" },
    body: JSON.stringify({ code: made.body.code }),
  });
  assert.equal(paired.status, 200, paired.text);
  assert.match(paired.headers.get("set-cookie")!, /; Secure$/);
  const token = /svc_device=([^;]+)/.exec(paired.headers.get("set-cookie")!)![1];
  const withDevice = await web.send("GET", "/api/v1/health", {
    host: "box.test",
    headers: { cookie: `svc_device=${token}` },
  });
  assert.equal(withDevice.status, 200);
  // On the loopback names an unpaired peer keeps D23's redacted reads.
  assert.equal((await web.send("GET", "/api/v1/health")).status, 200);
});

Deno.test("a decision made from a device names it in the event and the approvals log", async () => {
  const project = await Deno.realPath(await tempHome());
  try {
    await using web = await webDaemon(agentConfig());
    const token = await web.pair("approve");
    const id = await launchAgent(web.t, project, { approvals: "ask" });
    const [request] = await waitForKind(web.t, id, "agent.permission");
    const answer = await web.send("POST", "/api/v1/actions", {
      headers: json(web.origin, token),
      body: JSON.stringify({
        action: "svc.sessions.approve",
        sessionId: id,
        requestId: request.requestId,
        decision: "allow",
      }),
    });
    assert.equal(answer.status, 200, answer.text);
    const [resolved] = await waitForKind(web.t, id, "agent.permission.resolved");
    const deviceId = (await web.t.client.get<{ devices: Json[] }>("/devices")).body.devices[0].id;
    assert.deepEqual(resolved.device, { id: deviceId, name: "approve" });
    assert.equal(resolved.by, "owner");
    const log = await web.t.client.get<{ entries: Json[] }>("/approvals/log");
    assert.deepEqual(log.body.entries[0].device, { id: deviceId, name: "approve" });
  } finally {
    await removeTree(project);
  }
});
