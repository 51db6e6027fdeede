import assert from "node:assert/strict";
import { codeOf } from "../helpers/service_error.ts";
import {
  checkActionAuthority,
  checkTcpHeaders,
  mayStartPrograms,
  requireOwner,
} from "../../src/policy/access.ts";
import { PIPE_PEER, tcpPeer, UNIX_PEER } from "../../src/policy/peer.ts";

const TCP = tcpPeer("127.0.0.1", 3000);

/** A request as the server sees it: origin-form targets take their URL from Host. */
function request(headers: Record<string, string>, target?: string): Request {
  let url = target ?? "http://127.0.0.1:3000/api/v1/health";
  if (target === undefined && headers.host && URL.canParse(`http://${headers.host}/`)) {
    url = `http://${headers.host}/api/v1/health`;
  }
  const req = new Request(url);
  // Request normalises Host away, so set it the way a server sees it.
  for (const [name, value] of Object.entries(headers)) req.headers.set(name, value);
  return req;
}

Deno.test("checkTcpHeaders() decides Host and Origin per D14", async (t) => {
  const cases: Array<[string, Record<string, string>, string | null]> = [
    ["loopback host with the port", { host: "127.0.0.1:3000" }, null],
    ["localhost with the port", { host: "localhost:3000" }, null],
    ["another 127/8 address", { host: "127.1.2.3:3000" }, null],
    ["a foreign name (DNS rebinding)", { host: "evil.example:3000" }, "403 forbidden"],
    ["a foreign name without a port", { host: "evil.example" }, "403 forbidden"],
    ["loopback without a port", { host: "127.0.0.1" }, "403 forbidden"],
    ["another port", { host: "127.0.0.1:3001" }, "403 forbidden"],
    ["same origin", { host: "127.0.0.1:3000", origin: "http://127.0.0.1:3000" }, null],
    ["foreign origin", { host: "127.0.0.1:3000", origin: "https://evil.example" }, "403 forbidden"],
    ["null origin", { host: "127.0.0.1:3000", origin: "null" }, "403 forbidden"],
  ];
  for (const [name, headers, expected] of cases) {
    await t.step(
      name,
      () => assert.equal(codeOf(() => checkTcpHeaders(request(headers), TCP)), expected),
    );
  }
});

Deno.test("checkTcpHeaders() refuses an absolute-form target naming another host (D23)", () => {
  const host = { host: "127.0.0.1:3000" };
  assert.equal(
    codeOf(() => checkTcpHeaders(request(host, "http://evil.example/x"), TCP)),
    "403 forbidden",
  );
  assert.equal(
    codeOf(() => checkTcpHeaders(request(host, "http://127.0.0.1:3001/x"), TCP)),
    "403 forbidden",
  );
  assert.equal(codeOf(() => checkTcpHeaders(request(host, "http://127.0.0.1:3000/x"), TCP)), null);
});

Deno.test("checkTcpHeaders() ignores the local socket", () => {
  assert.equal(codeOf(() => checkTcpHeaders(request({ host: "evil.example" }), UNIX_PEER)), null);
});

Deno.test("requireOwner() refuses TCP with 403 forbidden", () => {
  assert.equal(codeOf(() => requireOwner(TCP, "Restricted launch")), "403 forbidden");
  assert.equal(codeOf(() => requireOwner(UNIX_PEER, "Restricted launch")), null);
});

Deno.test("mayStartPrograms() lets the owner's socket start programs, never TCP (D23)", () => {
  assert.equal(mayStartPrograms(UNIX_PEER), true);
  assert.equal(mayStartPrograms(PIPE_PEER), true);
  assert.equal(mayStartPrograms(TCP), false);
});

Deno.test("checkActionAuthority() allows only diagnostics over TCP (C4.1 rule 3, D10)", async (t) => {
  const cases: Array<[string, string | null]> = [
    ["svc.automations.health", null],
    ["svc.automations.runs", null],
    ["svc.automations.create", "403 AUTHORITY_REQUIRED"],
    ["svc.automations.tick", "403 AUTHORITY_REQUIRED"],
    // D30: a paired device may pause and activate; a TCP peer without one may not.
    ["svc.automations.pause", "403 AUTHORITY_REQUIRED"],
    ["svc.automations.activate", "403 AUTHORITY_REQUIRED"],
    ["svc.automations.x", "403 AUTHORITY_REQUIRED"],
    ["svc.capabilities.refresh", null],
    ["anything.else", null],
  ];
  for (const [action, expected] of cases) {
    await t.step(action, () => {
      assert.equal(codeOf(() => checkActionAuthority(TCP, action)), expected);
      assert.equal(codeOf(() => checkActionAuthority(UNIX_PEER, action)), null);
    });
  }
});
