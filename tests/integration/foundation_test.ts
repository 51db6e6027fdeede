/**
 * The foundation end to end through the real socket and TCP listener
 * (issue 2): modes, handshake shapes, policy refusals, restricted launch.
 */
import assert from "node:assert/strict";
import { freePort, startTestDaemon } from "../helpers/daemon.ts";
import { httpRequest, rawHttp } from "../helpers/http.ts";
import { systemProber } from "../../src/sessions/harness_probe.ts";

Deno.test("serve makes the home 0700 and the socket 0600 (D2)", async () => {
  await using t = await startTestDaemon();
  assert.equal((await Deno.stat(t.home)).mode! & 0o777, 0o700);
  const socket = await Deno.lstat(t.socket);
  assert.ok(socket.isSocket);
  assert.equal(socket.mode! & 0o777, 0o600);
  assert.equal((await Deno.stat(`${t.home}/svc.db`)).mode! & 0o777, 0o600);
  assert.equal((await Deno.stat(`${t.home}/logs/daemon.log`)).mode! & 0o777, 0o600);
});

Deno.test("health, capabilities, api-version and session-policy over the socket (C2.5, D5, D11)", async () => {
  await using t = await startTestDaemon();
  const health = await t.client.get<Record<string, unknown>>("/health");
  assert.equal(health.status, 200);
  const body = health.body;
  assert.equal(body.ok, true);
  assert.equal(body.apiVersion, "svc.daemon.v1");
  assert.equal(typeof body.svcVersion, "string");
  assert.deepEqual(body.sessionPolicyContracts, ["svc.session-policy.v1"]);
  assert.equal(body.pid, Deno.pid);
  assert.equal(typeof body.uptime, "number");
  assert.match(body.startedAt as string, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.equal(body.instanceId, t.daemon.instanceId);
  assert.deepEqual(body.endpoint, { transport: "unix", path: t.socket });
  assert.equal(body.tcp, null);

  const caps = await t.client.get<{ capabilities: Array<Record<string, unknown>> }>(
    "/capabilities",
  );
  const ids = caps.body.capabilities.map((c) => c.id);
  for (
    const id of [
      "svc.capabilities",
      "svc.sessions",
      "svc.automations",
      "svc.harness.claude",
      "svc.harness.codex",
      "svc.harness.gemini",
      "svc.harness.opencode",
    ]
  ) {
    assert.ok(ids.includes(id), id);
  }
  const automations = caps.body.capabilities.find((c) => c.id === "svc.automations")!;
  assert.equal(automations.owner, "scheduler");
  assert.equal(automations.policy, "approval-required");
  // The ten of C4.1, then worktrees, prune, inbox, result (D20, D21), overview (D25), and pause
  // and activate (a paired device's routine pause, D30).
  assert.equal((automations.actions as string[]).length, 17);
  assert.ok((automations.actions as string[]).includes("svc.automations.pause"));
  assert.ok((automations.actions as string[]).includes("svc.automations.activate"));
  const claude = caps.body.capabilities.find((c) => c.id === "svc.harness.claude")!;
  assert.equal(claude.status, "disabled");
  assert.equal(claude.owner, "claude");

  assert.deepEqual((await t.client.get("/api-version")).body, { version: "v1" });
  assert.deepEqual((await t.client.get("/session-policy")).body, {
    contract: "svc.session-policy.v1",
    enforcement: "unavailable",
    supportedProfiles: [],
  });
});

Deno.test("a configured harness is enabled when its program exists (D3)", async () => {
  await using t = await startTestDaemon({
    prober: systemProber(),
    configJson: { harnesses: { echo: { command: ["/bin/cat"], prompt: "stdin", label: "Echo" } } },
  });
  const caps = await t.client.get<{ capabilities: Array<Record<string, unknown>> }>(
    "/capabilities",
  );
  const echo = caps.body.capabilities.find((c) => c.id === "svc.harness.echo")!;
  assert.deepEqual(
    { status: echo.status, owner: echo.owner, label: echo.label },
    { status: "enabled", owner: "echo", label: "Echo" },
  );
});

const validRestricted = () => ({
  profile: "read-only",
  harness: "claude",
  cwd: "/tmp",
  policyDigest: "sha256:" + "a".repeat(64),
  expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
});

Deno.test("restricted launch is refused locally and forbidden over TCP (C4.4, D11)", async () => {
  const port = freePort();
  await using t = await startTestDaemon({ tcp: { hostname: "127.0.0.1", port } });
  const refused = await t.client.post("/sessions/restricted", validRestricted());
  assert.equal(refused.status, 409);
  assert.deepEqual(refused.body, {
    decision: "rejected",
    code: "enforcement_unavailable",
    admission: "not_started",
  });

  const expired = await t.client.post("/sessions/restricted", {
    ...validRestricted(),
    expiresAt: "2020-01-01T00:00:00.000Z",
  });
  assert.equal(expired.status, 409);
  assert.equal((expired.body as { error: { code: string } }).error.code, "session_policy_expired");

  const invalid = await t.client.post("/sessions/restricted", { ...validRestricted(), extra: 1 });
  assert.equal(invalid.status, 400);
  assert.equal(
    (invalid.body as { error: { code: string; details: { field: string } } }).error.details.field,
    "extra",
  );

  const badDigest = await t.client.post("/sessions/restricted", {
    ...validRestricted(),
    policyDigest: "md5:x",
  });
  assert.equal(badDigest.status, 400);

  // Over TCP: 403 before validation, even for an invalid body.
  const tcp = await rawHttp(
    { hostname: "127.0.0.1", port },
    httpRequest("POST", "/api/v1/sessions/restricted", {
      host: `127.0.0.1:${port}`,
      headers: { "content-type": "application/json" },
      body: "{}",
    }),
  );
  assert.equal(tcp.status, 403);
  assert.equal((tcp.body as { error: { code: string } }).error.code, "forbidden");
});

Deno.test("TCP health lists no session-policy contract and reports the listener (C2.5)", async () => {
  const port = freePort();
  await using t = await startTestDaemon({ tcp: { hostname: "127.0.0.1", port } });
  const tcp = await rawHttp(
    { hostname: "127.0.0.1", port },
    httpRequest("GET", "/api/v1/health", { host: `127.0.0.1:${port}` }),
  );
  assert.equal(tcp.status, 200);
  const body = tcp.body as Record<string, unknown>;
  assert.deepEqual(body.sessionPolicyContracts, []);
  assert.equal(body.tcp, `127.0.0.1:${port}`);
  assert.equal(tcp.headers.get("svc-instance"), t.daemon.instanceId);
});

Deno.test("TCP refuses a foreign Host, a foreign Origin (D14)", async () => {
  const port = freePort();
  await using _t = await startTestDaemon({ tcp: { hostname: "127.0.0.1", port } });
  const addr = { hostname: "127.0.0.1", port };
  const evil = await rawHttp(addr, httpRequest("GET", "/api/v1/health", { host: "evil.example" }));
  assert.equal(evil.status, 403);
  assert.equal((evil.body as { error: { code: string } }).error.code, "forbidden");
  const evilPort = await rawHttp(
    addr,
    httpRequest("GET", "/api/v1/health", { host: `evil.example:${port}` }),
  );
  assert.equal(evilPort.status, 403);
  const origin = await rawHttp(
    addr,
    httpRequest("GET", "/api/v1/health", {
      host: `127.0.0.1:${port}`,
      headers: { origin: "https://evil.example" },
    }),
  );
  assert.equal(origin.status, 403);
  const sameOrigin = await rawHttp(
    addr,
    httpRequest("GET", "/api/v1/health", {
      host: `127.0.0.1:${port}`,
      headers: { origin: `http://127.0.0.1:${port}` },
    }),
  );
  assert.equal(sameOrigin.status, 200);
});

Deno.test("text/plain bodies get 415 and 2 MiB bodies 413 (D6, D14)", async () => {
  await using t = await startTestDaemon();
  const local415 = await rawHttp(
    { transport: "unix", path: t.socket },
    httpRequest("POST", "/api/v1/sessions/restricted", {
      headers: { "content-type": "text/plain" },
      body: "{}",
    }),
  );
  assert.equal(local415.status, 415);
  assert.equal((local415.body as { error: { code: string } }).error.code, "unsupported_media_type");
  const local413 = await rawHttp(
    { transport: "unix", path: t.socket },
    httpRequest("POST", "/api/v1/sessions/restricted", {
      headers: { "content-type": "application/json" },
      body: "x".repeat(2 * 1024 * 1024),
    }),
  );
  assert.equal(local413.status, 413);
  assert.equal((local413.body as { error: { code: string } }).error.code, "payload_too_large");
});

Deno.test("unknown routes get 404 not_found and wrong methods 405 (D6)", async () => {
  await using t = await startTestDaemon();
  const missing = await t.client.get<{ error: { code: string } }>("/nope");
  assert.equal(missing.status, 404);
  assert.equal(missing.body.error.code, "not_found");
  const outside = await rawHttp(
    { transport: "unix", path: t.socket },
    httpRequest("GET", "/health"),
  );
  assert.equal(outside.status, 404);
  const wrong = await rawHttp(
    { transport: "unix", path: t.socket },
    httpRequest("DELETE", "/api/v1/health"),
  );
  assert.equal(wrong.status, 405);
  assert.equal((wrong.body as { error: { code: string } }).error.code, "method_not_allowed");
});

Deno.test("GET /openapi.json is served locally and over TCP (issue 5)", async () => {
  const port = freePort();
  await using t = await startTestDaemon({ tcp: { hostname: "127.0.0.1", port } });
  const local = await t.client.get<{ openapi: string; paths: Record<string, unknown> }>(
    "/openapi.json",
  );
  assert.equal(local.body.openapi, "3.1.0");
  assert.ok("/api/v1/sessions/{id}/events" in local.body.paths);
  const tcp = await rawHttp(
    { hostname: "127.0.0.1", port },
    httpRequest("GET", "/api/v1/openapi.json", { host: `127.0.0.1:${port}` }),
  );
  assert.equal(tcp.status, 200);
});
