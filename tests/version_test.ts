import assert from "node:assert/strict";
import { resolveSvcVersion, SVC_VERSION, svcVersion } from "../src/version.ts";

Deno.test("from a git checkout, svcVersion is git describe of it, not unknown (issue 15)", async () => {
  assert.equal(SVC_VERSION, "unknown", "the source is never stamped");
  const head = new TextDecoder().decode(
    (await new Deno.Command("git", { args: ["rev-parse", "--short", "HEAD"] }).output()).stdout,
  ).trim();
  const version = await resolveSvcVersion();
  assert.match(version, /^(\d+\.\d+\.\d+-g[0-9a-f]+(-dirty)?|.+-g[0-9a-f]+(-dirty)?|v?\d.*)$/);
  assert.ok(version.includes(head.slice(0, 7)), `${version} names ${head}`);
  assert.equal(svcVersion(), version);
  assert.equal(await resolveSvcVersion(), version, "git runs once");
});
