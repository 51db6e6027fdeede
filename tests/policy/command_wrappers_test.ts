/**
 * wrappedCommand() and splitString() (D28, issue 33 item 4): what a wrapper's
 * argv runs, read by its option grammar.
 */
import assert from "node:assert/strict";
import { splitString, wrappedCommand } from "../../src/policy/command_wrappers.ts";

Deno.test("wrappedCommand() tells the command, a script, nothing or unknown", () => {
  const cases: Array<[string[], boolean, unknown]> = [
    [["sudo", "-u", "root", "rm", "x"], true, { kind: "command", argv: ["rm", "x"] }],
    [["sudo", "--us=root", "rm"], true, { kind: "command", argv: ["rm"] }],
    [["sudo", "--s", "rm"], true, { kind: "unknown" }],
    [["env", "-S", "-u HOME ls", "-l"], true, { kind: "command", argv: ["ls", "-l"] }],
    [["env", "A=1"], true, { kind: "none" }],
    [["env", "A=1"], false, { kind: "unknown" }],
    [["timeout", "-s", "KILL"], true, { kind: "unknown" }],
    [["chroot", "/srv"], true, { kind: "none" }],
    [["git", "status"], true, null],
    [["/usr/bin/git", "-C", ".", "push"], true, {
      kind: "command",
      argv: ["/usr/bin/git", "push"],
    }],
    [["git", "--no-pager"], true, { kind: "none" }],
    [["bash", "-eo", "pipefail", "-c", "ls"], true, { kind: "script", text: "ls" }],
    [["bash", "-o"], true, { kind: "unknown" }],
    [["bash", "script.sh"], true, { kind: "none" }],
    [["bash", "-c"], true, { kind: "unknown" }],
    [["eval", "ls", "-l"], true, { kind: "script", text: "ls -l" }],
    [["eval"], true, { kind: "none" }],
    [["ls", "-l"], true, null],
  ];
  for (const [argv, complete, expected] of cases) {
    assert.deepEqual(wrappedCommand(argv, complete), expected, argv.join(" "));
  }
});

Deno.test("splitString() splits env -S's string as env does, or not at all", () => {
  const cases: Array<[string, string[] | null]> = [
    ["a  b\tc", ["a", "b", "c"]],
    [`'a b' "c d" e''`, ["a b", "c d", "e"]],
    ["a\\_b", ["a", "b"]],
    ['"a\\_b"', ["a b"]],
    ['"a\\"b" \\\\', ['a"b', "\\"]],
    ["", []],
    ["a ${HOME}", null],
    ["a \\c b", null],
    ["a #b", null],
    ["'a", null],
  ];
  for (const [text, words] of cases) assert.deepEqual(splitString(text), words, text);
});
