/**
 * install.sh end to end: fake release files served on 127.0.0.1, the script run by `sh` with a
 * fake `uname` first on PATH (the script has no test-only knobs).
 */
import assert from "node:assert/strict";
import {
  createSandbox,
  INSTALL_SH,
  listDir,
  type RunResult,
  type Sandbox,
  serveRelease,
  writeRelease,
} from "./release_fixture.ts";

/** Runs `sh install.sh` against `base` with extra environment. */
function install(sandbox: Sandbox, base: string, env: Record<string, string> = {}) {
  return sandbox.run(["sh", INSTALL_SH], { SVC_DOWNLOAD_BASE: base, ...env });
}

function assertFailed(result: RunResult, message: RegExp) {
  assert.notEqual(result.code, 0, `expected a failure, got:\n${result.stdout}`);
  assert.match(result.stderr, message);
}

async function installedVersion(sandbox: Sandbox, dir = sandbox.installDir): Promise<string> {
  const result = await sandbox.run([`${dir}/svc`, "--version"]);
  assert.equal(result.code, 0, result.stderr);
  return result.stdout.trim();
}

/** A served root with `latest/download` at `latestVersion` and `download/v0.9.0`. */
async function standardRelease(root: string, latestVersion = "1.0.0") {
  await writeRelease(`${root}/release/latest/download`, latestVersion);
  await writeRelease(`${root}/release/download/v0.9.0`, "0.9.0");
}

Deno.test("install.sh installs the verified binary for each supported platform", async (t) => {
  const platforms = [
    { os: "Linux", arch: "x86_64", target: "x86_64-unknown-linux-gnu" },
    { os: "Linux", arch: "aarch64", target: "aarch64-unknown-linux-gnu" },
    { os: "Darwin", arch: "x86_64", target: "x86_64-apple-darwin" },
    { os: "Darwin", arch: "arm64", target: "aarch64-apple-darwin" },
  ];
  for (const { os, arch, target } of platforms) {
    await t.step(`${os} ${arch} gets svc-${target}`, async () => {
      await using sandbox = await createSandbox();
      await standardRelease(sandbox.root);
      await using server = serveRelease(sandbox.root);
      await sandbox.setPlatform(os, arch);

      const result = await install(sandbox, `${server.base}/release`);

      assert.equal(result.code, 0, result.stderr);
      assert.deepEqual(server.requests, [
        `/release/latest/download/svc-${target}`,
        "/release/latest/download/SHA256SUMS",
      ]);
      const mode = (await Deno.stat(`${sandbox.installDir}/svc`)).mode! & 0o777;
      assert.equal(mode, 0o755);
      assert.equal(await installedVersion(sandbox), "svc 1.0.0 (svc.daemon.v1)");
      assert.deepEqual(await listDir(sandbox.installDir), ["svc"]);
      assert.deepEqual(await listDir(sandbox.tmp), [], "the staging directory is removed");
      assert.match(result.stdout, /Installed svc 1\.0\.0 \(svc\.daemon\.v1\) to /);
      assert.ok(
        result.stdout.includes(`export PATH="${sandbox.installDir}:$PATH"`),
        result.stdout,
      );
    });
  }

  await t.step("Darwin x86_64 under Rosetta gets the native arm64 build", async () => {
    await using sandbox = await createSandbox();
    await standardRelease(sandbox.root);
    await using server = serveRelease(sandbox.root);
    await sandbox.setPlatform("Darwin", "x86_64");
    await sandbox.addProgram("sysctl", 'test "$2" = sysctl.proc_translated && echo 1');

    const result = await install(sandbox, `${server.base}/release`);

    assert.equal(result.code, 0, result.stderr);
    assert.equal(server.requests[0], "/release/latest/download/svc-aarch64-apple-darwin");
  });
});

Deno.test("install.sh honours SVC_INSTALL_DIR and skips the PATH hint when it is on PATH", async () => {
  await using sandbox = await createSandbox();
  await standardRelease(sandbox.root);
  await using server = serveRelease(sandbox.root);
  const dir = `${sandbox.root}/custom/bin`;

  const result = await sandbox.run(["sh", INSTALL_SH], {
    SVC_DOWNLOAD_BASE: `${server.base}/release/`,
    SVC_INSTALL_DIR: dir,
  }, { path: `${dir}:${Deno.env.get("PATH")}` });

  assert.equal(result.code, 0, result.stderr);
  assert.equal(await installedVersion(sandbox, dir), "svc 1.0.0 (svc.daemon.v1)");
  assert.deepEqual(await listDir(sandbox.installDir), [], "the default directory is not used");
  assert.doesNotMatch(result.stdout, /export PATH/);
});

Deno.test("install.sh creates the default ~/.svc private, as the daemon's home needs", async () => {
  await using sandbox = await createSandbox();
  await standardRelease(sandbox.root);
  await using server = serveRelease(sandbox.root);

  const result = await sandbox.run(["sh", "-c", 'umask 002 && exec sh "$0"', INSTALL_SH], {
    SVC_DOWNLOAD_BASE: `${server.base}/release`,
  });

  assert.equal(result.code, 0, result.stderr);
  assert.equal((await Deno.stat(`${sandbox.home}/.svc`)).mode! & 0o777, 0o700);
  assert.equal((await Deno.stat(`${sandbox.home}/.svc/bin/svc`)).mode! & 0o777, 0o755);
});

Deno.test("install.sh upgrades in place on a re-run", async () => {
  await using sandbox = await createSandbox();
  await standardRelease(sandbox.root);
  await using server = serveRelease(sandbox.root);
  const first = await install(sandbox, `${server.base}/release`);
  assert.equal(first.code, 0, first.stderr);
  assert.doesNotMatch(first.stdout, /restart/);

  await writeRelease(`${sandbox.root}/release/latest/download`, "1.1.0");
  const second = await install(sandbox, `${server.base}/release`);

  assert.equal(second.code, 0, second.stderr);
  assert.equal(await installedVersion(sandbox), "svc 1.1.0 (svc.daemon.v1)");
  assert.deepEqual(await listDir(sandbox.installDir), ["svc"]);
  assert.match(second.stdout, /keeps the previous version until restarted/);
});

Deno.test("install.sh pins a release with SVC_VERSION", async (t) => {
  await using sandbox = await createSandbox();
  await standardRelease(sandbox.root);
  await using server = serveRelease(sandbox.root);

  for (const version of ["0.9.0", "v0.9.0"]) {
    await t.step(`SVC_VERSION=${version} fetches download/v0.9.0`, async () => {
      server.requests.length = 0;
      const result = await install(sandbox, `${server.base}/release`, { SVC_VERSION: version });
      assert.equal(result.code, 0, result.stderr);
      assert.deepEqual(server.requests, [
        "/release/download/v0.9.0/svc-x86_64-unknown-linux-gnu",
        "/release/download/v0.9.0/SHA256SUMS",
      ]);
      assert.equal(await installedVersion(sandbox), "svc 0.9.0 (svc.daemon.v1)");
    });
  }

  await t.step("a value that is not a version is refused before any download", async () => {
    server.requests.length = 0;
    const result = await install(sandbox, `${server.base}/release`, { SVC_VERSION: "../../x" });
    assertFailed(result, /SVC_VERSION "\.\.\/\.\.\/x" is not a version such as 0\.2\.0/);
    assert.deepEqual(server.requests, []);
  });
});

Deno.test("install.sh refuses a checksum mismatch and installs nothing", async (t) => {
  await t.step("a fresh install creates no install directory", async () => {
    await using sandbox = await createSandbox();
    await writeRelease(`${sandbox.root}/release/latest/download`, "1.0.0", {
      sums: (text) => text.replace(/^[0-9a-f]{8}/gm, "00000000"),
    });
    await using server = serveRelease(sandbox.root);

    const result = await install(sandbox, `${server.base}/release`);

    assertFailed(result, /Checksum mismatch for "svc-x86_64-unknown-linux-gnu": expected 0{8}/);
    assert.match(result.stderr, /nothing was installed/);
    assert.deepEqual(await listDir(`${sandbox.home}/.svc`), []);
    assert.deepEqual(await listDir(sandbox.tmp), []);
  });

  await t.step("an upgrade leaves the previous binary untouched", async () => {
    await using sandbox = await createSandbox();
    await standardRelease(sandbox.root);
    await using server = serveRelease(sandbox.root);
    assert.equal((await install(sandbox, `${server.base}/release`)).code, 0);
    const before = await Deno.stat(`${sandbox.installDir}/svc`);

    const tampered = `${sandbox.root}/release/latest/download/svc-x86_64-unknown-linux-gnu`;
    await Deno.writeTextFile(tampered, '#!/bin/sh\necho "svc 6.6.6 (tampered)"\n');
    const result = await install(sandbox, `${server.base}/release`);

    assertFailed(result, /Checksum mismatch/);
    assert.equal(await installedVersion(sandbox), "svc 1.0.0 (svc.daemon.v1)");
    const after = await Deno.stat(`${sandbox.installDir}/svc`);
    assert.equal(after.ino, before.ino);
    assert.deepEqual(await listDir(sandbox.installDir), ["svc"]);
  });

  await t.step("a SHA256SUMS without the asset's entry is refused", async () => {
    await using sandbox = await createSandbox();
    await writeRelease(`${sandbox.root}/release/latest/download`, "1.0.0", {
      sums: (text) => text.split("\n").filter((l) => !l.includes("linux")).join("\n"),
    });
    await using server = serveRelease(sandbox.root);

    const result = await install(sandbox, `${server.base}/release`);

    assertFailed(result, /SHA256SUMS from .* has no entry for "svc-x86_64-unknown-linux-gnu"/);
    assert.deepEqual(await listDir(`${sandbox.home}/.svc`), []);
  });
});

Deno.test("install.sh refuses unsupported platforms with a clear message", async (t) => {
  const cases = [
    { os: "FreeBSD", arch: "amd64", message: /Unsupported operating system "FreeBSD"/ },
    { os: "Linux", arch: "riscv64", message: /Unsupported architecture "riscv64" on Linux/ },
    { os: "Linux", arch: "armv7l", message: /Unsupported architecture "armv7l" on Linux/ },
    { os: "MINGW64_NT-10.0-19045", arch: "x86_64", message: /on Windows use install\.ps1/ },
  ];
  for (const { os, arch, message } of cases) {
    await t.step(`${os} ${arch}`, async () => {
      await using sandbox = await createSandbox();
      await standardRelease(sandbox.root);
      await using server = serveRelease(sandbox.root);
      await sandbox.setPlatform(os, arch);

      const result = await install(sandbox, `${server.base}/release`);

      assertFailed(result, message);
      assert.deepEqual(server.requests, [], "nothing is downloaded");
      assert.deepEqual(await listDir(sandbox.home), []);
    });
  }
});

Deno.test("install.sh reports a missing download and installs nothing", async () => {
  await using sandbox = await createSandbox();
  await standardRelease(sandbox.root);
  await using server = serveRelease(sandbox.root);

  const result = await install(sandbox, `${server.base}/release`, { SVC_VERSION: "9.9.9" });

  const url = `${server.base}/release/download/v9.9.9/svc-x86_64-unknown-linux-gnu`;
  assertFailed(result, /Cannot download "[^"]+": check SVC_DOWNLOAD_BASE and SVC_VERSION/);
  assert.ok(result.stderr.includes(`"${url}"`), result.stderr);
  assert.deepEqual(await listDir(sandbox.home), []);
  assert.deepEqual(await listDir(sandbox.tmp), []);
});

Deno.test("install.sh requires a usable SVC_DOWNLOAD_BASE", async (t) => {
  await using sandbox = await createSandbox();

  await t.step("unset: there is no default release host yet", async () => {
    const result = await sandbox.run(["sh", INSTALL_SH]);
    assertFailed(result, /SVC_DOWNLOAD_BASE is not set: svc has no public release host yet/);
  });

  await t.step("plain http is refused off loopback", async () => {
    const result = await install(sandbox, "http://releases.example.invalid/svc");
    assertFailed(result, /SVC_DOWNLOAD_BASE must be an https:\/\/ URL/);
  });
});

Deno.test("install.sh works as `curl -fsSL <url>/install.sh | sh`", async () => {
  await using sandbox = await createSandbox();
  await standardRelease(sandbox.root);
  await Deno.copyFile(INSTALL_SH, `${sandbox.root}/release/install.sh`);
  await using server = serveRelease(sandbox.root);
  const base = `${server.base}/release`;

  const result = await sandbox.run(
    ["sh", "-c", 'curl -fsSL "$SVC_DOWNLOAD_BASE/install.sh" | sh'],
    { SVC_DOWNLOAD_BASE: base },
  );

  assert.equal(result.code, 0, result.stderr);
  assert.equal(await installedVersion(sandbox), "svc 1.0.0 (svc.daemon.v1)");
});

const FALLBACK_TOOLS = ["wget", "shasum"];
const missingFallbacks = FALLBACK_TOOLS.filter((tool) => !which(tool));

Deno.test({
  name: `install.sh falls back to wget and shasum without curl and sha256sum${
    missingFallbacks.length ? ` (skipped: ${missingFallbacks.join(", ")} not installed)` : ""
  }`,
  ignore: missingFallbacks.length > 0,
  async fn() {
    await using sandbox = await createSandbox();
    await standardRelease(sandbox.root);
    await using server = serveRelease(sandbox.root);
    // A PATH that holds only what install.sh needs, with wget and shasum but no curl or sha256sum.
    const tools = `${sandbox.root}/tools`;
    await Deno.mkdir(tools);
    const needed = ["sh", "mktemp", "rm", "awk", "cut", "tr", "cp", "chmod", "mv", "mkdir", "perl"];
    for (const tool of [...needed, ...FALLBACK_TOOLS]) {
      await Deno.symlink(which(tool)!, `${tools}/${tool}`);
    }

    const result = await sandbox.run(["sh", INSTALL_SH], {
      SVC_DOWNLOAD_BASE: `${server.base}/release`,
    }, { path: tools });

    assert.equal(result.code, 0, result.stderr);
    assert.equal(await installedVersion(sandbox), "svc 1.0.0 (svc.daemon.v1)");
    assert.equal(server.requests.length, 2);
  },
});

const shellcheck = which("shellcheck");

Deno.test({
  name: `install.sh passes shellcheck${
    shellcheck ? "" : " (skipped: shellcheck is not installed; apt-get install shellcheck)"
  }`,
  ignore: shellcheck === undefined,
  async fn() {
    const output = await new Deno.Command(shellcheck!, {
      args: ["--shell=sh", "--severity=style", INSTALL_SH],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(output.stdout) + new TextDecoder().decode(output.stderr);
    assert.equal(output.code, 0, text);
  },
});

/** The absolute path of a program on PATH, or undefined. */
function which(program: string): string | undefined {
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    if (!dir) continue;
    try {
      const path = `${dir}/${program}`;
      if (Deno.statSync(path).isFile) return path;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}
