import assert from "node:assert/strict";
import { join } from "node:path";
import {
  instant,
  jsonObjects,
  latestMessages,
  MAX_IMPORTED_MESSAGES,
  MAX_MESSAGE_BYTES,
  MAX_TITLE_BYTES,
  messageText,
  readBounded,
  titleText,
} from "../../../src/sessions/adoption/agent_store.ts";
import { removeTree, tempHome } from "../../helpers/home.ts";

Deno.test("readBounded() reads at most maxBytes, from the start or the end", async () => {
  const dir = await tempHome();
  try {
    const path = join(dir, "t.jsonl");
    await Deno.writeTextFile(path, "0123456789");
    assert.deepEqual(await readBounded(path, 4), { text: "0123", cut: true });
    assert.deepEqual(await readBounded(path, 4, { fromEnd: true }), { text: "6789", cut: true });
    assert.deepEqual(await readBounded(path, 100), { text: "0123456789", cut: false });
    assert.equal(await readBounded(join(dir, "missing"), 4), null);
    assert.equal(await readBounded(dir, 4), null, "a directory is not a transcript");
    await Deno.writeFile(path, new Uint8Array([0x68, 0xff, 0x69]));
    assert.equal((await readBounded(path, 10))!.text, "h\ufffdi", "bad UTF-8 is replaced");
  } finally {
    await removeTree(dir);
  }
});

Deno.test("jsonObjects() keeps whole JSON object lines and skips the rest", () => {
  const text = 'cut tail"}\n{"a":1}\n[1,2]\nnull\n{"b":\n{"c":{"d":2}}\n{"e"';
  assert.deepEqual(jsonObjects(text), [{ a: 1 }, { c: { d: 2 } }]);
});

Deno.test("titleText() and messageText() redact and cut; latestMessages() keeps the last", () => {
  assert.equal(titleText("  fix\n\tthe   bug "), "fix the bug");
  assert.ok(new TextEncoder().encode(titleText("é".repeat(500))).length <= MAX_TITLE_BYTES);
  assert.ok(!titleText("key sk-ant-api03-" + "a".repeat(90)).includes("a".repeat(90)));
  assert.ok(new TextEncoder().encode(messageText("x".repeat(100_000))).length <= MAX_MESSAGE_BYTES);
  const many = Array.from({ length: MAX_IMPORTED_MESSAGES + 5 }, (_, i) => ({
    role: "user" as const,
    text: i === 0 ? " " : `m${i}`,
    at: null,
  }));
  const kept = latestMessages(many);
  assert.equal(kept.length, MAX_IMPORTED_MESSAGES);
  assert.equal(kept.at(-1)!.text, `m${MAX_IMPORTED_MESSAGES + 4}`);
});

Deno.test("instant() takes ISO text or epoch ms, else null", () => {
  assert.equal(instant(0), null);
  assert.equal(instant(1795871645423), "2026-11-28T13:14:05.423Z");
  assert.equal(instant("2026-11-28T13:14:05Z"), "2026-11-28T13:14:05.000Z");
  assert.equal(instant("yesterday"), null);
  assert.equal(instant({}), null);
});

Deno.test("readBounded() never opens a FIFO or follows a symlink (it would block or leave the store)", async () => {
  const dir = await tempHome();
  try {
    const fifo = join(dir, "fifo.jsonl");
    const made = await new Deno.Command("mkfifo", { args: [fifo] }).output();
    assert.equal(made.code, 0);
    assert.equal(await readBounded(fifo, 10), null);
    await Deno.writeTextFile(join(dir, "real"), "secret");
    await Deno.symlink(join(dir, "real"), join(dir, "link.jsonl"));
    assert.equal(await readBounded(join(dir, "link.jsonl"), 10), null);
  } finally {
    await removeTree(dir);
  }
});
