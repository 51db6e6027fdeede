/**
 * compileGlob() (D28, issue 33 item 15): the glob language of approval rules,
 * matched without backtracking.
 */
import assert from "node:assert/strict";
import { compileGlob } from "../../src/policy/path_glob.ts";

const ROOT = "/r";

Deno.test("compileGlob() keeps the glob language of approval rules", () => {
  const cases: Array<[string, string, boolean]> = [
    ["**/.env", "/r/.env", true],
    ["**/.env", "/r/a/b/.env", true],
    ["**/.env", "/r/a.env", false],
    ["**/.env", "/other/.env", false],
    ["/**/.env", "/other/x/.env", true],
    ["src/**", "/r/src/a/b.ts", true],
    ["src/**", "/r/src/", true],
    ["src/**", "/r/src", false],
    ["src/**", "/r/srcx/a", false],
    ["src/", "/r/src/a/b", true],
    ["*.md", "/r/README.md", true],
    ["*.md", "/r/docs/README.md", false],
    ["file?.txt", "/r/file1.txt", true],
    ["file?.txt", "/r/file10.txt", false],
    ["file?.txt", "/r/file/.txt", false],
    ["file?.txt", "/r/file🙂.txt", true],
    ["/abs/**/x", "/abs/x", true],
    ["/abs/**/x", "/abs/a/b/x", true],
    ["/abs/**/x", "/abs/ax", false],
    ["a**b", "/r/a/x/b", true],
    ["a**b", "/r/a/x/c", false],
    ["***", "/r/a/b", true],
    ["**", "/r/a/b/c", true],
    ["a.b", "/r/a.b", true],
    ["a.b", "/r/axb", false],
    ["[ab]", "/r/[ab]", true],
    ["[ab]", "/r/a", false],
    ["(x)+", "/r/(x)+", true],
    ["a*b*c", "/r/abxbc", true],
    ["a*b*c", "/r/ab/c", false],
    ["../x/*", "/x/y", true],
  ];
  for (const [glob, path, expected] of cases) {
    assert.equal(compileGlob(glob, ROOT).matches(path), expected, `${glob} ${path}`);
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
