import assert from "node:assert/strict";
import { codeOf } from "../helpers/service_error.ts";
import { openDatabase } from "../../src/store/db.ts";
import { DevicesStore } from "../../src/store/devices_store.ts";
import { Devices } from "../../src/web/devices.ts";
import type { Logger } from "../../src/log.ts";
import { FakeClock } from "../fakes/clock.ts";

const DAY = 86_400_000;

function rig() {
  const db = openDatabase(":memory:");
  const clock = new FakeClock(Date.parse("2026-03-01T00:00:00Z"));
  const lines: string[] = [];
  const record = (message: string, fields?: Record<string, unknown>) =>
    lines.push(`${message} ${JSON.stringify(fields ?? {})}`);
  const log: Logger = { info: record, warn: record, error: record };
  const devices = new Devices({ store: new DevicesStore(db), clock, log });
  return { db, clock, lines, devices, [Symbol.dispose]: () => db.close() };
}

Deno.test("Devices.pair() takes a code once, within 5 minutes", async (t) => {
  using r = rig();
  await t.step("once", () => {
    const { code } = r.devices.createCode("phone", { scope: "approve" });
    assert.ok(code.length >= 22, "128 random bits or more");
    const { device, token } = r.devices.pair(code, "127.0.0.1");
    assert.deepEqual(device.scopes, ["read", "approve"]);
    assert.ok(token.length >= 43, "256 random bits or more");
    assert.equal(codeOf(() => r.devices.pair(code, "127.0.0.1")), "401 pairing_refused");
  });
  await t.step("not after 5 minutes", async () => {
    const { code, expiresAt } = r.devices.createCode("laptop", { scope: "read" });
    assert.equal(Date.parse(expiresAt) - r.clock.now(), 5 * 60_000);
    await r.clock.advance(5 * 60_000);
    assert.equal(codeOf(() => r.devices.pair(code, "127.0.0.1")), "401 pairing_refused");
  });
});

Deno.test("Devices.pair(): five wrong codes from one peer in a minute void every open code", async () => {
  using r = rig();
  const { code } = r.devices.createCode("phone", { scope: "read" });
  for (let i = 0; i < 4; i++) assert.throws(() => r.devices.pair("wrong", "127.0.0.9"));
  assert.throws(() => r.devices.pair("wrong", "127.0.0.9"));
  assert.equal(codeOf(() => r.devices.pair(code, "127.0.0.1")), "401 pairing_refused");
  assert.ok(r.lines.some((line) => line.startsWith("Open pairing codes were voided")));
  // Failures further apart than a minute do not add up.
  const next = r.devices.createCode("phone", { scope: "read" });
  for (let i = 0; i < 4; i++) {
    assert.throws(() => r.devices.pair("wrong", "127.0.0.9"));
    await r.clock.advance(20_000);
  }
  assert.throws(() => r.devices.pair("wrong", "127.0.0.9"));
  assert.equal(r.devices.pair(next.code, "127.0.0.1").device.name, "phone");
});

Deno.test("Devices.credential(): unused 30 days or 90 days after pairing, a token is no credential", async () => {
  using r = rig();
  const paired = r.devices.pair(r.devices.createCode("p", { scope: "read" }).code, "127.0.0.1");
  assert.equal(r.devices.credential(paired.token, "127.0.0.1").kind, "device");
  assert.equal(r.devices.credential("unknown", "127.0.0.1").kind, "none");
  // Used every 29 days, it lives until 90 days after pairing.
  for (let day = 29; day < 90; day += 29) {
    await r.clock.advance(29 * DAY);
    assert.equal(r.devices.credential(paired.token, "127.0.0.1").kind, "device", `day ${day}`);
  }
  await r.clock.advance(4 * DAY);
  assert.equal(r.devices.credential(paired.token, "127.0.0.1").kind, "none");
  const idle = r.devices.pair(r.devices.createCode("q", { scope: "read" }).code, "127.0.0.1");
  await r.clock.advance(30 * DAY);
  assert.equal(r.devices.credential(idle.token, "127.0.0.1").kind, "none");
  assert.deepEqual(r.devices.list(), []);
});

Deno.test("Devices.revoke() refuses the token, aborts its signal, and logs neither token nor code", () => {
  using r = rig();
  const { code } = r.devices.createCode("phone", { scope: "operate" });
  const { device, token } = r.devices.pair(code, "127.0.0.1");
  const signal = r.devices.signal(device.id);
  assert.equal(codeOf(() => r.devices.revoke(["dev_nope"])), "404 device_not_found");
  assert.deepEqual(r.devices.revoke([device.id]), [device.id]);
  assert.ok(signal.aborted);
  assert.deepEqual(r.devices.credential(token, "127.0.0.1"), {
    kind: "revoked",
    deviceId: device.id,
  });
  assert.deepEqual(r.devices.revoke(null), []);
  const stored = JSON.stringify(r.db.prepare("SELECT * FROM devices").all());
  assert.ok(!stored.includes(token), "only a hash is stored");
  const logged = r.lines.join("\n");
  assert.ok(!logged.includes(token) && !logged.includes(code), logged);
  assert.match(logged, /Device paired/);
  assert.match(logged, /Device revoked/);
  assert.match(logged, /A device credential was refused \{"reason":"revoked"/);
});
