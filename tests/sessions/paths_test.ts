import assert from "node:assert/strict";
import { isInside, resolveLaunchPaths } from "../../src/sessions/paths.ts";
import { ServiceError } from "../../src/errors.ts";
import { removeTree, tempHome } from "../helpers/home.ts";

Deno.test("isInside() compares whole path segments", () => {
  assert.ok(isInside("/a/b", "/a/b"));
  assert.ok(isInside("/a/b", "/a/b/c"));
  assert.ok(!isInside("/a/b", "/a/bc"));
  assert.ok(!isInside("/a/b", "/a"));
  assert.ok(isInside("/", "/x"));
});

Deno.test("resolveLaunchPaths() contains cwd after realpath, symlinks included (D7)", async () => {
  const root = await Deno.realPath(await tempHome());
  const outside = await Deno.realPath(await tempHome());
  await Deno.mkdir(`${root}/pkg/deep`, { recursive: true });
  await Deno.symlink(outside, `${root}/link-out`);
  await Deno.symlink(`${root}/pkg`, `${root}/link-in`);
  const field = async (promise: Promise<unknown>) => {
    try {
      await promise;
      return null;
    } catch (error) {
      assert.ok(error instanceof ServiceError);
      return error.details.field;
    }
  };
  try {
    assert.deepEqual(await resolveLaunchPaths(root, undefined, null), {
      projectRoot: root,
      cwd: root,
    });
    assert.equal((await resolveLaunchPaths(root, "pkg/deep", null)).cwd, `${root}/pkg/deep`);
    assert.equal((await resolveLaunchPaths(root, `${root}/link-in`, null)).cwd, `${root}/pkg`);
    assert.equal(await field(resolveLaunchPaths(root, "link-out", null)), "cwd");
    assert.equal(await field(resolveLaunchPaths(root, "pkg/../..", null)), "cwd");
    assert.equal(await field(resolveLaunchPaths(root, "missing", null)), "cwd");
    assert.equal(await field(resolveLaunchPaths("relative", undefined, null)), "projectRoot");
    assert.equal(await field(resolveLaunchPaths(root, undefined, [outside])), "projectRoot");
    assert.equal(
      (await resolveLaunchPaths(`${root}/pkg`, undefined, [root])).projectRoot,
      `${root}/pkg`,
    );
    // A symlinked root is judged by where it points.
    assert.equal(
      await field(resolveLaunchPaths(`${root}/link-out`, undefined, [root])),
      "projectRoot",
    );
  } finally {
    await removeTree(root);
    await removeTree(outside);
  }
});

Deno.test("resolveLaunchPaths() judges paths for the host OS, never another's as relative (issue 28)", async (t) => {
  const refusals: Array<[typeof Deno.build.os, string, string | undefined, string]> = [
    ["linux", "C:/x", undefined, "projectRoot"],
    ["linux", "\\\\server\\share", undefined, "projectRoot"],
    ["linux", "/tmp", "C:/x", "cwd"],
    ["linux", "/tmp", "d:\\x", "cwd"],
    ["windows", "/home/me", undefined, "projectRoot"],
    ["windows", "C:\\code", "\\x", "cwd"],
    ["windows", "C:\\code", "/x", "cwd"],
  ];
  for (const [os, projectRoot, cwd, expected] of refusals) {
    await t.step(`${os}: ${projectRoot} ${cwd ?? ""} → ${expected}`, async () => {
      const refused = await resolveLaunchPaths(projectRoot, cwd, null, { os }).then(
        () => null,
        (error) => error,
      );
      assert.ok(refused instanceof ServiceError, "accepted");
      assert.equal(refused.status, 400);
      assert.deepEqual(refused.details, { field: expected });
      assert.match(refused.message, /absolute path/);
    });
  }
  await t.step({
    name: "a directory named C: is still reachable as ./C:/x",
    ignore: Deno.build.os === "windows",
    fn: async () => {
      const root = await Deno.realPath(await tempHome());
      try {
        await Deno.mkdir(`${root}/C:/x`, { recursive: true });
        const resolved = await resolveLaunchPaths(root, "./C:/x", null, { os: "linux" });
        assert.equal(resolved.cwd, `${root}/C:/x`);
      } finally {
        await removeTree(root);
      }
    },
  });
});
