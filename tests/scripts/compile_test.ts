/** The pure parts of scripts/compile.ts, and its failure when denort cannot be downloaded. */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  binaryName,
  compileArgs,
  ENV_VARS,
  explainCompileFailure,
  isDenortDownloadFailure,
  isTarget,
  PERMISSION_FLAGS,
  sha256File,
  SHA256SUMS,
  sha256sumsLine,
  sha256sumsText,
  TARGETS,
} from "../../scripts/compile.ts";
import { REPO_ROOT } from "../../scripts/stamp_version.ts";

/** deno compile 2.9.6's output without network (captured on a build machine, colours kept). */
const DENORT_DNS_FAILURE = [
  "\x1b[0m\x1b[32mCheck\x1b[0m main.ts",
  "\x1b[0m\x1b[32mCompile\x1b[0m main.ts to dist/svc-x86_64-unknown-linux-gnu",
  "\x1b[0m\x1b[32mDownload\x1b[0m https://dl.deno.land/release/v2.9.6/denort-x86_64-unknown-linux-gnu.zip",
  "\x1b[0m\x1b[1m\x1b[31merror\x1b[0m: Writing deno compile executable to temporary file " +
  "'dist/svc-x86_64-unknown-linux-gnu.tmp-80c1dbb11a2bb2a1'",
  "",
  "Caused by:",
  "    0: Setting up base binary.",
  "    1: error sending request for url (https://dl.deno.land/release/v2.9.6/denort-x86_64-" +
  "unknown-linux-gnu.zip): client error (Connect): dns error: failed to lookup address " +
  "information: Name or service not known",
  "    2: client error (Connect)",
  "    3: dns error",
  "    4: failed to lookup address information: Name or service not known",
  "",
  "Stack backtrace:",
  "   0: <unknown>",
].join("\n");

const TYPE_ERROR = [
  "Check main.ts",
  "TS2322 [ERROR]: Type 'number' is not assignable to type 'string'.",
  "    at file:///tmp/svc-build-x/src/version.ts:1:14",
  "",
  "error: Type checking failed.",
  "",
  "Stack backtrace:",
  "   0: <unknown>",
].join("\n");

Deno.test("TARGETS are the five release targets; binary names follow svc-<target>[.exe]", () => {
  assert.deepEqual([...TARGETS], [
    "x86_64-unknown-linux-gnu",
    "aarch64-unknown-linux-gnu",
    "x86_64-apple-darwin",
    "aarch64-apple-darwin",
    "x86_64-pc-windows-msvc",
  ]);
  assert.deepEqual(TARGETS.map(binaryName), [
    "svc-x86_64-unknown-linux-gnu",
    "svc-aarch64-unknown-linux-gnu",
    "svc-x86_64-apple-darwin",
    "svc-aarch64-apple-darwin",
    "svc-x86_64-pc-windows-msvc.exe",
  ]);
  assert.ok(isTarget("aarch64-apple-darwin"));
  assert.ok(!isTarget("x86_64-unknown-linux-musl"));
});

Deno.test("the permission flags are explicit (no -A) and the env list is what the daemon reads", () => {
  assert.deepEqual([...PERMISSION_FLAGS], [
    "--no-prompt",
    "--allow-read",
    "--allow-write",
    "--allow-run",
    "--allow-net",
    "--allow-sys",
    "--allow-env=HOME,SVC_HOME,SVC_CONTEXT,CODEX_HOME,PATH,PATHEXT,USERPROFILE,NO_COLOR,TZ,USERNAME,USERDOMAIN,XDG_CONFIG_HOME,LOCALAPPDATA,APPDATA,INIT_CWD,PAGER,LESS,NODE_ENV,DEV,TERM,TERM_PROGRAM,TERM_PROGRAM_VERSION,COLORTERM,FORCE_COLOR,TMUX,CI,CONTINUOUS_INTEGRATION,CI_NAME,TF_BUILD,AGENT_NAME,TEAMCITY_VERSION,GITHUB_ACTIONS,GITEA_ACTIONS,CIRCLECI,TRAVIS,APPVEYOR,GITLAB_CI,BUILDKITE,DRONE,INK_SCREEN_READER,EDITOR_URL,GEMINI_CLI_HOME,XDG_DATA_HOME,ANTHROPIC_API_KEY,ANTHROPIC_AUTH_TOKEN,CLAUDE_CODE_OAUTH_TOKEN,CLAUDE_CONFIG_DIR,ANTHROPIC_BASE_URL,CLAUDE_CODE_USE_BEDROCK,CLAUDE_CODE_USE_VERTEX,OPENAI_API_KEY,OPENAI_BASE_URL,GEMINI_API_KEY,GOOGLE_API_KEY,GOOGLE_APPLICATION_CREDENTIALS,GOOGLE_GEMINI_BASE_URL,OPENCODE_CONFIG_CONTENT,OPENCODE_CONFIG,OPENROUTER_API_KEY,GOOGLE_GENERATIVE_AI_API_KEY",
  ]);
  for (const name of ["HOME", "SVC_HOME", "CODEX_HOME", "PATH", "PATHEXT", "USERPROFILE"]) {
    assert.ok(ENV_VARS.includes(name), name);
  }
  const forbidden = /^(-A|--allow-all|--allow-ffi|--allow-import|--allow-env$)/;
  assert.deepEqual(PERMISSION_FLAGS.filter((flag) => forbidden.test(flag)), []);
});

/** The names src/ passes as literals to `Deno.env.get(…)` or an `env(…)` function. */
async function envNamesReadBySource(dir: string): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) {
      for (const [name, file] of await envNamesReadBySource(path)) names.set(name, file);
    } else if (/\.tsx?$/.test(entry.name)) {
      const code = await Deno.readTextFile(path);
      for (const call of code.matchAll(/(?:Deno\.env\.get|\benv)\(([^()]*)\)/g)) {
        for (const literal of call[1].matchAll(/["']([A-Z_][A-Z0-9_]*)["']/g)) {
          names.set(literal[1], path);
        }
      }
    }
  }
  return names;
}

Deno.test("--allow-env lists every variable src/ reads (the binaries cannot read others)", async () => {
  const read = await envNamesReadBySource(join(REPO_ROOT, "src"));
  assert.ok(read.has("SVC_HOME") && read.has("PATH"), [...read.keys()].join(", "));
  const missing = [...read].filter(([name]) => !ENV_VARS.includes(name));
  assert.deepEqual(missing, [], "add these to ENV_VARS in scripts/compile.ts and docs/release.md");
});

Deno.test("compileArgs: one deno compile per target into outDir/svc-<target>[.exe]", () => {
  assert.deepEqual(compileArgs("x86_64-unknown-linux-gnu", { outDir: "/repo/dist" }), [
    "compile",
    "--no-prompt",
    "--allow-read",
    "--allow-write",
    "--allow-run",
    "--allow-net",
    "--allow-sys",
    "--allow-env=HOME,SVC_HOME,SVC_CONTEXT,CODEX_HOME,PATH,PATHEXT,USERPROFILE,NO_COLOR,TZ,USERNAME,USERDOMAIN,XDG_CONFIG_HOME,LOCALAPPDATA,APPDATA,INIT_CWD,PAGER,LESS,NODE_ENV,DEV,TERM,TERM_PROGRAM,TERM_PROGRAM_VERSION,COLORTERM,FORCE_COLOR,TMUX,CI,CONTINUOUS_INTEGRATION,CI_NAME,TF_BUILD,AGENT_NAME,TEAMCITY_VERSION,GITHUB_ACTIONS,GITEA_ACTIONS,CIRCLECI,TRAVIS,APPVEYOR,GITLAB_CI,BUILDKITE,DRONE,INK_SCREEN_READER,EDITOR_URL,GEMINI_CLI_HOME,XDG_DATA_HOME,ANTHROPIC_API_KEY,ANTHROPIC_AUTH_TOKEN,CLAUDE_CODE_OAUTH_TOKEN,CLAUDE_CONFIG_DIR,ANTHROPIC_BASE_URL,CLAUDE_CODE_USE_BEDROCK,CLAUDE_CODE_USE_VERTEX,OPENAI_API_KEY,OPENAI_BASE_URL,GEMINI_API_KEY,GOOGLE_API_KEY,GOOGLE_APPLICATION_CREDENTIALS,GOOGLE_GEMINI_BASE_URL,OPENCODE_CONFIG_CONTENT,OPENCODE_CONFIG,OPENROUTER_API_KEY,GOOGLE_GENERATIVE_AI_API_KEY",
    "--target",
    "x86_64-unknown-linux-gnu",
    "--output",
    "/repo/dist/svc-x86_64-unknown-linux-gnu",
    "main.ts",
  ]);
  for (const target of TARGETS) {
    const args = compileArgs(target, { outDir: "out" });
    assert.equal(args[0], "compile");
    assert.equal(args[args.indexOf("--target") + 1], target);
    assert.equal(args[args.indexOf("--output") + 1], join("out", binaryName(target)));
    assert.equal(args.at(-1), "main.ts");
    assert.deepEqual(args.slice(1, 1 + PERMISSION_FLAGS.length), [...PERMISSION_FLAGS]);
    // Type-checked: with deno.json's lazy-dynamic-imports, only a checked build follows every
    // `import("…")` (the daemon, the terminal UI) into the binary (docs/release.md).
    assert.ok(!args.includes("--no-check"));
  }
  assert.equal(compileArgs("aarch64-apple-darwin", { outDir: "d", entry: "x.ts" }).at(-1), "x.ts");
});

Deno.test("SHA256SUMS lines are sha256sum's `<hex>  <file>`", async () => {
  const hex = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
  assert.equal(sha256sumsLine(hex, "svc-x86_64-apple-darwin"), `${hex}  svc-x86_64-apple-darwin`);
  assert.throws(() => sha256sumsLine(hex.toUpperCase(), "f"), /SHA-256/);
  assert.throws(() => sha256sumsLine(hex.slice(1), "f"), /SHA-256/);
  assert.throws(() => sha256sumsLine(hex, "a\nb"), /newline/);
  const other = "0".repeat(64);
  assert.equal(
    sha256sumsText([[hex, "svc-x86_64-pc-windows-msvc.exe"], [other, "svc-aarch64-apple-darwin"]]),
    `${other}  svc-aarch64-apple-darwin\n${hex}  svc-x86_64-pc-windows-msvc.exe\n`,
  );

  const dir = await Deno.makeTempDir({ prefix: "svc-sums-" });
  try {
    await Deno.writeTextFile(join(dir, "abc"), "abc");
    assert.equal(await sha256File(join(dir, "abc")), hex);
    // Cross-check the format with sha256sum -c where coreutils exist.
    await Deno.writeTextFile(join(dir, SHA256SUMS), sha256sumsText([[hex, "abc"]]));
    let check: Deno.CommandOutput | null = null;
    try {
      check = await new Deno.Command("sha256sum", {
        args: ["-c", SHA256SUMS],
        cwd: dir,
        stdout: "piped",
        stderr: "piped",
      }).output();
    } catch { /* no sha256sum on this machine */ }
    if (check) assert.equal(new TextDecoder().decode(check.stdout), "abc: OK\n");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a denort download failure becomes one clear line naming the cause", () => {
  assert.ok(isDenortDownloadFailure(DENORT_DNS_FAILURE));
  assert.equal(
    explainCompileFailure("x86_64-unknown-linux-gnu", DENORT_DNS_FAILURE),
    "deno compile could not download its runtime (denort) for x86_64-unknown-linux-gnu: " +
      "no network access to dl.deno.land (failed to lookup address information: Name or " +
      "service not known); build releases on a machine with internet access (docs/release.md)",
  );
  const refused = "error: Writing deno compile executable to temporary file 'x'\n\nCaused by:\n" +
    "    0: Setting up base binary.\n" +
    "    1: error sending request for url (https://dl.deno.land/release/v2.9.6/denort-" +
    "aarch64-apple-darwin.zip): client error (Connect): Connection refused (os error 111)\n";
  assert.match(
    explainCompileFailure("aarch64-apple-darwin", refused),
    /^deno compile could not download its runtime \(denort\) for aarch64-apple-darwin: .*Connection refused/,
  );
});

Deno.test("other deno compile failures keep deno's message, without the backtrace", () => {
  assert.ok(!isDenortDownloadFailure(TYPE_ERROR));
  const message = explainCompileFailure("x86_64-apple-darwin", TYPE_ERROR);
  assert.match(message, /^deno compile failed for x86_64-apple-darwin:\n/);
  assert.match(message, /TS2322/);
  assert.doesNotMatch(message, /Stack backtrace/);
  assert.equal(
    explainCompileFailure("x86_64-apple-darwin", ""),
    "deno compile failed for x86_64-apple-darwin",
  );
});

Deno.test("deno task compile without access to dl.deno.land exits 1 with the clear message", async () => {
  // A proxy on a closed port makes every download fail at once, network or not.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const proxy = `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`;
  listener.close();
  const outDir = await Deno.makeTempDir({ prefix: "svc-compile-" });
  try {
    const output = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        join(REPO_ROOT, "scripts/compile.ts"),
        "--target",
        "x86_64-unknown-linux-gnu",
        "--out-dir",
        outDir,
      ],
      env: {
        HTTPS_PROXY: proxy,
        HTTP_PROXY: proxy,
        https_proxy: proxy,
        http_proxy: proxy,
        NO_PROXY: "",
        no_proxy: "",
        NO_COLOR: "1",
      },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(output.stderr);
    const files = [];
    for await (const entry of Deno.readDir(outDir)) files.push(entry.name);
    if (output.success) {
      // This machine had denort cached: then the build must be complete.
      assert.deepEqual(files.sort(), [SHA256SUMS, "svc-x86_64-unknown-linux-gnu"]);
      return;
    }
    assert.equal(output.code, 1);
    assert.match(
      stderr,
      /^svc compile: deno compile could not download its runtime \(denort\) for x86_64-unknown-linux-gnu: no network access to dl\.deno\.land .*; build releases on a machine with internet access/m,
      stderr,
    );
    assert.doesNotMatch(stderr, /Stack backtrace|^\s+at /m, "no stack");
    assert.deepEqual(files, [], "no binary, no SHA256SUMS");
  } finally {
    await Deno.remove(outDir, { recursive: true });
  }
});

Deno.test("compileArgs() grants FFI only to the Windows target (the owner-only pipe)", () => {
  for (const target of TARGETS) {
    const args = compileArgs(target, { outDir: "dist" });
    assert.equal(args.includes("--allow-ffi"), target.includes("windows"), target);
  }
});
