/**
 * Fake release files served over HTTP on 127.0.0.1, and a sandbox to run install.sh in:
 * a temp HOME and TMPDIR, and a `bin/` of fake `uname` (and `sysctl`) placed first on PATH.
 */
import { fileURLToPath } from "node:url";
import { binaryName, SHA256SUMS, sha256sumsText, TARGETS } from "../../scripts/compile.ts";

/** The repository's installer scripts. */
export const INSTALL_SH = fileURLToPath(new URL("../../install.sh", import.meta.url));
export const INSTALL_PS1 = fileURLToPath(new URL("../../install.ps1", import.meta.url));

/** Every target svc ships a binary for, as `dist/svc-<target>[.exe]` names it. */
export const UNIX_TARGETS = [
  "x86_64-unknown-linux-gnu",
  "aarch64-unknown-linux-gnu",
  "x86_64-apple-darwin",
  "aarch64-apple-darwin",
] as const;
export const WINDOWS_TARGET = "x86_64-pc-windows-msvc";

/** Lowercase hex SHA-256 of some bytes, as sha256sum prints it. */
export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as BufferSource));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** A shell script standing in for the svc binary: `--version` prints `svc <version> (…)`. */
export function fakeBinary(version: string): Uint8Array {
  return new TextEncoder().encode(
    `#!/bin/sh\necho "svc ${version} (svc.daemon.v1)"\n`,
  );
}

/**
 * Writes one release into `dir` (for example `<root>/download/v1.0.0`) the way
 * `deno task compile` lays out `dist/`: a fake binary per target and its SHA256SUMS.
 * `sums` rewrites the SHA256SUMS text before it is saved.
 */
export async function writeRelease(
  dir: string,
  version: string,
  options: { sums?: (text: string) => string } = {},
): Promise<void> {
  await Deno.mkdir(dir, { recursive: true });
  const entries: [string, string][] = [];
  for (const target of TARGETS) {
    const bytes = fakeBinary(version);
    await Deno.writeFile(`${dir}/${binaryName(target)}`, bytes);
    entries.push([await sha256Hex(bytes), binaryName(target)]);
  }
  const text = sha256sumsText(entries);
  await Deno.writeTextFile(`${dir}/${SHA256SUMS}`, options.sums ? options.sums(text) : text);
}

/** A static file server over a directory, on 127.0.0.1 and a random port. */
export interface ReleaseServer extends AsyncDisposable {
  /** `http://127.0.0.1:<port>`, to use as SVC_DOWNLOAD_BASE. */
  readonly base: string;
  /** The paths requested so far, in order. */
  readonly requests: string[];
}

/** Serves `root` read-only; any path outside it or not a file answers 404. */
export function serveRelease(root: string): ReleaseServer {
  const requests: string[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    async (request) => {
      const path = decodeURIComponent(new URL(request.url).pathname);
      requests.push(path);
      if (request.method !== "GET" || path.split("/").includes("..")) {
        return new Response("not found\n", { status: 404 });
      }
      try {
        return new Response(await Deno.readFile(`${root}${path}`));
      } catch {
        return new Response("not found\n", { status: 404 });
      }
    },
  );
  return {
    base: `http://127.0.0.1:${server.addr.port}`,
    requests,
    async [Symbol.asyncDispose]() {
      await server.shutdown();
    },
  };
}

/** What one run of the installer did. */
export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** A temp HOME, TMPDIR, and a fake `uname` first on PATH, removed on dispose. */
export interface Sandbox extends AsyncDisposable {
  readonly root: string;
  readonly home: string;
  readonly tmp: string;
  /** The default install directory: `$HOME/.svc/bin`. */
  readonly installDir: string;
  /** Makes `uname -s` and `uname -m` print `os` and `arch`. */
  setPlatform(os: string, arch: string): Promise<void>;
  /** Adds a fake program to the sandbox's bin (first on PATH). */
  addProgram(name: string, script: string): Promise<void>;
  /** Runs `command` with a clean environment: PATH (`options.path` after the sandbox's bin), HOME, TMPDIR and `env`. */
  run(
    command: string[],
    env?: Record<string, string>,
    options?: { path?: string },
  ): Promise<RunResult>;
}

/** Creates a sandbox; the fake uname starts as Linux x86_64. */
export async function createSandbox(): Promise<Sandbox> {
  const root = await Deno.makeTempDir({ prefix: "svc-install-test-" });
  const bin = `${root}/bin`;
  const home = `${root}/home`;
  const tmp = `${root}/tmp`;
  for (const dir of [bin, home, tmp]) await Deno.mkdir(dir);
  const addProgram = async (name: string, script: string) => {
    await Deno.writeTextFile(`${bin}/${name}`, `#!/bin/sh\n${script}\n`, { mode: 0o755 });
    await Deno.chmod(`${bin}/${name}`, 0o755);
  };
  const setPlatform = (os: string, arch: string) =>
    addProgram(
      "uname",
      `case "$1" in\n  -s) echo "${os}" ;;\n  -m) echo "${arch}" ;;\n  *) echo "${os}" ;;\nesac`,
    );
  await setPlatform("Linux", "x86_64");
  return {
    root,
    home,
    tmp,
    installDir: `${home}/.svc/bin`,
    setPlatform,
    addProgram,
    async run(command, env = {}, options = {}) {
      const output = await new Deno.Command(command[0], {
        args: command.slice(1),
        clearEnv: true,
        env: {
          PATH: `${bin}:${options.path ?? Deno.env.get("PATH") ?? "/usr/bin:/bin"}`,
          HOME: home,
          TMPDIR: tmp,
          ...env,
        },
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
    },
    async [Symbol.asyncDispose]() {
      await Deno.remove(root, { recursive: true });
    },
  };
}

/** The names in a directory, sorted; `[]` when it does not exist. */
export async function listDir(dir: string): Promise<string[]> {
  const names: string[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) names.push(entry.name);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
  return names.sort();
}
