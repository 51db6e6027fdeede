/** Version baking (scripts/stamp_version.ts): the pure stamp, git describe, the staged copy. */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  describeVersion,
  REPO_ROOT,
  STAGED_PATHS,
  stageStampedTree,
  stampVersion,
  UNKNOWN_VERSION,
  VERSION_MODULE,
  versionFromDescribe,
} from "../../scripts/stamp_version.ts";
import { SVC_VERSION } from "../../src/version.ts";

const SOURCE = `/** doc */
export const SVC_VERSION: string = "unknown";

export const API_VERSION = "svc.daemon.v1";
`;

Deno.test('the source tree\'s version stays "unknown" (builds stamp a copy)', () => {
  assert.equal(SVC_VERSION, UNKNOWN_VERSION);
});

Deno.test("stampVersion replaces only the SVC_VERSION literal", () => {
  assert.equal(
    stampVersion(SOURCE, "v1.2.3-4-gabcdef0-dirty"),
    SOURCE.replace('"unknown"', '"v1.2.3-4-gabcdef0-dirty"'),
  );
  // Re-stamping a stamped text works; quotes, backslashes and `$` patterns stay literal.
  const twice = stampVersion(stampVersion(SOURCE, "a"), 'x"y\\z$&');
  assert.ok(twice.includes('export const SVC_VERSION: string = "x\\"y\\\\z$&";'), twice);
  assert.ok(twice.includes('export const API_VERSION = "svc.daemon.v1";'));
});

Deno.test("stampVersion stamps the real src/version.ts", async () => {
  const source = await Deno.readTextFile(join(REPO_ROOT, VERSION_MODULE));
  const stamped = stampVersion(source, "v9.9.9");
  assert.match(stamped, /^export const SVC_VERSION: string = "v9\.9\.9";$/m);
  assert.equal(stamped.split("\n").length, source.split("\n").length);
});

Deno.test("stampVersion refuses a module without exactly one declaration", () => {
  assert.throws(() => stampVersion("export const OTHER = 1;\n", "v1"), /exactly once \(found 0\)/);
  assert.throws(() => stampVersion(SOURCE + SOURCE, "v1"), /exactly once \(found 2\)/);
  assert.throws(
    () => stampVersion('export const SVC_VERSION = "unknown";\n', "v1"),
    /exactly once/,
  );
});

Deno.test("versionFromDescribe: first line, or unknown on failure or empty output", () => {
  assert.equal(versionFromDescribe(true, "v1.0.0-3-g1234567-dirty\n"), "v1.0.0-3-g1234567-dirty");
  assert.equal(versionFromDescribe(true, "  abc1234  \n"), "abc1234");
  assert.equal(versionFromDescribe(true, "\n"), UNKNOWN_VERSION);
  assert.equal(versionFromDescribe(false, "fatal: not a git repository"), UNKNOWN_VERSION);
});

async function hasGit(): Promise<boolean> {
  try {
    return (await new Deno.Command("git", { args: ["--version"], stdout: "null", stderr: "null" })
      .output()).success;
  } catch {
    return false;
  }
}

Deno.test("describeVersion: unknown outside a repository, the tag and -dirty inside one", async () => {
  const dir = await Deno.makeTempDir({ prefix: "svc-describe-" });
  try {
    // GIT_CEILING_DIRECTORIES is not needed: temporary directories are not in a repository.
    assert.equal(await describeVersion(dir), UNKNOWN_VERSION);
    assert.equal(await describeVersion(join(dir, "missing")), UNKNOWN_VERSION);
    if (!await hasGit()) return;
    const git = async (...args: string[]) => {
      const output = await new Deno.Command("git", {
        args: ["-c", "user.name=t", "-c", "user.email=t@example.invalid", ...args],
        cwd: dir,
        env: { GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" },
        stdout: "null",
        stderr: "piped",
      }).output();
      assert.ok(output.success, new TextDecoder().decode(output.stderr));
    };
    await git("init", "-q");
    await Deno.writeTextFile(join(dir, "file"), "one\n");
    await git("add", "file");
    await git("commit", "-q", "-m", "one");
    assert.match(await describeVersion(dir), /^[0-9a-f]{7,}$/, "no tag: the abbreviated hash");
    await git("tag", "v9.9.9");
    assert.equal(await describeVersion(dir), "v9.9.9");
    await Deno.writeTextFile(join(dir, "file"), "two\n");
    assert.equal(await describeVersion(dir), "v9.9.9-dirty");
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});

Deno.test("stageStampedTree copies the sources, stamps the copy, leaves the tree alone", async () => {
  const before = await Deno.readTextFile(join(REPO_ROOT, VERSION_MODULE));
  let dir: string;
  {
    await using staged = await stageStampedTree(REPO_ROOT, "v0.0.0-test");
    dir = staged.dir;
    assert.equal(staged.version, "v0.0.0-test");
    assert.match(
      await Deno.readTextFile(join(dir, VERSION_MODULE)),
      /^export const SVC_VERSION: string = "v0\.0\.0-test";$/m,
    );
    for (const path of STAGED_PATHS) {
      if (path === "deno.lock") continue; // optional
      await Deno.stat(join(dir, path));
    }
    assert.equal(
      await Deno.readTextFile(join(dir, "main.ts")),
      await Deno.readTextFile(join(REPO_ROOT, "main.ts")),
    );
    await assert.rejects(() => Deno.stat(join(dir, "tests")), Deno.errors.NotFound);
  }
  await assert.rejects(() => Deno.stat(dir), Deno.errors.NotFound, "removed on dispose");
  assert.equal(await Deno.readTextFile(join(REPO_ROOT, VERSION_MODULE)), before);
});
