import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { hexLines } from "../../scripts/bench/data.ts";
import { RAW_FILE_READ_BYTES, rawFileStorage } from "../../scripts/bench/raw_insert.ts";
import { removeTree, tempHome } from "../helpers/home.ts";

Deno.test("hexLines() is `xxd -p` output: 60 hex digits a line, the same for the same seed (issue 26)", () => {
  const data = hexLines(10_001, 3);
  const text = new TextDecoder().decode(data);
  const lines = text.split("\n");
  assert.equal(lines.pop(), "", "ends with a newline");
  assert.ok(lines.slice(0, -1).every((line) => /^[0-9a-f]{60}$/.test(line)));
  assert.match(lines.at(-1)!, /^[0-9a-f]{2,60}$/);
  assert.equal(lines.join("").length, 10_000, "two digits per source byte");
  assert.deepEqual(hexLines(10_001, 3), data);
  assert.notDeepEqual(hexLines(10_001, 4), data);
});

Deno.test("rawFileStorage() stores the file's bytes, in order, a read per row (issue 26's baseline)", async () => {
  const home = await tempHome();
  try {
    const file = join(home, "out.txt");
    const data = hexLines(RAW_FILE_READ_BYTES * 2 + 1000, 5);
    await Deno.writeFile(file, data);
    const dbPath = join(home, "raw.db");
    const { rows, seconds } = rawFileStorage(dbPath, file);
    assert.equal(rows, 3);
    assert.ok(seconds > 0);
    const db = new DatabaseSync(dbPath);
    try {
      const stored = db.prepare("SELECT payload FROM events ORDER BY seq").all()
        .map((row) => row.payload as Uint8Array);
      const joined = new Uint8Array(stored.reduce((sum, part) => sum + part.length, 0));
      stored.reduce((offset, part) => (joined.set(part, offset), offset + part.length), 0);
      assert.deepEqual(joined, data);
    } finally {
      db.close();
    }
  } finally {
    await removeTree(home);
  }
});
