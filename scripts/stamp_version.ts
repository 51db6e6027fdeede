/**
 * Version baking (issue: releases). `src/version.ts` says `SVC_VERSION =
 * "unknown"` in the repository; a build stamps the output of `git describe
 * --tags --dirty --always` into it.
 *
 * The working tree is never modified: `stageStampedTree` copies the files the
 * program is built from (`STAGED_PATHS`) into a temporary directory and
 * writes the stamped `src/version.ts` there; `scripts/bundle.ts` and
 * `scripts/compile.ts` build from that copy and remove it afterwards. A build
 * that crashes leaves at most a stray temporary directory, never a stamped
 * source file, and tests running in parallel always see `"unknown"`.
 *
 * CLI (prints, writes nothing):
 *
 *   deno run -A scripts/stamp_version.ts                 # the stamped src/version.ts
 *   deno run -A scripts/stamp_version.ts --print-version # just the version
 *   deno run -A scripts/stamp_version.ts --version v1.2.3
 */
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

/** The module that carries the version, relative to the repository root. */
export const VERSION_MODULE = "src/version.ts";

/**
 * What a build copies: everything `main.ts` reaches at run time (the web app's built files
 * are imported as bytes, D30), plus the config and lock.
 */
export const STAGED_PATHS: readonly string[] = [
  "deno.json",
  "deno.lock",
  "main.ts",
  "src",
  "web/dist",
];

/** The version when git cannot describe the tree (no git, no repository, no commit). */
export const UNKNOWN_VERSION = "unknown";

/** The repository root (this file is `<root>/scripts/stamp_version.ts`). */
export const REPO_ROOT: string = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** The declaration `stampVersion` rewrites; exactly one must exist. */
const DECLARATION = /^export const SVC_VERSION: string = "(?:[^"\\\n]|\\.)*";$/gm;

/** The git command that names a build. */
export const DESCRIBE_ARGS: readonly string[] = ["describe", "--tags", "--dirty", "--always"];

/**
 * Returns the text of `src/version.ts` with `SVC_VERSION` set to `version`.
 * Throws when the declaration is missing or repeated, so a refactor of the
 * module fails the build instead of shipping "unknown".
 */
export function stampVersion(source: string, version: string): string {
  const matches = source.match(DECLARATION) ?? [];
  if (matches.length !== 1) {
    throw new Error(
      `${VERSION_MODULE} must declare \`export const SVC_VERSION: string = "…";\` exactly once ` +
        `(found ${matches.length})`,
    );
  }
  // A function replacement: a `$` in the version must not act as a pattern.
  return source.replace(
    DECLARATION,
    () => `export const SVC_VERSION: string = ${JSON.stringify(version)};`,
  );
}

/** Maps `git describe`'s outcome to a version: its first line, or "unknown". */
export function versionFromDescribe(success: boolean, stdout: string): string {
  if (!success) return UNKNOWN_VERSION;
  const line = stdout.trim().split("\n")[0]?.trim() ?? "";
  return line === "" ? UNKNOWN_VERSION : line;
}

/** `git describe --tags --dirty --always` in `root`; "unknown" when git or the repository is missing. */
export async function describeVersion(root: string = REPO_ROOT): Promise<string> {
  try {
    const output = await new Deno.Command("git", {
      args: [...DESCRIBE_ARGS],
      cwd: root,
      stdin: "null",
      stdout: "piped",
      stderr: "null",
    }).output();
    return versionFromDescribe(output.success, new TextDecoder().decode(output.stdout));
  } catch {
    return UNKNOWN_VERSION;
  }
}

/** A temporary copy of the sources with the version stamped in; dispose to remove it. */
export interface StagedTree extends AsyncDisposable {
  /** The copy's root: build from here (`main.ts`, `deno.json`). */
  readonly dir: string;
  readonly version: string;
  remove(): Promise<void>;
}

/**
 * Copies `STAGED_PATHS` of `root` into a new temporary directory and writes
 * the stamped `src/version.ts` there. The working tree is only read.
 */
export async function stageStampedTree(root: string, version: string): Promise<StagedTree> {
  const source = await Deno.readTextFile(join(root, VERSION_MODULE));
  const stamped = stampVersion(source, version);
  const dir = await Deno.makeTempDir({ prefix: "svc-build-" });
  const remove = () => Deno.remove(dir, { recursive: true }).catch(() => {});
  try {
    for (const path of STAGED_PATHS) await copyTree(join(root, path), join(dir, path));
    await Deno.writeTextFile(join(dir, VERSION_MODULE), stamped);
  } catch (error) {
    await remove();
    throw error;
  }
  return { dir, version, remove, [Symbol.asyncDispose]: remove };
}

/** Copies a file or directory tree; a missing source (e.g. no deno.lock) is skipped. */
async function copyTree(from: string, to: string): Promise<void> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(from);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return;
    throw error;
  }
  if (info.isDirectory) {
    await Deno.mkdir(to, { recursive: true });
    for await (const entry of Deno.readDir(from)) {
      await copyTree(join(from, entry.name), join(to, entry.name));
    }
  } else if (info.isFile) {
    await Deno.copyFile(from, to);
  }
}

async function main(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      version: { type: "string" },
      "print-version": { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    console.log(
      "Usage: deno run -A scripts/stamp_version.ts [--version V] [--print-version]\n\n" +
        "Prints src/version.ts with SVC_VERSION set to V (default: git describe --tags --dirty\n" +
        '--always, or "unknown"). --print-version prints only the version. Writes nothing.',
    );
    return 0;
  }
  const version = values.version ?? await describeVersion();
  if (values["print-version"]) {
    console.log(version);
    return 0;
  }
  const source = await Deno.readTextFile(join(REPO_ROOT, VERSION_MODULE));
  await Deno.stdout.write(new TextEncoder().encode(stampVersion(source, version)));
  return 0;
}

if (import.meta.main) {
  try {
    Deno.exit(await main(Deno.args));
  } catch (error) {
    console.error(`stamp_version: ${(error as Error).message}`);
    Deno.exit(1);
  }
}
