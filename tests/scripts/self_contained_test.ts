/**
 * The program is self-contained (issue: releases): `main.ts` bundles into one
 * JavaScript file that imports only `node:*`, reads no file beside its source,
 * and runs as the daemon from an empty directory with an empty `DENO_DIR`
 * under `--cached-only` (nothing to download, nothing cached to fall back on),
 * with exactly the permission flags baked into the compiled binaries. This is
 * the stand-in for `deno compile`, whose runtime cannot be downloaded here
 * (docs/release.md).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { bundle } from "../../scripts/bundle.ts";
import { PERMISSION_FLAGS } from "../../scripts/compile.ts";
import { SvcClient } from "../../src/client/client.ts";
import { allEvents, waitForEnd } from "../helpers/daemon.ts";
import { removeTree, tempHome } from "../helpers/home.ts";
import { shellQuote, TMUX_INSTALLED, tmuxPane } from "../helpers/tmux.ts";

type Json = Record<string, unknown>;

/** The module specifiers of the bundle's static `import … from "x"` / `import "x"` / `export … from "x"`. */
function staticSpecifiers(code: string): string[] {
  const found: string[] = [];
  const fromClause = /^\s*(?:import|export)\b[^;"'`]*?\bfrom\s*["']([^"']+)["']/gm;
  const bare = /^\s*import\s*["']([^"']+)["']/gm;
  for (const match of code.matchAll(fromClause)) found.push(match[1]);
  for (const match of code.matchAll(bare)) found.push(match[1]);
  return found;
}

/**
 * Constructs some bundled npm modules hold that never run or never leave the
 * bundle (svc ui, D25), each with why: `[module path part, construct]`.
 */
const ALLOWED_IN_MODULES: ReadonlyArray<readonly [string, RegExp]> = [
  // Ink reads its package.json and loads its devtools only when DEV=true.
  ["/ink/8.0.0/build/reconciler.js", /import\("node:fs"\)|import\.meta\.(url|resolve)/],
  // A warning message of React's development build quotes `lazy(() => import('./MyComponent'))`.
  ["/react/19.3.1/cjs/react.development.js", /import\('\.\/MyComponent'/],
  // Emscripten's default locateFile; the wasm itself is inlined as base64.
  ["/yoga-layout/3.2.1/dist/binaries/yoga-wasm-base64-esm.js", /import\.meta\.url/],
  // Emscripten's Node loader of web-tree-sitter: node built-ins, used only to find its .wasm,
  // which svc hands it as bytes instead (src/policy/shell_command.ts).
  ["/web-tree-sitter/0.26.8/web-tree-sitter.js", /require\("(fs|path|url)"\)|import\.meta\.url/],
];

/**
 * The bundle without the allowed constructs of ALLOWED_IN_MODULES (module by
 * module), and without the bundler's own `require` for node built-ins of
 * CommonJS modules (`__deno_internal_createRequire(import.meta.url)`).
 */
function withoutAllowed(code: string): string {
  code = code.replace("__deno_internal_createRequire(import.meta.url)", "");
  return code.split(/^(?=\/\/ \S+\.[cm]?[jt]sx?$)/m).map((segment) => {
    const header = segment.slice(0, segment.indexOf("\n"));
    let text = segment;
    for (const [module, construct] of ALLOWED_IN_MODULES) {
      if (header.includes(module)) text = text.replace(new RegExp(construct, "g"), "");
    }
    return text;
  }).join("");
}

/** Runs the bundle's `svc ui` in tmux with the empty DENO_DIR, sees its first frame, quits. */
async function uiFromBundle(
  options: {
    runArgs: string[];
    env: Record<string, string>;
    cwd: string;
    home: string;
    version: string;
    work: string;
  },
): Promise<void> {
  const pane = tmuxPane(options.work, "ui");
  const envs = Object.entries({ ...options.env, TERM: "xterm-256color" })
    .map(([name, value]) => `${name}=${shellQuote(value)}`).join(" ");
  const svc = [Deno.execPath(), ...options.runArgs, "ui", "--home", options.home]
    .map(shellQuote).join(" ");
  try {
    await pane.start(`env -i ${envs} ${svc} 2>&1; echo "ui-exit=$?"; exec sleep 600`, {
      cwd: options.cwd,
      columns: 100,
      rows: 24,
    });
    await pane.waitFor(new RegExp(`svc ${options.version.replaceAll(".", "\\.")} · up`));
    await pane.keys(["q"], true);
    const screen = await pane.waitFor(/^ui-exit=/m);
    assert.match(screen, /^ui-exit=0$/m, screen);
  } finally {
    await pane.kill();
  }
}

/** Every file under `dir` (relative paths). */
async function filesUnder(dir: string, prefix = ""): Promise<string[]> {
  const files: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const path = join(prefix, entry.name);
    if (entry.isDirectory) files.push(...await filesUnder(join(dir, entry.name), path));
    else files.push(path);
  }
  return files;
}

async function waitForSocket(path: string, exited: () => boolean, stderr: () => string) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (exited()) throw new Error(`The bundled daemon exited early:\n${stderr()}`);
    try {
      (await Deno.connect({ transport: "unix", path })).close();
      return;
    } catch {
      if (Date.now() > deadline) throw new Error(`No socket after 20 s:\n${stderr()}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
}

Deno.test({
  name: "main.ts bundles to one file that runs the daemon with an empty DENO_DIR (self-contained)",
  ignore: Deno.build.os === "windows",
  async fn() {
    const work = await Deno.makeTempDir({ prefix: "svc-selfcontained-" });
    const home = await tempHome();
    let child: Deno.ChildProcess | null = null;
    let client: SvcClient | null = null;
    try {
      // 1. Bundle with the release script (esbuild comes from the normal DENO_DIR).
      const { outFile, version } = await bundle({ outFile: join(work, "out", "svc.js") });
      const code = withoutAllowed(await Deno.readTextFile(outFile));

      // 2. What the bundle may reach: node:* modules only, no file beside its source.
      const specifiers = staticSpecifiers(code);
      assert.ok(specifiers.includes("node:sqlite"), `imports: ${specifiers.join(", ")}`);
      assert.deepEqual(specifiers.filter((s) => !s.startsWith("node:")), []);
      // A dynamic import may name a node: built-in only (web-tree-sitter's fallback loader does).
      assert.deepEqual(
        code.match(/(?<![.\w$])import\s*\(\s*["'`](?!node:)[^"'`]*["'`]/g) ?? [],
        [],
      );
      assert.deepEqual(code.match(/(?<![.\w$])(?:__)?require\s*\(\s*["'`](?!node:)/g) ?? [], []);
      const metas = [...code.matchAll(/\bimport\.meta\b(?:\.(\w+))?/g)].map((m) => m[1] ?? "");
      assert.deepEqual(metas.filter((name) => name !== "main"), [], "only import.meta.main");

      // 3. Run it from an empty cwd, an empty DENO_DIR, no config, nothing downloadable,
      //    with the release binaries' permissions. PATH is an empty directory so no
      //    built-in harness is probed; the configured harness uses an absolute program.
      const cwd = join(work, "empty-cwd");
      const denoDir = join(work, "empty-deno-dir");
      const userHome = join(work, "user-home");
      const project = join(work, "project");
      for (const dir of [cwd, denoDir, userHome, project]) await Deno.mkdir(dir);
      await Deno.writeTextFile(
        join(home, "config.json"),
        JSON.stringify({
          harnesses: {
            hello: {
              command: ["/bin/sh", "-c", 'echo hello-from-bundle; echo "prompt=$0"', "{prompt}"],
              prompt: "arg",
            },
          },
        }),
      );
      const runArgs = ["run", "--no-config", "--cached-only", ...PERMISSION_FLAGS, outFile];
      const env = { DENO_DIR: denoDir, HOME: userHome, PATH: cwd, NO_COLOR: "1" };

      const versionRun = await new Deno.Command(Deno.execPath(), {
        args: [...runArgs, "--version"],
        cwd,
        env,
        clearEnv: true,
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).output();
      const decoder = new TextDecoder();
      assert.equal(versionRun.code, 0, decoder.decode(versionRun.stderr));
      assert.equal(decoder.decode(versionRun.stdout).trim(), `svc ${version} (svc.daemon.v1)`);

      child = new Deno.Command(Deno.execPath(), {
        args: [...runArgs, "serve", "--home", home],
        cwd,
        env,
        clearEnv: true,
        stdin: "null",
        stdout: "null",
        stderr: "piped",
      }).spawn();
      let stderr = "";
      const reading = (async () => {
        for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) {
          stderr += chunk;
        }
      })();
      let exited = false;
      const status = child.status.finally(() => exited = true);
      const socket = join(home, "svc.sock");
      await waitForSocket(socket, () => exited, () => stderr);

      // 4. Over the socket: health, a session with the configured harness, its output.
      client = new SvcClient({ socketPath: socket });
      const health = await client.health();
      assert.equal(health.apiVersion, "svc.daemon.v1");
      assert.equal(health.svcVersion, version, "the stamped version is served");
      const launched = await client.post<Json>("/sessions", {
        projectRoot: await Deno.realPath(project),
        harness: "hello",
        prompt: "from-the-test",
      });
      assert.equal(launched.status, 201, JSON.stringify(launched.body));
      const sessionId = launched.body.id as string;
      const ended = await waitForEnd(client, sessionId);
      assert.equal(ended.status, "completed", JSON.stringify(ended));
      const stdout = (await allEvents(client, sessionId))
        .filter((event) => event.kind === "output" && event.payload.stream === "stdout")
        .map((event) => event.payload.data as string)
        .join("");
      assert.equal(stdout, "hello-from-bundle\nprompt=from-the-test\n");
      client.close();
      client = null;

      // 4b. svc ui from the same file, in a real terminal: Ink, React and yoga are in the bundle.
      if (TMUX_INSTALLED) await uiFromBundle({ runArgs, env, cwd, home, version, work });

      // 5. SIGTERM: graceful stop, exit 0, socket removed.
      child.kill("SIGTERM");
      const result = await status;
      await reading;
      child = null;
      assert.equal(result.code, 0, stderr);
      await assert.rejects(() => Deno.lstat(socket), Deno.errors.NotFound);

      // 6. Nothing was fetched into the empty DENO_DIR (only Deno's own caches).
      const fetched = (await filesUnder(denoDir)).filter((path) =>
        path.startsWith("npm/") || path.startsWith("remote/") || path.startsWith("jsr/")
      );
      assert.deepEqual(fetched, []);
    } finally {
      client?.close();
      if (child) {
        try {
          child.kill("SIGKILL");
        } catch { /* already exited */ }
        await child.status;
        await child.stderr.cancel().catch(() => {});
      }
      await removeTree(work);
      await removeTree(home);
    }
  },
});
