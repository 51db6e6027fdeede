import assert from "node:assert/strict";
import {
  systemdEnvironmentValue,
  systemdExecLine,
  systemdUnit,
} from "../../src/service/systemd_unit.ts";
import { removeTree } from "../helpers/home.ts";

Deno.test("systemdUnit() writes the whole unit for a sample input", () => {
  const unit = systemdUnit({
    execPath: "/usr/local/bin/svc",
    args: ["serve", "--tcp", "127.0.0.1:3000"],
    home: "/home/me/.svc",
    env: { PATH: "/home/me/.local/bin:/usr/bin:/bin" },
  });
  assert.equal(
    unit,
    `# Written by "svc service install"; run it again rather than editing this file.
[Unit]
Description=svc daemon (coding-agent sessions and automations)

[Service]
Type=simple
Environment="SVC_HOME=/home/me/.svc"
Environment="PATH=/home/me/.local/bin:/usr/bin:/bin"
ExecStart=/usr/local/bin/svc serve --tcp 127.0.0.1:3000
Restart=on-failure
RestartSec=2
RestartPreventExitStatus=2
KillMode=mixed
TimeoutStopSec=30
LimitNOFILE=65536

[Install]
WantedBy=default.target
`,
  );
});

Deno.test("systemdUnit() without extra env sets only SVC_HOME", () => {
  const unit = systemdUnit({ execPath: "/opt/svc", args: ["serve"], home: "/h/.svc" });
  assert.deepEqual(unit.split("\n").filter((line) => line.startsWith("Environment=")), [
    'Environment="SVC_HOME=/h/.svc"',
  ]);
  assert.match(unit, /^ExecStart=\/opt\/svc serve$/m);
});

Deno.test("systemdExecLine() quotes and escapes as systemd reads", async (t) => {
  await t.step("plain words stay bare", () => {
    assert.equal(systemdExecLine("/usr/bin/svc", ["serve"]), "/usr/bin/svc serve");
  });
  await t.step("spaces are double-quoted", () => {
    assert.equal(
      systemdExecLine("/home/me/my tools/svc", ["run", "/src/my repo/main.ts"]),
      '"/home/me/my tools/svc" run "/src/my repo/main.ts"',
    );
  });
  await t.step("% becomes %% everywhere, quoted or not", () => {
    assert.equal(
      systemdExecLine("/opt/100%/svc", ["50%", "a %b"]),
      '/opt/100%%/svc 50%% "a %%b"',
    );
  });
  await t.step("$ becomes $$ in arguments, stays in the executable path", () => {
    assert.equal(
      systemdExecLine("/opt/$app/svc", ["$HOME", "${PATH} x"]),
      '/opt/$app/svc $$HOME "$${PATH} x"',
    );
  });
  await t.step('quotes and backslashes in arguments become \\" and \\\\', () => {
    assert.equal(
      systemdExecLine("/opt/svc", ['say "hi"', "C:\\dir", "it's"]),
      '/opt/svc "say \\"hi\\"" "C:\\\\dir" "it\'s"',
    );
  });
  await t.step("empty and ';' arguments are quoted", () => {
    assert.equal(systemdExecLine("/opt/svc", ["", ";"]), '/opt/svc "" ";"');
  });
  await t.step("refuses what systemd refuses or cannot carry", () => {
    assert.throws(() => systemdExecLine("svc", []), /not an absolute path/);
    assert.throws(() => systemdExecLine('/opt/a"b/svc', []), /refuses an executable path/);
    assert.throws(() => systemdExecLine("/opt/a\\b/svc", []), /refuses an executable path/);
    assert.throws(() => systemdExecLine("/opt/svc", ["a\nb"]), /line break/);
  });
});

Deno.test("systemdEnvironmentValue() quotes, escapes and keeps $ literal", () => {
  assert.equal(systemdEnvironmentValue("SVC_HOME", "/h/my svc"), '"SVC_HOME=/h/my svc"');
  assert.equal(
    systemdEnvironmentValue("SVC_HOME", '/h/%u/$x/"q"\\'),
    '"SVC_HOME=/h/%%u/$x/\\"q\\"\\\\"',
  );
  assert.throws(() => systemdEnvironmentValue("BAD NAME", "x"), /not a variable name/);
});

Deno.test("systemdUnit() passes systemd-analyze verify, special characters included", async (t) => {
  const analyze = await which("systemd-analyze");
  if (analyze === null) {
    console.log("skipped: systemd-analyze is not installed");
    return;
  }
  const dir = await Deno.makeTempDir({ prefix: "svc-unit-" });
  try {
    // An executable behind a path with a space, % and $: systemd must find it.
    const binDir = `${dir}/my bin 100% $HOME`;
    await Deno.mkdir(binDir);
    await Deno.symlink(Deno.execPath(), `${binDir}/svc`);
    const runtimeDir = `${dir}/runtime`;
    await Deno.mkdir(runtimeDir, { mode: 0o700 });
    const verify = async (unit: string) => {
      const unitPath = `${dir}/svc.service`;
      await Deno.writeTextFile(unitPath, unit);
      const output = await new Deno.Command(analyze, {
        args: ["--user", "verify", unitPath],
        env: { XDG_RUNTIME_DIR: runtimeDir },
        stdout: "piped",
        stderr: "piped",
      }).output();
      return { code: output.code, text: new TextDecoder().decode(output.stderr) };
    };

    await t.step("a unit with quoted arguments and environment verifies", async () => {
      const result = await verify(systemdUnit({
        execPath: `${binDir}/svc`,
        args: ["serve", "--tcp", "127.0.0.1:3000", 'a "b" $c %d \\e'],
        home: `${dir}/home with space/%h`,
        env: { PATH: "/usr/local/bin:/usr/bin:/bin" },
      }));
      assert.equal(result.code, 0, result.text);
    });

    await t.step("a wrong executable path is caught (the check is real)", async () => {
      const result = await verify(systemdUnit({
        execPath: `${binDir}/missing`,
        args: ["serve"],
        home: dir,
      }));
      assert.notEqual(result.code, 0);
      assert.match(result.text, /missing/);
    });
  } finally {
    await removeTree(dir);
  }
});

async function which(program: string): Promise<string | null> {
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    try {
      const info = await Deno.stat(`${dir}/${program}`);
      if (info.isFile) return `${dir}/${program}`;
    } catch {
      // not in this directory
    }
  }
  return null;
}
