import assert from "node:assert/strict";
import { systemRoutes } from "../../src/api/system.ts";
import { tcpPeer, UNIX_PEER } from "../../src/policy/peer.ts";
import { FakeClock } from "../fakes/clock.ts";

Deno.test("GET /health answers its live fields on every request, the contract list by transport (C2.5, D5)", async () => {
  const clock = new FakeClock(1_000_000);
  let live = 0;
  let capabilities = '[{"id":"a"}]';
  const route = systemRoutes({
    instanceId: "inst-1",
    startedAtMs: 1_000_000 - 2_500,
    clock,
    endpoint: { transport: "unix", path: "/tmp/svc.sock" },
    tcp: null,
    capabilitiesJson: () => capabilities,
    probing: () => false,
    liveSessions: () => live,
    parked: () => ({ count: 0, nextUntil: null }),
    storeState: () => "ok",
    requestShutdown: () => {},
  }).find((candidate) => candidate.path === "/health")!;
  const health = async (peer = UNIX_PEER) => {
    const req = new Request("http://localhost/api/v1/health");
    const response = await route.handler({ req, url: new URL(req.url), params: {}, peer });
    return await response.json();
  };
  const first = await health();
  assert.equal(first.uptime, 2.5);
  assert.deepEqual(first.sessionPolicyContracts, ["svc.session-policy.v1"]);
  assert.deepEqual(await health(), first, "nothing changed, the same answer");
  live = 2;
  assert.equal((await health()).liveSessions, 2, "a live field changed, the same millisecond");
  capabilities = '[{"id":"b"}]';
  assert.deepEqual((await health()).capabilities, [{ id: "b" }]);
  await clock.advance(1);
  assert.equal((await health()).uptime, 2.501);
  const overTcp = await health(tcpPeer("127.0.0.1", 7777));
  assert.deepEqual(overTcp.sessionPolicyContracts, [], "C2.5: listed over local IPC only");
  assert.deepEqual((await health()).sessionPolicyContracts, ["svc.session-policy.v1"]);
});
