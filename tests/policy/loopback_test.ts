import assert from "node:assert/strict";
import { isLoopbackHost, splitHostPort } from "../../src/policy/loopback.ts";

Deno.test("isLoopbackHost() accepts only loopback names", async (t) => {
  const cases: Array<[string, boolean]> = [
    ["127.0.0.1", true],
    ["127.255.255.254", true],
    ["localhost", true],
    ["LOCALHOST", true],
    ["::1", true],
    ["[::1]", true],
    ["0.0.0.0", false],
    ["128.0.0.1", false],
    ["127.0.0.256", false],
    ["192.168.1.1", false],
    ["evil.example", false],
    ["localhost.evil.example", false],
    ["::", false],
    ["", false],
  ];
  for (const [host, expected] of cases) {
    await t.step(host || "(empty)", () => assert.equal(isLoopbackHost(host), expected));
  }
});

Deno.test("splitHostPort() parses host:port and [v6]:port", () => {
  assert.deepEqual(splitHostPort("127.0.0.1:3000"), { hostname: "127.0.0.1", port: 3000 });
  assert.deepEqual(splitHostPort("[::1]:80"), { hostname: "::1", port: 80 });
  assert.equal(splitHostPort("127.0.0.1"), null);
  assert.equal(splitHostPort("127.0.0.1:0"), null);
  assert.equal(splitHostPort("127.0.0.1:70000"), null);
  assert.equal(splitHostPort("::1:80"), null);
});
