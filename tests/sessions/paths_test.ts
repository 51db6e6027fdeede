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
