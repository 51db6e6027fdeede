/**
 * compileGlob() (D28, issue 33 item 15): the glob language of approval rules,
 * matched without backtracking.
 */
import assert from "node:assert/strict";
import { compileGlob } from "../../src/policy/path_glob.ts";

const ROOT = "/r";

Deno.test("compileGlob() keeps the glob language of approval rules", () => {
  /** Per glob (relative ones from /r): paths it matches, and paths it does not. */
  const globs: Record<string, { matches: string[]; misses: string[] }> = {
    "**/.env": { matches: ["/r/.env", "/r/a/b/.env"], misses: ["/r/a.env", "/other/.env"] },
    "/**/.env": { matches: ["/other/x/.env"], misses: ["/other/x.env"] },
    "src/**": { matches: ["/r/src/a/b.ts", "/r/src/"], misses: ["/r/src", "/r/srcx/a"] },
    "src/": { matches: ["/r/src/a/b"], misses: ["/r/src"] },
    "*.md": { matches: ["/r/README.md"], misses: ["/r/docs/README.md"] },
    "file?.txt": {
      matches: ["/r/file1.txt", "/r/file🙂.txt"],
      misses: ["/r/file10.txt", "/r/file/.txt"],
    },
    "/abs/**/x": { matches: ["/abs/x", "/abs/a/b/x"], misses: ["/abs/ax"] },
    "a**b": { matches: ["/r/a/x/b"], misses: ["/r/a/x/c"] },
    "***": { matches: ["/r/a/b"], misses: ["/s"] },
    "**": { matches: ["/r/a/b/c"], misses: ["/rx"] },
    "a.b": { matches: ["/r/a.b"], misses: ["/r/axb"] },
    "[ab]": { matches: ["/r/[ab]"], misses: ["/r/a"] },
    "(x)+": { matches: ["/r/(x)+"], misses: ["/r/xx"] },
    "a*b*c": { matches: ["/r/abxbc"], misses: ["/r/ab/c"] },
    "../x/*": { matches: ["/x/y"], misses: ["/x/y/z"] },
  };
  for (const [glob, { matches, misses }] of Object.entries(globs)) {
    const compiled = compileGlob(glob, ROOT);
    for (const path of matches) assert.ok(compiled.matches(path), `${glob} matches ${path}`);
    for (const path of misses) assert.ok(!compiled.matches(path), `${glob} misses ${path}`);
  }
});

Deno.test("compileGlob() decides degenerate globs against long paths without backtracking", () => {
  const deep = `/r/${Array.from({ length: 200 }, (_, index) => `d${index}`).join("/")}`;
  const dirs = compileGlob(`${"**/".repeat(100)}x`, ROOT);
  assert.equal(dirs.matches(`${deep}/y`), false);
  assert.equal(dirs.matches(`${deep}/x`), true);
  const stars = compileGlob(`${"*a".repeat(50)}*b`, ROOT);
  assert.equal(stars.matches(`/r/${"a".repeat(5000)}c`), false);
  assert.equal(stars.matches(`/r/${"a".repeat(5000)}b`), true);
  const any = compileGlob(`${"**a".repeat(50)}b`, ROOT);
  assert.equal(any.matches(`/r/${"a/".repeat(2000)}c`), false);
});

Deno.test("compileGlob() reachesUnder() tells whether a directory or a path under it could match", () => {
  const ssh = compileGlob("/home/me/.ssh/**", ROOT);
  for (const directory of ["/", "/home", "/home/me", "/home/me/.ssh", "/home/me/.ssh/keys"]) {
    assert.ok(ssh.reachesUnder(directory), directory);
  }
  for (const directory of ["/tmp", "/home/me/.sshx", "/home/other"]) {
    assert.ok(!ssh.reachesUnder(directory), directory);
  }
  const env = compileGlob("**/.env", ROOT);
  assert.ok(env.reachesUnder(`${ROOT}/anything/at/all`));
  assert.ok(!env.reachesUnder("/elsewhere"));
  const exact = compileGlob("/etc/passwd", ROOT);
  assert.ok(exact.reachesUnder("/etc"));
  assert.ok(exact.reachesUnder("/etc/passwd"));
  assert.ok(!exact.reachesUnder("/etc/passwd.d"));
});
