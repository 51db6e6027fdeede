/**
 * Wrappers and option forms as approval rules see them (issue 33 item 4,
 * D28): a deny rule sees the command behind every wrapper docs/approvals.md
 * lists, in every option form; an allow rule never looks through a wrapper;
 * what svc cannot read in full is never allowed and still seen by deny rules.
 */
import assert from "node:assert/strict";
import { parseCommand } from "../../src/policy/shell_command.ts";
import { decide, rule, withSession } from "../helpers/approval_rules.ts";

/** Wrapper forms svc understands; `CMD` is the wrapped command. */
const WRAPPED = [
  "sudo CMD",
  "sudo -u root CMD",
  "sudo -uroot CMD",
  "sudo --user=root CMD",
  "sudo --user root CMD",
  "sudo -g wheel CMD",
  "sudo -h host CMD",
  "sudo -p prompt: CMD",
  "sudo -C 3 CMD",
  "sudo -D /tmp CMD",
  "sudo --chdir=/tmp CMD",
  "sudo -r role -t type CMD",
  "sudo -U other CMD",
  "sudo -T 10 CMD",
  "sudo -n -E -H CMD",
  "sudo -nEu root CMD",
  "sudo --preserve-env=PATH CMD",
  "sudo --preserve-env CMD",
  "sudo -i CMD",
  "sudo -s CMD",
  "sudo -- CMD",
  "sudo -u root -- CMD",
  "doas -u root CMD",
  "env CMD",
  "env -u HOME CMD",
  "env -uHOME CMD",
  "env --unset=HOME CMD",
  "env --unset HOME CMD",
  "env -i CMD",
  "env - CMD",
  "env -C /tmp CMD",
  "env --chdir=/tmp CMD",
  "env A=1 B=2 CMD",
  "env -i A=1 CMD",
  "env -- CMD",
  "env -v CMD",
  "env -S 'CMD'",
  "env -S'CMD'",
  "env --split-string='CMD'",
  "env -S '-i A=1 CMD'",
  "env -iS 'CMD'",
  'env -S "CMD"',
  "timeout 5 CMD",
  "timeout 1.5 CMD",
  "timeout 5s CMD",
  "timeout -k 1 5 CMD",
  "timeout -k1 5 CMD",
  "timeout --kill-after=1 5 CMD",
  "timeout -s KILL 5 CMD",
  "timeout -sKILL 1m CMD",
  "timeout --signal=KILL 5 CMD",
  "timeout --signal KILL 5 CMD",
  "timeout --preserve-status -v --foreground 5 CMD",
  "timeout -- 5 CMD",
  "nice CMD",
  "nice -n 5 CMD",
  "nice -n 5 -- CMD",
  "nice -n5 CMD",
  "nice --adjustment=5 CMD",
  "nice -10 CMD",
  "nice -- CMD",
  "nohup CMD",
  "nohup -- CMD",
  "time CMD",
  "time -p CMD",
  "time -f %e CMD",
  "time -o out.txt -a CMD",
  "time -v CMD",
  "command CMD",
  "command -p CMD",
  "command -- CMD",
  "exec CMD",
  "exec -a name CMD",
  "exec -cl CMD",
  "stdbuf -oL CMD",
  "stdbuf -o L CMD",
  "stdbuf --output=L -eL -i0 CMD",
  "setsid -f CMD",
  "setsid --wait CMD",
  "chroot / CMD",
  "chroot --userspec=a:b / CMD",
  "xargs CMD",
  "xargs -0 CMD",
  "xargs -I X CMD",
  "xargs -IX CMD",
  "xargs -n 1 CMD",
  "xargs -n1 -P 4 CMD",
  "xargs -d , CMD",
  "xargs -E EOF CMD",
  "xargs -L 1 CMD",
  "xargs -s 100 CMD",
  "xargs -a list.txt CMD",
  "xargs --max-args=1 --max-procs 2 CMD",
  "xargs -r -t -x CMD",
  "xargs -i CMD",
  "bash -c 'CMD'",
  "bash -xc 'CMD'",
  "bash -ec 'CMD'",
  "bash -euxc 'CMD'",
  "bash -lc 'CMD'",
  "bash -l -c 'CMD'",
  "bash -o pipefail -c 'CMD'",
  "bash -eo pipefail -c 'CMD'",
  "bash -O extglob -c 'CMD'",
  "bash +x -c 'CMD'",
  "bash --norc --noprofile -c 'CMD'",
  "bash -c -- 'CMD'",
  "sh -c 'CMD'",
  "zsh -fc 'CMD'",
  "dash -ec 'CMD'",
  "/bin/bash -lc 'CMD'",
  "eval 'CMD'",
  "eval CMD",
  "eval -- CMD",
  "eval 'ls;' CMD",
  "sudo env -u HOME timeout -k 1 5 nice -n 5 -- CMD",
  "sudo -u root bash -xc 'CMD'",
  "env -S 'sudo -u root CMD'",
  "xargs sudo -u root CMD",
];

/** Wrapper forms svc does not understand: never allowed, and a deny rule still sees through. */
const UNREADABLE = [
  "sudo -Z CMD",
  "sudo --frobnicate CMD",
  "sudo -u",
  "env --frobnicate CMD",
  "env -S 'CMD $HOME'",
  'sudo -u "$U" CMD',
  'timeout "$T" CMD',
  "timeout --frobnicate 5 CMD",
  "nice -x CMD",
  "xargs --frobnicate CMD",
  "xargs -I{} CMD",
  "bash --frobnicate -c 'CMD'",
  "bash -c 'CMD' name arg",
  'bash -c "CMD $X"',
  'eval "CMD $X"',
  "git --frobnicate CMD",
  "exec -Z CMD",
  `${"nice ".repeat(17)}CMD`,
  "eval eval eval eval eval CMD",
];

/** Git's global options before its subcommand. */
const GIT_GLOBALS = [
  "--no-pager",
  "-C .",
  "-C /tmp/repo -C sub",
  "-c k=v",
  "-c core.pager=cat -c color.ui=never",
  "--git-dir=.git",
  "--git-dir .git",
  "--work-tree=.",
  "--work-tree .",
  "-p",
  "--paginate",
  "-P",
  "--bare",
  "--exec-path",
  "--exec-path=/usr/lib/git-core",
  "--namespace=ns",
  "--namespace ns",
  "--config-env=a.b=ENV",
  "--no-replace-objects",
  "--no-optional-locks",
  "--no-lazy-fetch",
  "--no-advice",
  "--literal-pathspecs",
  "--glob-pathspecs",
  "--noglob-pathspecs",
  "--icase-pathspecs",
  "--attr-source=HEAD",
  "-C . --no-pager -c a=b --git-dir=.git",
];

/** Option arguments that look like the denied program: a grammar, not a word search, reads them. */
const NOT_A_COMMAND = [
  "sudo -u rm ls",
  "sudo --user rm ls",
  "env -u rm ls",
  "env -C rm ls",
  "env rm=1 ls",
  "timeout -s rm 5 ls",
  "timeout -k rm 5 ls",
  "nice -n rm ls",
  "time -o rm ls",
  "exec -a rm ls",
  "stdbuf -o rm ls",
  "xargs -I rm echo",
  "xargs -a rm ls",
  "xargs -E rm ls",
  "bash -o rm -c ls",
  "chroot rm ls",
  "git -C push status",
  "git -c push=1 status",
  "git --git-dir push status",
  "git --namespace push log",
  "git --no-pager log push",
  "eval echo rm",
];

/** The one wrapper an allow rule reads through, because codex wraps every command so. */
const READ_FOR_ALLOW = new Set([
  "bash -c 'CMD'",
  "bash -lc 'CMD'",
  "sh -c 'CMD'",
  "/bin/bash -lc 'CMD'",
]);

const DENY_RM = rule({ decision: "deny", command: ["rm"] });
const DENY_PUSH = rule({ decision: "deny", command: ["git", "push"] });
const ALLOW_SHELL = rule({ tool: "shell" });

Deno.test("a deny rule sees the command behind every wrapper form", () =>
  withSession(async (session) => {
    for (const form of [...WRAPPED, ...UNREADABLE.filter((form) => form.includes("CMD"))]) {
      for (const command of ["rm -rf x", "git --no-pager push origin"]) {
        const text = form.replace("CMD", command);
        const rules = [ALLOW_SHELL, DENY_RM, DENY_PUSH];
        assert.equal(await decide(rules, { command: text }, session), "deny", text);
      }
    }
  }));

Deno.test("an allow rule never looks through a wrapper, and one naming it needs its grammar", () =>
  withSession(async (session) => {
    const npmTest = rule({ command: ["npm", "test"] });
    for (const form of WRAPPED) {
      const text = form.replace("CMD", "npm test");
      if (READ_FOR_ALLOW.has(form)) {
        assert.equal(await decide([npmTest], { command: text }, session), "allow", text);
        continue;
      }
      assert.equal(await decide([npmTest], { command: text }, session), null, text);
      const wrapper = rule({ command: [text.split(" ")[0]] });
      assert.equal(await decide([wrapper], { command: text }, session), "allow", text);
    }
    for (const form of UNREADABLE) {
      const text = form.replace("CMD", "npm test");
      const wrapper = rule({ command: [text.split(" ")[0]] });
      const rules = [npmTest, wrapper, ALLOW_SHELL];
      assert.equal(await decide(rules, { command: text }, session), null, text);
    }
  }));

Deno.test("git's global options: a deny rule sees the subcommand, an allow rule does not", () =>
  withSession(async (session) => {
    const allowGit = rule({ command: ["git"] });
    const allowStatus = rule({ command: ["git", "status"] });
    for (const options of GIT_GLOBALS) {
      const push = `git ${options} push origin main`;
      assert.equal(
        await decide([ALLOW_SHELL, DENY_PUSH], { command: push }, session),
        "deny",
        push,
      );
      assert.equal(
        await decide([allowGit, DENY_PUSH], { command: `/usr/bin/${push}` }, session),
        "deny",
        push,
      );
      const status = `git ${options} status`;
      assert.equal(await decide([allowStatus], { command: status }, session), null, status);
      assert.equal(await decide([allowGit, DENY_PUSH], { command: status }, session), "allow");
    }
  }));

Deno.test("an option's argument is not the wrapped command", () =>
  withSession(async (session) => {
    for (const text of NOT_A_COMMAND) {
      const rules = [ALLOW_SHELL, DENY_RM, DENY_PUSH];
      assert.equal(await decide(rules, { command: text }, session), "allow", text);
    }
  }));

Deno.test("a command over 16 KiB or with a syntax error is never allowed, and still denied", () =>
  withSession(async (session) => {
    const padding = "a".repeat(17 * 1024);
    const denied = [
      `echo ${padding}; rm -rf x`,
      `echo ${padding} && git --no-pager push`,
      `git push ${padding}`,
      `echo "${padding}" | xargs 'r'm`,
      "echo ) ; rm x",
      "rm x 'unterminated",
      "git -C . push (",
    ];
    for (const text of denied) {
      const rules = [ALLOW_SHELL, DENY_RM, DENY_PUSH];
      assert.equal(await decide(rules, { command: text }, session), "deny", text.slice(-40));
    }
    const asked = [`echo ${padding}`, `npm test ${padding}`, "npm test )"];
    for (const text of asked) {
      const rules = [ALLOW_SHELL, rule({ command: ["npm", "test"] }), DENY_RM];
      assert.equal(await decide(rules, { command: text }, session), null, text.slice(-40));
    }
  }));

Deno.test("parseCommand() reads env -S and eval as the commands they run", async () => {
  const cases: Array<[string, string[]]> = [
    ["env -S 'a \"b c\" d\\_e'", ["a", "b c", "d", "e"]],
    ["eval 'ls -l;' rm x", ["rm", "x"]],
    ["sudo -u root -- nice -n 5 rm x", ["rm", "x"]],
    ["git -C . --no-pager push -f", ["git", "push", "-f"]],
  ];
  for (const [text, argv] of cases) {
    const { commands } = await parseCommand(text);
    assert.ok(
      commands.some((command) => JSON.stringify(command) === JSON.stringify(argv)),
      `${text}: ${JSON.stringify(commands)}`,
    );
  }
});
