/**
 * The approval-rule matcher (D28, issue 25): a table of hostile commands and
 * paths that must never match an allow rule, next to the ones that must.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { proposeRule, ruleProject } from "../../src/policy/approval_rules.ts";
import { parseCommand } from "../../src/policy/shell_command.ts";
import { decide, rule, tempSession, withSession } from "../helpers/approval_rules.ts";

const NPM_TEST = rule({ command: ["npm", "test"] });
const GIT_STATUS = rule({ command: ["git", "status"] });

/** Commands an allow rule `npm test` must match. */
const MATCHING = [
  "npm test",
  "npm  test",
  "npm test -- --watch=false",
  "npm 'test'",
  'npm "test"',
  "'npm' test",
  "n'p'm te\"s\"t",
  "npm\\ test".replace("\\ ", " "), // a plain space: two words
  "  npm test  ",
  "npm test --coverage",
  "bash -c 'npm test'",
  "/bin/bash -lc 'npm test --ci'",
  'sh -c "npm test"',
  'npm test "a b"',
  "npm test a\\ b",
];

/** Commands an allow rule `npm test` (or `git status`) must never match: they are asked. */
const HOSTILE = [
  "npm test; rm -rf /",
  "npm test;rm -rf /",
  "npm test && rm -rf /",
  "npm test || rm -rf /",
  "npm test | sh",
  "npm test |& tee x",
  "npm test & rm -rf /",
  "npm test &",
  "npm test\nrm -rf /",
  "npm test\r\nrm -rf /",
  "npm test\rrm",
  "npm test $(rm -rf /)",
  "npm test `rm -rf /`",
  'npm test "$(rm -rf /)"',
  'npm test "`rm -rf /`"',
  "npm test > /etc/passwd",
  "npm test >> ~/.bashrc",
  "npm test 2>&1",
  "npm test < /etc/shadow",
  "npm test <<< x",
  "npm test <<EOF\nx\nEOF",
  "npm test <(rm -rf /)",
  "npm test >(rm -rf /)",
  "(npm test)",
  "{ npm test; }",
  "$(npm test)",
  "`npm test`",
  "$NPM test",
  "${NPM} test",
  "$'npm' test",
  "npm $'test'",
  "npm test$IFS;rm",
  'npm "test$X"',
  "npm test ${X:-$(rm -rf /)}",
  "X=1 npm test",
  "NODE_OPTIONS=--require=/tmp/evil.js npm test",
  "env X=1 npm test",
  "env npm test",
  "sudo npm test",
  "exec npm test",
  "command npm test",
  "nohup npm test",
  "xargs npm test",
  "eval npm test",
  "eval 'npm test'",
  "./npm test",
  "/usr/bin/npm test",
  "../npm test",
  "npm.cmd test",
  "npm tests",
  "npm testx",
  "npm",
  "npx test",
  "nрm test", // Cyrillic р
  "npm tеst", // Cyrillic е
  "ｎｐｍ test", // fullwidth
  "npm\u00a0test", // no-break space: one word in bash
  "npm\u200btest",
  "npm test\u0000rm",
  "npm te*",
  "npm tes?",
  "npm t[e]st",
  "npm {test,run}",
  "~/npm test",
  "npm test # ok",
  "! npm test",
  "if true; then npm test; fi",
  "for x in 1; do npm test; done",
  "function npm { rm -rf /; }; npm test",
  "alias npm='rm -rf /'; npm test",
  "npm test \\",
  "'npm test'",
  '"npm test"',
  "bash -c 'npm test; rm -rf /'",
  "bash -c 'npm test' extra",
  'bash -c "npm test $(rm)"',
  "npm test 'unterminated",
  "time npm test",
  "npm test -- $(id)",
  "cd /tmp && npm test",
  "coproc npm test",
  "[[ -f x ]] && npm test",
  "npm test ;",
  "npm test\n",
];

Deno.test("an allow rule matches the simple commands that start with its argv", () =>
  withSession(async (session) => {
    for (const command of MATCHING) {
      assert.equal(await decide([NPM_TEST], { command }, session), "allow", command);
    }
  }));

Deno.test(`no hostile command (${HOSTILE.length} of them) matches an allow rule`, async () => {
  assert.ok(HOSTILE.length >= 60);
  const session = await tempSession();
  try {
    for (const command of HOSTILE) {
      assert.equal(await decide([NPM_TEST, GIT_STATUS], { command }, session), null, command);
    }
  } finally {
    await Deno.remove(session.projectRoot, { recursive: true });
  }
});

Deno.test("a deny rule matches its program anywhere in a chain, wrapper or substitution", async () => {
  const session = await tempSession();
  const denyRm = rule({ decision: "deny", command: ["rm"] });
  const allowAll = rule({ tool: "shell" });
  try {
    for (
      const command of [
        "rm -rf /",
        "/bin/rm x",
        "./rm x",
        "ls; rm x",
        "ls && rm x",
        "ls | xargs rm",
        "echo $(rm x)",
        "echo `rm x`",
        "(rm x)",
        "sudo rm x",
        "env A=1 rm x",
        "X=1 rm x",
        "bash -c 'ls; rm x'",
        "timeout 5 rm x",
        "ls\nrm x",
        "ls > f; 'rm' x",
      ]
    ) {
      assert.equal(await decide([allowAll, denyRm], { command }, session), "deny", command);
    }
    for (const command of ["ls", "echo rm", "git rm x", "rmdir x", "npm test"]) {
      assert.equal(await decide([allowAll, denyRm], { command }, session), "allow", command);
    }
    // A deny rule with arguments matches its prefix only.
    const denyPush = rule({ decision: "deny", command: ["git", "push"] });
    assert.equal(await decide([allowAll, denyPush], { command: "git push -f" }, session), "deny");
    assert.equal(
      await decide([allowAll, denyPush], { command: "ls && git push" }, session),
      "deny",
    );
    assert.equal(await decide([allowAll, denyPush], { command: "git status" }, session), "allow");
  } finally {
    await Deno.remove(session.projectRoot, { recursive: true });
  }
});

Deno.test("deny beats allow; every field a rule sets must match", () =>
  withSession(async (session) => {
    const allow = rule({ command: ["npm", "test"] });
    const deny = rule({ decision: "deny", command: ["npm"] });
    assert.equal(await decide([allow, deny], { command: "npm test" }, session), "deny");
    const other = { ...session, sessionId: "ses_other" };
    const scoped = rule({ sessionId: session.sessionId, command: ["npm", "test"] });
    assert.equal(await decide([scoped], { command: "npm test" }, session), "allow");
    assert.equal(await decide([scoped], { command: "npm test" }, other), null);
    const harness = rule({ harness: "codex", command: ["npm", "test"] });
    assert.equal(await decide([harness], { command: "npm test" }, session), null);
    assert.equal(
      await decide([harness], { command: "npm test" }, { ...session, harness: "codex" }),
      "allow",
    );
    const project = rule({ projectRoot: session.projectRoot, tool: "edit" });
    assert.equal(
      await decide([project], { kind: "edit", paths: ["a.txt"] }, session, "Write"),
      "allow",
    );
    assert.equal(
      await decide([project], { kind: "edit", paths: ["a.txt"] }, {
        ...session,
        projectRoot: "/elsewhere",
        cwd: "/elsewhere",
      }, "Write"),
      null,
    );
    // The tool is the agent's name or svc's kind.
    const bash = rule({ tool: "Bash" });
    assert.equal(await decide([bash], { command: "ls" }, session, "Bash"), "allow");
    assert.equal(await decide([bash], { command: "ls" }, session, "run_shell_command"), null);
    const shell = rule({ tool: "shell" });
    assert.equal(await decide([shell], { command: "ls" }, session, "run_shell_command"), "allow");
    assert.equal(await decide([shell], { kind: "edit", paths: ["x"] }, session, "Write"), null);
    // A command rule never matches a request without a command.
    assert.equal(await decide([NPM_TEST], { kind: "edit", paths: ["x"] }, session, "Write"), null);
  }));

Deno.test("the project of a session in an svc worktree is its repository's root (issue 38 item 4)", () =>
  withSession(async (repository) => {
    const worktree = await tempSession();
    try {
      const isolated = { ...worktree, repositoryRoot: repository.projectRoot };
      assert.equal(ruleProject(isolated), repository.projectRoot);
      assert.equal(ruleProject(repository), repository.projectRoot);
      const project = rule({ projectRoot: repository.projectRoot, tool: "edit" });
      // The checkout and the isolated run: both covered; edits held to each one's own root.
      for (const session of [repository, isolated]) {
        assert.equal(
          await decide([project], { kind: "edit", paths: ["a"] }, session, "Write"),
          "allow",
        );
      }
      const intoCheckout = { kind: "edit" as const, paths: [`${repository.projectRoot}/a`] };
      assert.equal(await decide([project], intoCheckout, isolated, "Write"), null);
      // A rule stored with the worktree as its project (before issue 38) still covers that run.
      const older = rule({ projectRoot: worktree.projectRoot, tool: "edit" });
      assert.equal(
        await decide([older], { kind: "edit", paths: ["a"] }, isolated, "Write"),
        "allow",
      );
      assert.equal(
        await decide([older], { kind: "edit", paths: ["a"] }, repository, "Write"),
        null,
      );
    } finally {
      await Deno.remove(worktree.projectRoot, { recursive: true });
    }
  }));

Deno.test("paths: normalised, absolute, symlinks resolved, never outside the project", async () => {
  const session = await tempSession();
  const outside = await Deno.realPath(await Deno.makeTempDir());
  try {
    const root = session.projectRoot;
    await Deno.mkdir(join(root, "src"));
    await Deno.writeTextFile(join(root, "src", "a.ts"), "");
    await Deno.symlink(outside, join(root, "link"));
    await Deno.symlink(join(outside, "secret"), join(root, "src", "innocent.ts"));
    const srcTs = rule({ tool: "edit", path: "src/**" });
    const anyEdit = rule({ tool: "edit" });
    const edit = (paths: string[], rules = [srcTs]) =>
      decide(rules, { kind: "edit", paths }, session, "Write");
    assert.equal(await edit(["src/a.ts"]), "allow");
    assert.equal(await edit([join(root, "src/a.ts")]), "allow");
    assert.equal(await edit(["./src/new/b.ts"]), "allow", "a new file under src");
    assert.equal(await edit(["src/../src/a.ts"]), "allow");
    for (
      const path of [
        "src/../package.json",
        "a.ts",
        "../outside.txt",
        "src/../../x",
        "/etc/passwd",
        "link/x",
        "src/innocent.ts",
        "srcx/a.ts",
        join(outside, "a.ts"),
      ]
    ) {
      assert.equal(await edit([path]), null, path);
    }
    // Outside the project root no allow rule applies, even one without a path.
    for (const path of ["../x", "/etc/passwd", "link/x", "src/innocent.ts"]) {
      assert.equal(await edit([path], [anyEdit]), null, path);
    }
    assert.equal(await edit(["src/a.ts", "/etc/passwd"], [anyEdit]), null, "every path counts");
    // A deny glob matches when any path does, also outside the root.
    const denyEnv = rule({ decision: "deny", path: "**/.env" });
    assert.equal(await edit(["src/a.ts", ".env"], [anyEdit, denyEnv]), "deny");
    const denyOutside = rule({ decision: "deny", path: `${outside}/**` });
    assert.equal(await edit(["link/x"], [denyOutside]), "deny", "through the symlink");
    // `*` stays within a directory; `?` is one character.
    const top = rule({ tool: "edit", path: "*.md" });
    assert.equal(await edit(["README.md"], [top]), "allow");
    assert.equal(await edit(["docs/README.md"], [top]), null);
    const one = rule({ tool: "edit", path: "file?.txt" });
    assert.equal(await edit(["file1.txt"], [one]), "allow");
    assert.equal(await edit(["file10.txt"], [one]), null);
    // Regex characters in a glob are literal.
    const dots = rule({ tool: "edit", path: "a.b" });
    assert.equal(await edit(["axb"], [dots]), null);
  } finally {
    await Deno.remove(session.projectRoot, { recursive: true });
    await Deno.remove(outside, { recursive: true });
  }
});

Deno.test("the parser reads quoting as bash does", async () => {
  const cases: Array<[string, string[] | null]> = [
    ["git status", ["git", "status"]],
    ["git\\ status", ["git status"]],
    ["echo 'a b' \"c d\"", ["echo", "a b", "c d"]],
    ['echo "a\\"b"', ["echo", 'a"b']],
    ['echo "a\\$b"', ["echo", "a$b"]],
    ["echo a''b", ["echo", "ab"]],
    ["echo $HOME", null],
    ["echo ~", null],
    ["a=1", null],
  ];
  for (const [text, argv] of cases) {
    assert.deepEqual((await parseCommand(text)).simple, argv, text);
  }
});

Deno.test("an always answer proposes a rule for its scope", () => {
  const source = {
    sessionId: "ses_1",
    projectRoot: "/p",
    tool: "Bash",
    kind: "shell" as const,
    argv: ["npm", "test"],
    command: "npm test",
  };
  assert.deepEqual(proposeRule(source, "session"), {
    decision: "allow",
    sessionId: "ses_1",
    tool: "shell",
    command: ["npm", "test"],
  });
  assert.deepEqual(proposeRule(source, "project"), {
    decision: "allow",
    projectRoot: "/p",
    tool: "shell",
    command: ["npm", "test"],
  });
  assert.deepEqual(proposeRule({ ...source, argv: null }, "everywhere"), null);
  assert.deepEqual(proposeRule({ ...source, kind: "edit", tool: "Write" }, "everywhere"), {
    decision: "allow",
    tool: "edit",
  });
});

Deno.test("an edit whose paths are unknown never matches an allow rule", () =>
  withSession(async (session) => {
    const unknown = { kind: "edit" as const, paths: [] };
    for (const allow of [rule({ tool: "edit" }), rule({ tool: "apply_patch" })]) {
      assert.equal(await decide([allow], unknown, session, "apply_patch"), null);
      assert.equal(
        await decide([allow], { kind: "edit", paths: ["a.txt"] }, session, "apply_patch"),
        "allow",
      );
    }
    assert.equal(await decide([rule({ tool: "read" })], { kind: "read" }, session, "Read"), null);
  }));

Deno.test("a degenerate glob against a deep path is decided in bounded work", () =>
  withSession(async (session) => {
    const deep = Array.from({ length: 200 }, (_, index) => `d${index % 10}`).join("/");
    const glob = `${"**/".repeat(40)}x`;
    const edit = (path: string) =>
      decide(
        [rule({ tool: "edit", path: glob })],
        { kind: "edit", paths: [path] },
        session,
        "Write",
      );
    assert.equal(await edit(`${deep}/y`), null);
    assert.equal(await edit(`${deep}/x`), "allow");
    const stars = rule({ tool: "edit", path: `${"*a".repeat(30)}*b` });
    const long = `${"a".repeat(3000)}c`;
    assert.equal(await decide([stars], { kind: "edit", paths: [long] }, session, "Write"), null);
  }));

Deno.test("a deny path rule sees a permissions profile's paths and all they reach (issue 33 item 5)", () =>
  withSession(async (session) => {
    const ssh = rule({ decision: "deny", path: "/home/me/.ssh/**" });
    const asking = (profile: { read?: string[]; write?: string[] }) =>
      decide(
        [ssh],
        { kind: "other", profile: { network: false, read: [], write: [], ...profile } },
        session,
        "permissions",
      );
    assert.equal(await asking({ write: ["/"] }), "deny");
    assert.equal(await asking({ read: ["/home/me"] }), "deny");
    assert.equal(await asking({ read: ["/home/me/.ssh/id_ed25519"] }), "deny");
    assert.equal(await asking({ write: ["/tmp/cache"] }), null);
    assert.equal(await asking({ read: ["/home/me/.sshx"] }), null);
  }));
