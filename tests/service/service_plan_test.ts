import assert from "node:assert/strict";
import {
  encodeServiceFile,
  formatCommandLine,
  servicePlan,
  type ServicePlanInput,
  serviceProgram,
  statusIsRunning,
} from "../../src/service/service_plan.ts";

const COMPILED = { execPath: "/usr/local/bin/svc", args: [], fromSource: false };

const argvOf = (steps: readonly { argv: readonly string[] }[]) => steps.map((s) => s.argv);

Deno.test("serviceProgram() picks the compiled svc or deno run from source", async (t) => {
  await t.step("an executable named svc runs itself", () => {
    assert.deepEqual(serviceProgram("/usr/local/bin/svc", "/src/main.ts"), COMPILED);
    assert.deepEqual(serviceProgram("C:\\bin\\SVC.exe", "C:\\src\\main.ts"), {
      execPath: "C:\\bin\\SVC.exe",
      args: [],
      fromSource: false,
    });
    assert.equal(serviceProgram("/opt/svc-x86_64-linux", "/m.ts").fromSource, false);
  });
  await t.step("deno runs the main module with -A", () => {
    assert.deepEqual(serviceProgram("/usr/bin/deno", "/work/svc/main.ts"), {
      execPath: "/usr/bin/deno",
      args: ["run", "-A", "/work/svc/main.ts"],
      fromSource: true,
    });
  });
});

Deno.test("servicePlan() on Linux: a systemd --user unit and systemctl", async (t) => {
  const input: ServicePlanInput = {
    os: "linux",
    homeDir: "/home/me",
    program: COMPILED,
    svcHome: "/home/me/.svc",
    tcp: "127.0.0.1:3000",
    path: "/usr/bin:/bin",
  };
  const plan = servicePlan(input);

  await t.step("the unit lives in ~/.config/systemd/user", () => {
    assert.equal(plan.file.path, "/home/me/.config/systemd/user/svc.service");
    assert.equal(plan.file.encoding, "utf-8");
    assert.match(
      plan.file.content,
      /^ExecStart=\/usr\/local\/bin\/svc serve --tcp 127\.0\.0\.1:3000$/m,
    );
    assert.match(plan.file.content, /^Environment="SVC_HOME=\/home\/me\/\.svc"$/m);
    assert.match(plan.file.content, /^Environment="PATH=\/usr\/bin:\/bin"$/m);
    assert.match(plan.file.content, /^Restart=on-failure$/m);
  });
  await t.step("$XDG_CONFIG_HOME moves it", () => {
    const moved = servicePlan({ ...input, xdgConfigHome: "/cfg" });
    assert.equal(moved.file.path, "/cfg/systemd/user/svc.service");
  });
  await t.step("install reloads, enables and restarts", () => {
    assert.deepEqual(argvOf(plan.install), [
      ["systemctl", "--user", "daemon-reload"],
      ["systemctl", "--user", "enable", "svc.service"],
      ["systemctl", "--user", "restart", "svc.service"],
    ]);
    assert.ok(plan.install.every((step) => !step.mayFail));
  });
  await t.step("uninstall disables and stops, then reloads", () => {
    assert.deepEqual(argvOf(plan.uninstall), [
      ["systemctl", "--user", "disable", "--now", "svc.service"],
    ]);
    assert.deepEqual(argvOf(plan.afterRemove), [["systemctl", "--user", "daemon-reload"]]);
    assert.deepEqual(plan.status, ["systemctl", "--user", "status", "--no-pager", "svc.service"]);
  });
  await t.step("without --tcp the daemon only serves its socket", () => {
    const plain = servicePlan({ ...input, tcp: null });
    assert.match(plain.file.content, /^ExecStart=\/usr\/local\/bin\/svc serve$/m);
  });
  await t.step("from source the unit runs deno run -A main.ts serve", () => {
    const source = servicePlan({
      ...input,
      program: serviceProgram("/usr/bin/deno", "/src/my svc/main.ts"),
    });
    assert.match(
      source.file.content,
      /^ExecStart=\/usr\/bin\/deno run -A "\/src\/my svc\/main\.ts" serve --tcp 127\.0\.0\.1:3000$/m,
    );
  });
});

Deno.test("servicePlan() on macOS: a LaunchAgent and launchctl", async (t) => {
  const plan = servicePlan({
    os: "darwin",
    homeDir: "/Users/me",
    program: COMPILED,
    svcHome: "/Users/me/.svc",
    tcp: "[::1]:3000",
    uid: 501,
  });

  await t.step("the plist lives in ~/Library/LaunchAgents, logs in the home", () => {
    assert.equal(plan.file.path, "/Users/me/Library/LaunchAgents/svc.daemon.plist");
    assert.match(plan.file.content, /<string>svc\.daemon<\/string>/);
    assert.match(plan.file.content, /<string>--tcp<\/string>\n {4}<string>\[::1\]:3000<\/string>/);
    assert.match(
      plan.file.content,
      /<string>\/Users\/me\/\.svc\/logs\/launchd\.err\.log<\/string>/,
    );
  });
  await t.step("install unloads any old job, enables and bootstraps in gui/<uid>", () => {
    assert.deepEqual(argvOf(plan.install), [
      ["launchctl", "bootout", "gui/501/svc.daemon"],
      ["launchctl", "enable", "gui/501/svc.daemon"],
      ["launchctl", "bootstrap", "gui/501", "/Users/me/Library/LaunchAgents/svc.daemon.plist"],
    ]);
    assert.deepEqual(plan.install.map((step) => step.mayFail), [true, false, false]);
  });
  await t.step("uninstall boots it out; status prints it", () => {
    assert.deepEqual(argvOf(plan.uninstall), [["launchctl", "bootout", "gui/501/svc.daemon"]]);
    assert.deepEqual(plan.afterRemove, []);
    assert.deepEqual(plan.status, ["launchctl", "print", "gui/501/svc.daemon"]);
  });
  await t.step("a plan needs the uid", () => {
    assert.throws(
      () =>
        servicePlan({
          os: "darwin",
          homeDir: "/Users/me",
          program: COMPILED,
          svcHome: "/x",
          tcp: null,
        }),
      /user id/,
    );
  });
});

Deno.test("servicePlan() on Windows: a logon Scheduled Task and schtasks", async (t) => {
  const program = { execPath: "C:\\svc\\svc.exe", args: [], fromSource: false };
  const plan = servicePlan({
    os: "windows",
    homeDir: "C:\\Users\\me",
    program,
    svcHome: "C:\\Users\\me\\.svc",
    tcp: "127.0.0.1:3000",
    user: "PC\\me",
  });
  const xmlPath = "C:\\Users\\me\\AppData\\Local\\svc\\svc-task.xml";

  await t.step("the task XML is UTF-16, kept in %LOCALAPPDATA%\\svc", () => {
    assert.equal(plan.file.path, xmlPath);
    assert.equal(plan.file.encoding, "utf-16le");
    assert.match(plan.file.content, /<UserId>PC\\me<\/UserId>/);
    assert.match(
      plan.file.content,
      /<Arguments>serve --tcp 127\.0\.0\.1:3000 --home C:\\Users\\me\\\.svc<\/Arguments>/,
    );
  });
  await t.step("install stops the old daemon, registers and runs the task", () => {
    assert.deepEqual(argvOf(plan.install), [
      ["C:\\svc\\svc.exe", "stop", "--home", "C:\\Users\\me\\.svc"],
      ["schtasks", "/Create", "/TN", "svc", "/XML", xmlPath, "/F"],
      ["schtasks", "/Run", "/TN", "svc"],
    ]);
    assert.deepEqual(plan.install.map((step) => step.mayFail), [true, false, false]);
  });
  await t.step("uninstall stops gracefully, ends and deletes the task", () => {
    assert.deepEqual(argvOf(plan.uninstall), [
      ["C:\\svc\\svc.exe", "stop", "--home", "C:\\Users\\me\\.svc"],
      ["schtasks", "/End", "/TN", "svc"],
      ["schtasks", "/Delete", "/TN", "svc", "/F"],
    ]);
    assert.deepEqual(plan.status, ["schtasks", "/Query", "/TN", "svc", "/FO", "LIST", "/V"]);
  });
  await t.step("%LOCALAPPDATA% moves the XML; a plan needs the user", () => {
    const moved = servicePlan({
      os: "windows",
      homeDir: "C:\\Users\\me",
      program,
      svcHome: "C:\\h",
      tcp: null,
      user: "me",
      localAppData: "D:\\Local",
    });
    assert.equal(moved.file.path, "D:\\Local\\svc\\svc-task.xml");
    assert.throws(
      () =>
        servicePlan({
          os: "windows",
          homeDir: "C:\\Users\\me",
          program,
          svcHome: "C:\\h",
          tcp: null,
        }),
      /user name/,
    );
  });
});

Deno.test("statusIsRunning() reads each service manager's answer", () => {
  assert.equal(statusIsRunning("linux", 0, "● svc.service\n   Active: active (running)"), true);
  assert.equal(statusIsRunning("linux", 3, "Active: inactive (dead)"), false);
  assert.equal(statusIsRunning("darwin", 0, "gui/501/svc.daemon = {\n\tstate = running\n"), true);
  assert.equal(statusIsRunning("darwin", 0, "\tstate = not running\n"), false);
  assert.equal(statusIsRunning("darwin", 113, ""), false);
  assert.equal(statusIsRunning("windows", 0, "TaskName:  \\svc\r\nStatus:    Running\r\n"), true);
  assert.equal(statusIsRunning("windows", 0, "Status:    Ready\r\n"), false);
});

Deno.test("encodeServiceFile() writes UTF-8, or UTF-16LE with a BOM", () => {
  assert.deepEqual(
    encodeServiceFile({ path: "x", content: "é", encoding: "utf-8" }),
    new Uint8Array([0xc3, 0xa9]),
  );
  assert.deepEqual(
    encodeServiceFile({ path: "x", content: "<é", encoding: "utf-16le" }),
    new Uint8Array([0xff, 0xfe, 0x3c, 0x00, 0xe9, 0x00]),
  );
});

Deno.test("formatCommandLine() quotes for a POSIX shell or a Windows command line", () => {
  assert.equal(
    formatCommandLine(["launchctl", "bootstrap", "gui/501", "/Users/me/My Apps/x.plist"], "darwin"),
    "launchctl bootstrap gui/501 '/Users/me/My Apps/x.plist'",
  );
  assert.equal(formatCommandLine(["echo", "it's"], "linux"), "echo 'it'\\''s'");
  assert.equal(
    formatCommandLine(["schtasks", "/XML", "C:\\My Dir\\t.xml"], "windows"),
    'schtasks /XML "C:\\My Dir\\t.xml"',
  );
});
