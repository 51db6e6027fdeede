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
  const { sink, close } = fileSink(path, 1000);
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
