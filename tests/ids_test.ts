import assert from "node:assert/strict";
import { newId, ulid } from "../src/ids.ts";

// ulid() keeps module state (the last time and random part), so each test
// uses its own time range, later than the tests before it in this file.

const CROCKFORD = /^[0-9ABCDEFGHJKMNPQRSTVWXYZ]{26}$/;
const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

function decodeTime(id: string): number {
  let time = 0;
  for (const char of id.slice(0, 10)) time = time * 32 + ALPHABET.indexOf(char);
  return time;
}

Deno.test("ulid() is 26 characters of the Crockford alphabet encoding the time", async (t) => {
  const cases: Array<[string, number]> = [
    ["epoch", 0],
    ["a D4 example time", Date.parse("2026-11-21T22:19:00.000Z")],
    ["later still", Date.parse("2030-01-01T00:00:00.000Z")],
  ];
  for (const [name, ms] of cases) {
    await t.step(name, () => {
      const id = ulid(ms);
      assert.match(id, CROCKFORD);
      assert.equal(decodeTime(id), ms);
    });
  }
});

Deno.test("ulid() sorts by time across milliseconds", () => {
  const base = Date.parse("2031-01-01T00:00:00.000Z");
  const ids = [0, 1, 2, 1000, 60_000, 86_400_000].map((offset) => ulid(base + offset));
  assert.deepEqual([...ids].sort(), ids);
  assert.equal(new Set(ids.map((id) => id.slice(0, 10))).size, ids.length);
});

Deno.test("ulid() is monotonic within the same millisecond", async (t) => {
  const ms = Date.parse("2032-01-01T00:00:00.000Z");
  await t.step("two calls", () => {
    const first = ulid(ms);
    const second = ulid(ms);
    assert.ok(first < second, `${first} < ${second}`);
    assert.equal(first.slice(0, 10), second.slice(0, 10));
  });
  await t.step("many calls stay strictly increasing and unique", () => {
    const ids = Array.from({ length: 10_000 }, () => ulid(ms));
    for (let i = 1; i < ids.length; i++) assert.ok(ids[i - 1] < ids[i], `at ${i}`);
    for (const id of ids) {
      assert.match(id, CROCKFORD);
      assert.equal(decodeTime(id), ms);
    }
  });
});

Deno.test("ulid() keeps increasing when the clock steps back", () => {
  const ms = Date.parse("2033-01-01T00:00:00.000Z");
  const first = ulid(ms);
  const second = ulid(ms - 5_000);
  assert.ok(first < second, `${first} < ${second}`);
  assert.equal(decodeTime(second), ms);
});

Deno.test("newId() prefixes a ULID with the kind", async (t) => {
  const ms = Date.parse("2034-01-01T00:00:00.000Z");
  for (const prefix of ["ses", "evt", "run"] as const) {
    await t.step(prefix, () => {
      const id = newId(prefix, ms);
      assert.match(id, new RegExp(`^${prefix}_[0-9ABCDEFGHJKMNPQRSTVWXYZ]{26}$`));
      assert.equal(decodeTime(id.slice(prefix.length + 1)), ms);
    });
  }
});
