/** `svc completions bash|zsh|fish` (issue 7): scripts generated from the command table. */
import assert from "node:assert/strict";
import { EXIT, type Io, UsageError } from "../../src/cli/command.ts";
import { automationsCommand } from "../../src/cli/automations.ts";
import { sessionsCommand } from "../../src/cli/sessions.ts";
import { eventsCommand } from "../../src/cli/events.ts";
import {
  completionsCommand,
  completionScript,
  completionSpec,
  parseUsage,
  SHELLS,
} from "../../src/cli/completions.ts";
import { removeTree, tempHome } from "../helpers/home.ts";
import { COMMANDS } from "../../src/cli/main.ts";

function capture(): { io: Io; stdout: () => string } {
  let stdout = "";
  const io: Io = {
    out: (text) => stdout += text + "\n",
    err: () => {},
    write: (text) => stdout += text,
    writeErr: () => {},
    env: () => undefined,
  };
  return { io, stdout: () => stdout };
}

async function script(shell: string): Promise<string> {
  const { io, stdout } = capture();
  assert.equal(await completionsCommand(() => COMMANDS).run([shell], io), EXIT.ok);
  return stdout();
}

/** Whether `program` runs here (the shells are optional on a test machine). */
async function installed(program: string): Promise<boolean> {
  try {
    const { success } = await new Deno.Command(program, {
      args: ["-c", "exit 0"],
      stdout: "null",
      stderr: "null",
    }).output();
    return success;
  } catch {
    return false;
  }
}

async function runShell(
  program: string,
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  const output = await new Deno.Command(program, {
    args,
    env: { HOME: Deno.env.get("HOME") ?? "/tmp" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

Deno.test("parseUsage() reads subcommands and flags from usage texts", async (t) => {
  await t.step("an alternation after the command name", () => {
    assert.deepEqual(parseUsage("completions", "Usage: svc completions bash|zsh|fish"), {
      subcommands: ["bash", "zsh", "fish"],
      flags: [],
    });
  });

  await t.step("the two-space lines of a Subcommands section, not their continuations", () => {
    const parsed = parseUsage("sessions", sessionsCommand.usage);
    assert.deepEqual(parsed.subcommands, [
      "list",
      "start",
      "show",
      "input",
      "interrupt",
      "close",
      "kill",
      "resume",
      "unpark",
      "discover",
      "adopt",
    ]);
    for (
      const flag of [
        "--agent-session",
        "--status",
        "--limit",
        "--project-root",
        "--prompt-file",
        "--signal",
        "--approvals",
      ]
    ) {
      assert.ok(parsed.flags.includes(flag), flag);
    }
    assert.ok(parsed.flags.includes("--home") && parsed.flags.includes("--json"));
  });

  await t.step("short flags; words with inner hyphens are not flags", () => {
    const parsed = parseUsage("automations", automationsCommand.usage);
    assert.deepEqual(parsed.subcommands, [
      "list",
      "get",
      "create",
      "update",
      "pause",
      "activate",
      "delete",
      "run",
      "runs",
      "health",
      "tick",
      "import",
    ]);
    assert.ok(parsed.flags.includes("-f") && parsed.flags.includes("--yes"));
    const events = parseUsage("events", eventsCommand.usage);
    assert.deepEqual(events.subcommands, []);
    assert.deepEqual(events.flags, ["--after", "--limit", "--follow", "--raw", "--home", "--json"]);
    assert.deepEqual(parseUsage("x", 'Usage: svc x\n\nCtrl-C stops; non-loopback; (FILE "-")'), {
      subcommands: [],
      flags: [],
    });
  });
});

Deno.test("completionSpec() covers every command, --help, and help COMMAND", () => {
  const spec = completionSpec(COMMANDS);
  assert.deepEqual(spec.map((c) => c.name), [...COMMANDS.map((c) => c.name), "help"]);
  for (const command of spec.slice(0, -1)) assert.ok(command.flags.includes("--help"));
  assert.deepEqual(spec.at(-1)?.subcommands, COMMANDS.map((c) => c.name));
  assert.deepEqual(spec.find((c) => c.name === "logs")?.flags, [
    "--lines",
    "--follow",
    "--home",
    "--help",
  ]);
});

Deno.test("completionScript() refuses words that would need quoting", () => {
  assert.throws(
    () => completionScript("bash", [{ name: "x;rm", flags: [] }]),
    /Cannot complete "x;rm"/,
  );
});

Deno.test("completionsCommand: a script per shell naming every command", async (t) => {
  for (const shell of SHELLS) {
    await t.step(`${shell}: every command name, subcommand and flag`, async () => {
      const text = await script(shell);
      for (const command of completionSpec(COMMANDS)) {
        assert.match(text, new RegExp(`\\b${command.name}\\b`), command.name);
        for (const word of command.subcommands ?? []) assert.ok(text.includes(word), word);
        for (const flag of command.flags) {
          const written = shell === "fish"
            ? (flag.startsWith("--") ? `-l ${flag.slice(2)}` : `-s ${flag.slice(1)}`)
            : flag;
          assert.ok(text.includes(written), `${command.name} ${flag}`);
        }
      }
    });
  }

  await t.step("a missing or unknown shell is a usage error", async () => {
    const { io } = capture();
    const command = completionsCommand(() => COMMANDS);
    const run = async (args: string[]) => await command.run(args, io);
    await assert.rejects(() => run([]), UsageError);
    await assert.rejects(() => run(["tcsh"]), /Unknown shell "tcsh"/);
    await assert.rejects(() => run(["bash", "zsh"]), /Unexpected argument "zsh"/);
  });
});

Deno.test("completionsCommand: scripts pass each shell's syntax check and complete", async (t) => {
  const dir = await tempHome();
  try {
    for (const shell of SHELLS) {
      await Deno.writeTextFile(`${dir}/svc.${shell}`, await script(shell));
    }

    await t.step("bash -n, and COMPREPLY for commands, subcommands and flags", async () => {
      if (!await installed("bash")) return console.log("skipped: bash is not installed");
      const check = await runShell("bash", ["-n", `${dir}/svc.bash`]);
      assert.equal(check.code, 0, check.stderr);
      const complete = (words: string[]) =>
        runShell("bash", [
          "-c",
          `source "$0"; COMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")}); ` +
          `COMP_CWORD=${words.length - 1}; _svc; printf '%s\\n' "\${COMPREPLY[@]}"`,
          `${dir}/svc.bash`,
        ]);
      assert.equal((await complete(["svc", "se"])).stdout, "serve\nsessions\nservice\n");
      assert.equal((await complete(["svc", "sessions", "k"])).stdout, "kill\n");
      assert.equal((await complete(["svc", "logs", "--l"])).stdout, "--lines\n");
      assert.equal((await complete(["svc", "help", "aut"])).stdout, "automations\n");
      assert.equal((await complete(["svc", "completions", ""])).stdout, "bash\nzsh\nfish\n");
    });

    await t.step("zsh -n, and compdef registers _svc", async () => {
      if (!await installed("zsh")) return console.log("skipped: zsh is not installed");
      const check = await runShell("zsh", ["-n", `${dir}/svc.zsh`]);
      assert.equal(check.code, 0, check.stderr);
      const loaded = await runShell("zsh", [
        "-fc",
        `autoload -U compinit; compinit -u -d "$1/zcompdump"; source "$1/svc.zsh"; ` +
        `print -r -- $_comps[svc]`,
        "zsh",
        dir,
      ]);
      assert.equal(loaded.stdout, "_svc\n", loaded.stderr);
    });

    await t.step("fish -n, and complete -C offers commands, subcommands and flags", async () => {
      if (!await installed("fish")) return console.log("skipped: fish is not installed");
      const check = await runShell("fish", ["-n", `${dir}/svc.fish`]);
      assert.equal(check.code, 0, check.stderr);
      const complete = (line: string) =>
        runShell("fish", ["-c", `source $argv[1]; complete -C '${line}'`, `${dir}/svc.fish`]);
      const commands = await complete("svc st");
      assert.match(commands.stdout, /^status\tShow the running daemon's health$/m);
      assert.match(commands.stdout, /^stop\t/m);
      assert.equal((await complete("svc automations ru")).stdout, "run\nruns\n");
      assert.match((await complete("svc logs --")).stdout, /^--follow$/m);
    });
  } finally {
    await removeTree(dir);
  }
});
