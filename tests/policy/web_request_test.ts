import assert from "node:assert/strict";
import {
  clientAddress,
  type CredentialState,
  deviceCookie,
  judgeTcpRequest,
} from "../../src/policy/web_request.ts";
import { tcpPeer } from "../../src/policy/peer.ts";

const WEB = {
  origins: ["https://box.tailnet.ts.net", "http://proxy.test:8080"],
  trustProxy: false,
};
const PEER = tcpPeer("127.0.0.1", 3000, { web: WEB, remote: "127.0.0.1" });
const DEVICE = { id: "dev_1", name: "phone", scope: "approve" as const };

/** Tokens the fake look-up knows. */
function credential(token: string): CredentialState {
  if (token === "good") return { kind: "device", device: DEVICE };
  if (token === "revoked") return { kind: "revoked", deviceId: "dev_2" };
  return { kind: "none" };
}

/** A request as the server builds it: the URL from Host, the headers as sent. */
function request(method: string, path: string, headers: Record<string, string>): Request {
  const host = headers.host ?? "";
  const scheme = URL.canParse(`http://${host}/`) ? `http://${host}` : "http://invalid.invalid";
  const req = new Request(scheme + path, { method });
  for (const [name, value] of Object.entries(headers)) req.headers.set(name, value);
  return req;
}

function verdict(req: Request, peer = PEER): string {
  const result = judgeTcpRequest(req, peer, credential);
  if (!result.admitted) return `${result.status} ${result.code}`;
  return `ok ${result.via.origin}${result.device ? ` ${result.device.name}` : ""}`;
}

const LOOP = "127.0.0.1:3000";
const SELF = "http://127.0.0.1:3000";
const TUNNEL = "box.tailnet.ts.net";
const cookie = (token: string) => ({ cookie: `theme=dark; svc_device=${token}` });

Deno.test("judgeTcpRequest() applies the D30 rules in order", async (t) => {
  const cases: Array<[string, Request, string]> = [
    // 1. Host first (DNS rebinding).
    ["loopback Host", request("GET", "/api/v1/health", { host: LOOP }), `ok ${SELF}`],
    ["localhost Host", request("GET", "/", { host: "localhost:3000" }), "ok http://localhost:3000"],
    ["[::1] Host", request("GET", "/", { host: "[::1]:3000" }), "ok http://[::1]:3000"],
    ["rebinding Host", request("GET", "/", { host: "evil.example:3000" }), "403 forbidden"],
    ["another port", request("GET", "/", { host: "127.0.0.1:3001" }), "403 forbidden"],
    ["no Host", request("GET", "/", {}), "403 forbidden"],
    [
      "rebinding Host with a good cookie: nothing else is looked at",
      request("POST", "/api/v1/sessions", { host: "evil.example", ...cookie("good") }),
      "403 forbidden",
    ],
    ["a web.origins Host", request("GET", "/", { host: TUNNEL }), "ok https://box.tailnet.ts.net"],
    [
      "a web.origins Host with its default port",
      request("GET", "/", { host: `${TUNNEL}:443` }),
      "ok https://box.tailnet.ts.net",
    ],
    [
      "a web.origins Host on another port",
      request("GET", "/", { host: `${TUNNEL}:444` }),
      "403 forbidden",
    ],
    [
      "an entry with a port",
      request("GET", "/", { host: "proxy.test:8080" }),
      "ok http://proxy.test:8080",
    ],
    [
      "X-Forwarded-Host is ignored without trustProxy",
      request("GET", "/", { host: "evil.example", "x-forwarded-host": TUNNEL }),
      "403 forbidden",
    ],
    // 2. Origin on credentialed mutations and the pairing exchange.
    [
      "device mutation with its own Origin",
      request("POST", "/api/v1/actions", { host: LOOP, origin: SELF, ...cookie("good") }),
      `ok ${SELF} phone`,
    ],
    [
      "device mutation without Origin (rebinding, old forms)",
      request("POST", "/api/v1/actions", { host: LOOP, ...cookie("good") }),
      "403 origin_refused",
    ],
    [
      "device mutation from another loopback port (a form POST)",
      request("POST", "/api/v1/actions", {
        host: LOOP,
        origin: "http://127.0.0.1:4000",
        "content-type": "application/x-www-form-urlencoded",
        ...cookie("good"),
      }),
      "403 origin_refused",
    ],
    [
      "device mutation with a null Origin",
      request("POST", "/api/v1/actions", { host: LOOP, origin: "null", ...cookie("good") }),
      "403 origin_refused",
    ],
    [
      "device mutation, same Origin but Sec-Fetch-Site cross-site",
      request("POST", "/api/v1/actions", {
        host: LOOP,
        origin: SELF,
        "sec-fetch-site": "same-site",
        ...cookie("good"),
      }),
      "403 origin_refused",
    ],
    [
      "device mutation with Sec-Fetch-Site same-origin",
      request("POST", "/api/v1/actions", {
        host: LOOP,
        origin: SELF,
        "sec-fetch-site": "same-origin",
        ...cookie("good"),
      }),
      `ok ${SELF} phone`,
    ],
    [
      "an unknown cookie on a mutation is held to the Origin rule too",
      request("DELETE", "/api/v1/x", { host: LOOP, ...cookie("stale") }),
      "403 origin_refused",
    ],
    [
      "pairing without Origin",
      request("POST", "/api/v1/devices/pair", { host: LOOP }),
      "403 origin_refused",
    ],
    [
      "pairing with its own Origin",
      request("POST", "/api/v1/devices/pair", { host: LOOP, origin: SELF }),
      `ok ${SELF}`,
    ],
    [
      "pairing through the tunnel with the tunnel's Origin",
      request("POST", "/api/v1/devices/pair", {
        host: TUNNEL,
        origin: "https://box.tailnet.ts.net",
      }),
      "ok https://box.tailnet.ts.net",
    ],
    [
      "tunnel Host with the loopback Origin",
      request("POST", "/api/v1/devices/pair", { host: TUNNEL, origin: SELF }),
      "403 origin_refused",
    ],
    [
      "a device GET needs no Origin",
      request("GET", "/api/v1/sessions", { host: LOOP, ...cookie("good") }),
      `ok ${SELF} phone`,
    ],
    [
      "a GET with a foreign Origin (D14)",
      request("GET", "/api/v1/sessions", { host: LOOP, origin: "http://127.0.0.1:4000" }),
      "403 forbidden",
    ],
    [
      "an anonymous mutation without Origin is left to D23",
      request("POST", "/api/v1/sessions", { host: LOOP }),
      `ok ${SELF}`,
    ],
    // 3. The credential.
    [
      "a revoked device",
      request("GET", "/api/v1/sessions", { host: LOOP, ...cookie("revoked") }),
      "401 device_revoked",
    ],
    [
      "a revoked device still gets the app's page, which says so",
      request("GET", "/", { host: LOOP, ...cookie("revoked") }),
      `ok ${SELF}`,
    ],
    [
      "an unknown token on loopback is an unpaired peer (D23)",
      request("GET", "/api/v1/sessions", { host: LOOP, ...cookie("stale") }),
      `ok ${SELF}`,
    ],
    [
      "tunnel without a device: the app's files",
      request("GET", "/assets/app.js", { host: TUNNEL }),
      "ok https://box.tailnet.ts.net",
    ],
    [
      "tunnel without a device: no anonymous reads",
      request("GET", "/api/v1/sessions", { host: TUNNEL }),
      "401 not_paired",
    ],
    [
      "tunnel with an unknown token: no anonymous reads",
      request("GET", "/api/v1/health", { host: TUNNEL, ...cookie("stale") }),
      "401 not_paired",
    ],
    [
      "tunnel with a device",
      request("GET", "/api/v1/sessions", { host: TUNNEL, ...cookie("good") }),
      "ok https://box.tailnet.ts.net phone",
    ],
  ];
  for (const [name, req, expected] of cases) {
    await t.step(name, () => assert.equal(verdict(req), expected));
  }
});

Deno.test("judgeTcpRequest() honours X-Forwarded-* only with trustProxy from loopback", async (t) => {
  const web = { ...WEB, trustProxy: true };
  const forwarded = () =>
    request("GET", "/", {
      host: LOOP,
      "x-forwarded-host": TUNNEL,
      "x-forwarded-for": "100.64.0.7, 127.0.0.1",
    });
  await t.step("trusted from a loopback peer", () => {
    const peer = tcpPeer("127.0.0.1", 3000, { web, remote: "127.0.0.1" });
    assert.equal(verdict(forwarded(), peer), "ok https://box.tailnet.ts.net");
    assert.equal(clientAddress(forwarded(), peer), "100.64.0.7");
  });
  await t.step("a forwarded Host that is not an entry is refused", () => {
    const peer = tcpPeer("127.0.0.1", 3000, { web, remote: "127.0.0.1" });
    const req = request("GET", "/", { host: LOOP, "x-forwarded-host": "evil.example" });
    assert.equal(verdict(req, peer), "403 forbidden");
  });
  await t.step("ignored without trustProxy", () => {
    assert.equal(verdict(forwarded()), `ok ${SELF}`);
    assert.equal(clientAddress(forwarded(), PEER), "127.0.0.1");
  });
  await t.step("ignored from a peer that is not loopback", () => {
    const peer = tcpPeer("127.0.0.1", 3000, { web, remote: "192.0.2.1" });
    assert.equal(verdict(forwarded(), peer), `ok ${SELF}`);
    assert.equal(clientAddress(forwarded(), peer), "192.0.2.1");
  });
});

Deno.test("deviceCookie() reads only svc_device", () => {
  assert.equal(deviceCookie(null), null);
  assert.equal(deviceCookie("a=1; svc_device=tok; b=2"), "tok");
  assert.equal(deviceCookie("xsvc_device=tok"), null);
  assert.equal(deviceCookie("svc_device="), null);
});
