import assert from "node:assert/strict";
import { ConfigError } from "../../src/config/config_error.ts";
import { formatTcpAddress, parseTcpAddress } from "../../src/transport/tcp_loopback.ts";

Deno.test("parseTcpAddress() accepts loopback ADDR:PORT", async (t) => {
  const cases: Array<[string, string, number]> = [
    ["127.0.0.1:3000", "127.0.0.1", 3000],
    ["[::1]:3000", "::1", 3000],
    ["localhost:1", "localhost", 1],
    ["127.1.2.3:65535", "127.1.2.3", 65535],
  ];
  for (const [value, hostname, port] of cases) {
    await t.step(value, () => assert.deepEqual(parseTcpAddress(value), { hostname, port }));
  }
});

Deno.test("parseTcpAddress() refuses a non-loopback address with a ConfigError", async (t) => {
  const cases = [
    "0.0.0.0:3000",
    "192.168.1.2:80",
    "evil.example:80",
    "localhost.evil.example:80",
    "128.0.0.1:80",
    "[::]:3000",
    "[fe80::1]:80",
    " 127.0.0.1:3000",
  ];
  for (const value of cases) {
    await t.step(`refuses ${value}`, () => {
      assert.throws(() => parseTcpAddress(value), (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.equal(
          error.message,
          `--tcp "${value}" is not a loopback address: use 127.0.0.0/8, ::1 or localhost`,
        );
        return true;
      });
    });
  }
});

Deno.test("parseTcpAddress() refuses a malformed address or port with a ConfigError", async (t) => {
  const cases = [
    "127.0.0.1",
    "localhost",
    "[::1]",
    "127.0.0.1:",
    "127.0.0.1:0",
    "127.0.0.1:65536",
    "127.0.0.1:123456",
    "127.0.0.1:-1",
    "127.0.0.1:http",
    "::1:3000",
    ":3000",
    "",
  ];
  for (const value of cases) {
    await t.step(`refuses ${JSON.stringify(value)}`, () => {
      assert.throws(() => parseTcpAddress(value), (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.equal(
          error.message,
          `--tcp "${value}" is not ADDR:PORT (for example 127.0.0.1:3000)`,
        );
        return true;
      });
    });
  }
});

Deno.test("formatTcpAddress() brackets IPv6 and round-trips parseTcpAddress()", async (t) => {
  const cases: Array<[string, number, string]> = [
    ["127.0.0.1", 3000, "127.0.0.1:3000"],
    ["::1", 3000, "[::1]:3000"],
    ["localhost", 1, "localhost:1"],
  ];
  for (const [hostname, port, expected] of cases) {
    await t.step(expected, () => {
      assert.equal(formatTcpAddress({ hostname, port }), expected);
      assert.deepEqual(parseTcpAddress(expected), { hostname, port });
    });
  }
});
