import assert from "node:assert/strict";
import { createLogger, fileSink, formatLogLine } from "../src/log.ts";
import { removeTree, tempHome } from "./helpers/home.ts";

Deno.test("formatLogLine() writes time, level, message and JSON fields with error stacks", () => {
  const line = formatLogLine("T", "ERROR", "Boom", { error: new Error("bad"), n: 1 });
  assert.match(
    line,
    /^T ERROR Boom \{"error":\{"name":"Error","message":"bad","stack":"Error: bad/,
  );
  assert.equal(formatLogLine("T", "INFO", "Plain"), "T INFO Plain\n");
});

Deno.test("fileSink() rotates to .1 while writing, keeping the file 0600", async () => {
  const dir = await tempHome();
  const path = `${dir}/daemon.log`;
  const { sink, close } = fileSink(path, { rotateBytes: 1000 });
  const log = createLogger([sink], () => 0);
  for (let i = 0; i < 50; i++) log.info("x".repeat(40), { i });
  close();
  const current = await Deno.stat(path);
  const rotated = await Deno.stat(`${path}.1`);
  assert.ok(current.size <= 1100 && rotated.size > 1000);
  assert.equal(current.mode! & 0o777, 0o600);
  assert.match(await Deno.readTextFile(path), /"i":49/);
  await removeTree(dir);
});

Deno.test("fileSink() keeps keepFiles rotated files while writing: the log stays bounded", async () => {
  const dir = await tempHome();
  const path = `${dir}/daemon.log`;
  const { sink, close } = fileSink(path, { rotateBytes: 1000, keepFiles: 3 });
  const log = createLogger([sink], () => 0);
  // About 70 KiB of lines: 70 rotations at 1000 bytes.
  for (let i = 0; i < 1000; i++) log.error("Unexpected error", { i, pad: "x".repeat(40) });
  close();
  const names = [...Deno.readDirSync(dir)].map((entry) => entry.name).sort();
  assert.deepEqual(names, ["daemon.log", "daemon.log.1", "daemon.log.2", "daemon.log.3"]);
  let total = 0;
  for (const name of names) {
    const stat = await Deno.stat(`${dir}/${name}`);
    assert.equal(stat.mode! & 0o777, 0o600, name);
    assert.ok(stat.size <= 1100, `${name} is ${stat.size} bytes`);
    total += stat.size;
  }
  assert.ok(total <= 4 * 1100);
  // Oldest to newest, the kept lines are the last ones written, none lost or repeated between.
  const indexes = ["daemon.log.3", "daemon.log.2", "daemon.log.1", "daemon.log"].flatMap((name) =>
    Deno.readTextFileSync(`${dir}/${name}`).split("\n").filter((line) => line !== "")
      .map((line) => JSON.parse(line.slice(line.indexOf("{"))).i as number)
  );
  assert.equal(indexes.at(-1), 999);
  assert.deepEqual(indexes, indexes.map((_, k) => 999 - (indexes.length - 1) + k));
  await removeTree(dir);
});

Deno.test("fileSink() rotates a log already past the limit when it opens", async () => {
  const dir = await tempHome();
  const path = `${dir}/daemon.log`;
  await Deno.writeTextFile(path, "old\n".repeat(300));
  await Deno.writeTextFile(`${path}.1`, "older\n");
  const { sink, close } = fileSink(path, { rotateBytes: 1000, keepFiles: 2 });
  sink("new\n");
  close();
  assert.equal(await Deno.readTextFile(path), "new\n");
  assert.equal(await Deno.readTextFile(`${path}.1`), "old\n".repeat(300));
  assert.equal(await Deno.readTextFile(`${path}.2`), "older\n");
  await removeTree(dir);
});
