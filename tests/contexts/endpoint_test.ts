import assert from "node:assert/strict";
import { ConfigError } from "../../src/config/config_error.ts";
import { formatContextEndpoint, parseContextEndpoint } from "../../src/contexts/endpoint.ts";

Deno.test("parseContextEndpoint() reads ssh:// and unix:// URLs", async (t) => {
  const cases: Array<[string, unknown]> = [
    ["ssh://box", { kind: "ssh", user: null, host: "box", port: null, home: null, svc: "svc" }],
    [
      "ssh://me@box:2222?home=%2Fsrv%2Fsvc%20home",
      { kind: "ssh", user: "me", host: "box", port: 2222, home: "/srv/svc home", svc: "svc" },
    ],
    [
      "ssh://box/?svc=%2Fopt%2Fsvc%2Fbin%2Fsvc&home=a+b",
      { kind: "ssh", user: null, host: "box", port: null, home: "a+b", svc: "/opt/svc/bin/svc" },
    ],
    ["ssh://[::1]:22", { kind: "ssh", user: null, host: "::1", port: 22, home: null, svc: "svc" }],
    ["unix:///tmp/a%20b/svc.sock", { kind: "unix", path: "/tmp/a b/svc.sock" }],
  ];
  for (const [text, expected] of cases) {
    await t.step(text, () => assert.deepEqual(parseContextEndpoint(text), expected));
  }
});

Deno.test("parseContextEndpoint() refuses what is not a context URL, saying why", async (t) => {
  const cases: Array<[string, RegExp]> = [
    ["box", /not a URL/],
    ["http://box", /neither ssh: nor unix:/],
    ["ssh://", /names no host/],
    ["ssh://-oProxyCommand=x", /starts with "-"/],
    ["ssh://me:secret@box", /never keeps a password/],
    ["ssh://box/srv/svc", /has no path/],
    ["ssh://box?port=2", /unknown \?port=/],
    ["ssh://box?home=a&home=b", /given twice/],
    ["ssh://box?home=", /is empty/],
    ["ssh://box?home=%zz", /percent-encoded/],
    ["ssh://box#x", /fragment/],
    ["unix://host/tmp/s.sock", /no host/],
    ["unix:///", /no socket path/],
  ];
  for (const [text, why] of cases) {
    await t.step(text, () => {
      assert.throws(() => parseContextEndpoint(text), (error: Error) => {
        assert.ok(error instanceof ConfigError);
        assert.match(error.message, why);
        return true;
      });
    });
  }
});

Deno.test("formatContextEndpoint() writes a URL that parses back to the same endpoint", () => {
  for (
    const text of [
      "ssh://box",
      "ssh://me@box:2222?home=%2Fsrv%2Fsvc%20home&svc=%2Fopt%2Fsvc",
      "ssh://[::1]:22",
      "unix:///tmp/a%20b/svc.sock",
    ]
  ) {
    const endpoint = parseContextEndpoint(text);
    assert.equal(formatContextEndpoint(endpoint), text);
    assert.deepEqual(parseContextEndpoint(formatContextEndpoint(endpoint)), endpoint);
  }
});
