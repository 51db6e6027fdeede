/** `svc service install|uninstall|status` with a fake service manager in a temporary HOME. */
import assert from "node:assert/strict";
import { EXIT, type Io, UsageError } from "../../src/cli/command.ts";
import { createServiceCommand, type ServiceCommandDeps } from "../../src/cli/service.ts";
import { ConfigError } from "../../src/config/config_error.ts";
import type { CommandOutcome, CommandRunner } from "../../src/service/command_runner.ts";
import { removeTree, tempHome } from "../helpers/home.ts";

/** Records every argv; answers from `answer` (default: success, no output). */
class FakeRunner implements CommandRunner {
  readonly calls: string[][] = [];
  constructor(readonly answer: (argv: readonly string[]) => CommandOutcome = () => ok()) {}
  run(argv: readonly string[]): Promise<CommandOutcome> {
    this.calls.push([...argv]);
    return Promise.resolve(this.answer(argv));
  }
}

function ok(code = 0, stdout = "", stderr = ""): CommandOutcome {
  return { started: true, code, stdout, stderr };
}

const missing: CommandOutcome = { started: false, reason: '"systemctl" is not installed' };

interface Captured {
  io: Io;
  stdout: () => string;
  stderr: () => string;
}

function captureIo(env: Record<string, string>): Captured {
  const out: string[] = [];
  const err: string[] = [];
  return {
    io: {
      out: (text) => out.push(text + "\n"),
      err: (text) => err.push(text + "\n"),
      write: (text) => out.push(text),
      writeErr: (text) => err.push(text),
      env: (name) => env[name],
    },
    stdout: () => out.join(""),
    stderr: () => err.join(""),
  };
}

function deps(runner: CommandRunner, overrides: Partial<ServiceCommandDeps> = {}) {
  return {
    os: "linux",
    runner,
    execPath: () => "/usr/local/bin/svc",
    mainModule: () => "file:///src/svc/main.ts",
    uid: () => 1000,
    ...overrides,
  };
}

async function withHome(test: (home: string, env: Record<string, string>) => Promise<void>) {
  const home = await tempHome();
  try {
    await test(home, { HOME: home, PATH: "/usr/local/bin:/usr/bin:/bin" });
  } finally {
    await removeTree(home);
  }
}

Deno.test("serviceCommand install on Linux", async (t) => {
  await t.step("--dry-run prints the unit and the commands, and changes nothing", async () => {
    await withHome(async (home, env) => {
      const runner = new FakeRunner();
      const cli = captureIo(env);
      const code = await createServiceCommand(deps(runner)).run(
        ["install", "--dry-run", "--tcp", "127.0.0.1:3000"],
        cli.io,
      );
      assert.equal(code, EXIT.ok, cli.stderr());
      const unitPath = `${home}/.config/systemd/user/svc.service`;
      assert.ok(cli.stdout().startsWith(`Would write ${unitPath} (utf-8, mode 0644):\n`));
      assert.match(
        cli.stdout(),
        /^ExecStart=\/usr\/local\/bin\/svc serve --tcp 127\.0\.0\.1:3000$/m,
      );
      assert.match(cli.stdout(), new RegExp(`^Environment="SVC_HOME=${home}/\\.svc"$`, "m"));
      assert.match(cli.stdout(), /^Environment="PATH=\/usr\/local\/bin:\/usr\/bin:\/bin"$/m);
      assert.ok(
        cli.stdout().endsWith(
          "Would run:\n" +
            "  systemctl --user daemon-reload\n" +
            "  systemctl --user enable svc.service\n" +
            "  systemctl --user restart svc.service\n",
        ),
        cli.stdout(),
      );
      assert.deepEqual(runner.calls, []);
      await assert.rejects(Deno.stat(unitPath), Deno.errors.NotFound);
      await assert.rejects(Deno.stat(`${home}/.svc`), Deno.errors.NotFound);
    });
  });

  await t.step("writes the unit 0644, prepares the home and enables the service", async () => {
    await withHome(async (home, env) => {
      const runner = new FakeRunner();
      const cli = captureIo(env);
      const code = await createServiceCommand(deps(runner)).run(["install"], cli.io);
      assert.equal(code, EXIT.ok, cli.stderr());
      const unitPath = `${home}/.config/systemd/user/svc.service`;
      const unit = await Deno.readTextFile(unitPath);
      assert.match(unit, /^ExecStart=\/usr\/local\/bin\/svc serve$/m);
      assert.equal((await Deno.stat(unitPath)).mode! & 0o777, 0o644);
      assert.equal((await Deno.stat(`${home}/.svc`)).mode! & 0o777, 0o700);
      assert.deepEqual(runner.calls, [
        ["systemctl", "--user", "daemon-reload"],
        ["systemctl", "--user", "enable", "svc.service"],
        ["systemctl", "--user", "restart", "svc.service"],
      ]);
      assert.match(cli.stdout(), /^Wrote .*svc\.service$/m);
      assert.match(cli.stdout(), /^\$ systemctl --user restart svc\.service$/m);
      assert.match(cli.stdout(), /Installed and started the systemd --user unit "svc\.service"/);
      assert.match(cli.stdout(), /loginctl enable-linger/);
    });
  });

  await t.step("--home becomes SVC_HOME; a second install rewrites the unit", async () => {
    await withHome(async (home, env) => {
      const command = createServiceCommand(deps(new FakeRunner()));
      assert.equal(await command.run(["install"], captureIo(env).io), EXIT.ok);
      const cli = captureIo(env);
      const svcHome = `${home}/other home`;
      const code = await command.run(
        ["install", "--home", svcHome, "--tcp", "localhost:9"],
        cli.io,
      );
      assert.equal(code, EXIT.ok, cli.stderr());
      const unit = await Deno.readTextFile(`${home}/.config/systemd/user/svc.service`);
      assert.match(unit, new RegExp(`^Environment="SVC_HOME=${svcHome}"$`, "m"));
      assert.match(unit, /^ExecStart=\/usr\/local\/bin\/svc serve --tcp localhost:9$/m);
    });
  });

  await t.step("no systemctl: the unit is written and the message says what to run", async () => {
    await withHome(async (home, env) => {
      const cli = captureIo(env);
      const runner = new FakeRunner(() => missing);
      const code = await createServiceCommand(deps(runner)).run(["install"], cli.io);
      assert.equal(code, EXIT.refused);
      await Deno.stat(`${home}/.config/systemd/user/svc.service`);
      assert.equal(runner.calls.length, 1);
      assert.match(cli.stderr(), /cannot run "systemctl": "systemctl" is not installed/);
      assert.match(cli.stderr(), /enable it by hand with:\n {2}systemctl --user daemon-reload\n/);
    });
  });

  await t.step("a failing systemctl stops the install with its message", async () => {
    await withHome(async (_home, env) => {
      const cli = captureIo(env);
      const runner = new FakeRunner((argv) =>
        argv.includes("enable") ? ok(1, "", "Failed to connect to bus: No medium found\n") : ok()
      );
      const code = await createServiceCommand(deps(runner)).run(["install"], cli.io);
      assert.equal(code, EXIT.refused);
      assert.equal(runner.calls.length, 2);
      assert.match(
        cli.stderr(),
        /"systemctl --user enable svc\.service" failed \(exit 1\): Failed to connect to bus/,
      );
    });
  });

  await t.step("from source the unit runs deno run -A main.ts, with a note", async () => {
    await withHome(async (_home, env) => {
      const cli = captureIo(env);
      const command = createServiceCommand(
        deps(new FakeRunner(), { execPath: () => "/usr/bin/deno" }),
      );
      assert.equal(await command.run(["install", "--dry-run"], cli.io), EXIT.ok);
      assert.match(cli.stdout(), /^ExecStart=\/usr\/bin\/deno run -A \/src\/svc\/main\.ts serve$/m);
      assert.match(cli.stderr(), /running from source.*for development/);
    });
  });

  await t.step("bad usage and non-loopback --tcp are refused", async () => {
    await withHome(async (_home, env) => {
      const command = createServiceCommand(deps(new FakeRunner()));
      const io = captureIo(env).io;
      await assert.rejects(command.run(["install", "--tcp", "0.0.0.0:3000"], io), ConfigError);
      await assert.rejects(command.run(["install", "--tcp", "nope"], io), ConfigError);
      await assert.rejects(command.run(["install", "--bogus"], io), UsageError);
      await assert.rejects(command.run(["reinstall"], io), UsageError);
      const quoted = createServiceCommand(
        deps(new FakeRunner(), { execPath: () => '/opt/a"b/svc' }),
      );
      await assert.rejects(quoted.run(["install"], io), ConfigError);
      await assert.rejects(command.run([], io), UsageError);
    });
  });
});

Deno.test("serviceCommand uninstall", async (t) => {
  await t.step("--dry-run lists the commands and the file", async () => {
    await withHome(async (home, env) => {
      const runner = new FakeRunner();
      const cli = captureIo(env);
      assert.equal(
        await createServiceCommand(deps(runner)).run(["uninstall", "--dry-run"], cli.io),
        EXIT.ok,
      );
      assert.equal(
        cli.stdout(),
        "Would run:\n" +
          "  systemctl --user disable --now svc.service  (a failure is ignored)\n" +
          `Would remove ${home}/.config/systemd/user/svc.service\n` +
          "Then would run:\n" +
          "  systemctl --user daemon-reload  (a failure is ignored)\n",
      );
      assert.deepEqual(runner.calls, []);
    });
  });

  await t.step("stops, removes the unit and reloads", async () => {
    await withHome(async (home, env) => {
      const runner = new FakeRunner();
      const command = createServiceCommand(deps(runner));
      assert.equal(await command.run(["install"], captureIo(env).io), EXIT.ok);
      runner.calls.length = 0;
      const cli = captureIo(env);
      assert.equal(await command.run(["uninstall"], cli.io), EXIT.ok, cli.stderr());
      assert.deepEqual(runner.calls, [
        ["systemctl", "--user", "disable", "--now", "svc.service"],
        ["systemctl", "--user", "daemon-reload"],
      ]);
      await assert.rejects(
        Deno.stat(`${home}/.config/systemd/user/svc.service`),
        Deno.errors.NotFound,
      );
      assert.match(cli.stdout(), /Uninstalled the systemd --user unit "svc\.service"/);
    });
  });

  await t.step("nothing installed: says so and exits 0", async () => {
    await withHome(async (_home, env) => {
      const runner = new FakeRunner(() => ok(5, "", "Unit file svc.service does not exist."));
      const cli = captureIo(env);
      assert.equal(await createServiceCommand(deps(runner)).run(["uninstall"], cli.io), EXIT.ok);
      assert.match(cli.stdout(), /was not installed/);
    });
  });

  await t.step("no systemctl: the unit is still removed, exit 1 with the reason", async () => {
    await withHome(async (home, env) => {
      const unitPath = `${home}/.config/systemd/user/svc.service`;
      await Deno.mkdir(`${home}/.config/systemd/user`, { recursive: true });
      await Deno.writeTextFile(unitPath, "[Service]\n");
      const cli = captureIo(env);
      const command = createServiceCommand(deps(new FakeRunner(() => missing)));
      assert.equal(await command.run(["uninstall"], cli.io), EXIT.refused);
      await assert.rejects(Deno.stat(unitPath), Deno.errors.NotFound);
      assert.match(cli.stderr(), /cannot run "systemctl"/);
    });
  });
});

Deno.test("serviceCommand status", async (t) => {
  const installed = async (home: string) => {
    await Deno.mkdir(`${home}/.config/systemd/user`, { recursive: true });
    await Deno.writeTextFile(`${home}/.config/systemd/user/svc.service`, "[Service]\n");
  };

  await t.step("not installed: exit 3 without asking systemd", async () => {
    await withHome(async (_home, env) => {
      const runner = new FakeRunner();
      const cli = captureIo(env);
      const code = await createServiceCommand(deps(runner)).run(["status"], cli.io);
      assert.equal(code, EXIT.unreachable);
      assert.match(cli.stdout(), /svc service is not installed/);
      assert.deepEqual(runner.calls, []);
    });
  });

  await t.step("running: prints systemctl status and exits 0", async () => {
    await withHome(async (home, env) => {
      await installed(home);
      const runner = new FakeRunner(() => ok(0, "● svc.service\n     Active: active (running)\n"));
      const cli = captureIo(env);
      assert.equal(await createServiceCommand(deps(runner)).run(["status"], cli.io), EXIT.ok);
      assert.deepEqual(runner.calls, [[
        "systemctl",
        "--user",
        "status",
        "--no-pager",
        "svc.service",
      ]]);
      assert.equal(cli.stdout(), "● svc.service\n     Active: active (running)\n");
    });
  });

  await t.step("stopped: exit 3; no systemctl: exit 1", async () => {
    await withHome(async (home, env) => {
      await installed(home);
      const stopped = new FakeRunner(() => ok(3, "Active: inactive (dead)\n"));
      assert.equal(
        await createServiceCommand(deps(stopped)).run(["status"], captureIo(env).io),
        EXIT.unreachable,
      );
      const cli = captureIo(env);
      const none = new FakeRunner(() => missing);
      assert.equal(await createServiceCommand(deps(none)).run(["status"], cli.io), EXIT.refused);
      assert.match(cli.stderr(), /cannot run "systemctl"/);
    });
  });
});

Deno.test("serviceCommand on macOS writes a LaunchAgent and bootstraps it", async () => {
  await withHome(async (home, env) => {
    const runner = new FakeRunner();
    const cli = captureIo(env);
    const command = createServiceCommand(deps(runner, { os: "darwin", uid: () => 501 }));
    assert.equal(await command.run(["install", "--tcp", "127.0.0.1:3000"], cli.io), EXIT.ok);
    const plistPath = `${home}/Library/LaunchAgents/svc.daemon.plist`;
    const plist = await Deno.readTextFile(plistPath);
    assert.match(plist, /<string>--tcp<\/string>\n {4}<string>127\.0\.0\.1:3000<\/string>/);
    assert.match(plist, new RegExp(`<string>${home}/\\.svc/logs/launchd\\.out\\.log</string>`));
    assert.equal((await Deno.stat(plistPath)).mode! & 0o777, 0o644);
    // launchd does not create the log directory: install prepares the home.
    assert.ok((await Deno.stat(`${home}/.svc/logs`)).isDirectory);
    assert.deepEqual(runner.calls, [
      ["launchctl", "bootout", "gui/501/svc.daemon"],
      ["launchctl", "enable", "gui/501/svc.daemon"],
      ["launchctl", "bootstrap", "gui/501", plistPath],
    ]);

    const running = new FakeRunner(() => ok(0, "gui/501/svc.daemon = {\n\tstate = running\n}\n"));
    const status = createServiceCommand(deps(running, { os: "darwin", uid: () => 501 }));
    assert.equal(await status.run(["status"], captureIo(env).io), EXIT.ok);
    assert.deepEqual(running.calls, [["launchctl", "print", "gui/501/svc.daemon"]]);
  });
});

Deno.test("serviceCommand on Windows --dry-run shows the task XML and schtasks", async () => {
  const runner = new FakeRunner();
  const cli = captureIo({
    USERPROFILE: "C:\\Users\\me",
    USERNAME: "me",
    USERDOMAIN: "PC",
    LOCALAPPDATA: "C:\\Users\\me\\AppData\\Local",
  });
  const command = createServiceCommand(deps(runner, {
    os: "windows",
    execPath: () => "C:\\Program Files\\svc\\svc.exe",
    uid: () => null,
  }));
  const code = await command.run(
    ["install", "--dry-run", "--home", "C:\\Users\\me\\.svc", "--tcp", "127.0.0.1:3000"],
    cli.io,
  );
  assert.equal(code, EXIT.ok, cli.stderr());
  const xmlPath = "C:\\Users\\me\\AppData\\Local\\svc\\svc-task.xml";
  assert.ok(cli.stdout().startsWith(`Would write ${xmlPath} (utf-16le, mode 0644):\n`));
  assert.match(cli.stdout(), /<UserId>PC\\me<\/UserId>/);
  assert.match(cli.stdout(), /<Command>C:\\Program Files\\svc\\svc\.exe<\/Command>/);
  assert.match(
    cli.stdout(),
    /<Arguments>serve --tcp 127\.0\.0\.1:3000 --home C:\\Users\\me\\\.svc<\/Arguments>/,
  );
  assert.ok(
    cli.stdout().endsWith(
      "Would run:\n" +
        '  "C:\\Program Files\\svc\\svc.exe" stop --home C:\\Users\\me\\.svc  (a failure is ignored)\n' +
        `  schtasks /Create /TN svc /XML ${xmlPath} /F\n` +
        "  schtasks /Run /TN svc\n",
    ),
    cli.stdout(),
  );
  assert.deepEqual(runner.calls, []);
});

Deno.test("serviceCommand refuses an unsupported OS", async () => {
  const cli = captureIo({ HOME: "/nonexistent" });
  const command = createServiceCommand(deps(new FakeRunner(), { os: "freebsd" }));
  assert.equal(await command.run(["status"], cli.io), EXIT.refused);
  assert.match(cli.stderr(), /not supported on "freebsd"/);
});
