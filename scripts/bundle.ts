/**
 * `deno task bundle`: `deno bundle --platform=deno main.ts -o dist/svc.js`
 * with the version stamped in (see `scripts/stamp_version.ts`: the bundle is
 * built from a temporary stamped copy, the working tree is not modified).
 * Prints the output path.
 *
 * The result is one JavaScript file whose only imports are `node:*`: running
 * it with an empty `DENO_DIR` and `--cached-only` proves the program is
 * self-contained (tests/scripts/self_contained_test.ts), the stand-in for the
 * compiled binary on machines that cannot download Deno's compile runtime.
 *
 *   deno task bundle [--out FILE] [--version V]
 */
import { dirname, resolve } from "node:path";
import { parseArgs } from "node:util";
import { describeVersion, REPO_ROOT, stageStampedTree } from "./stamp_version.ts";

/** Where `deno task bundle` writes, relative to the repository root. */
export const DEFAULT_BUNDLE = "dist/svc.js";

/** The `deno` arguments that bundle the staged `main.ts` into `outFile` (absolute). */
export function bundleArgs(outFile: string): string[] {
  return ["bundle", "--platform=deno", "main.ts", "-o", outFile];
}

/** A build step that failed; `message` is meant for the user as is. */
export class BuildError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "BuildError";
  }
}

/** Options of `bundle`. */
export interface BundleOptions {
  /** Output file; relative paths are taken from `root` (default `dist/svc.js`). */
  outFile?: string;
  /** The version to stamp (default: git describe, or "unknown"). */
  version?: string;
  /** The repository to build (default: this one). */
  root?: string;
}

/** What `bundle` produced. */
export interface BundleResult {
  readonly outFile: string;
  readonly version: string;
}

/** Bundles `main.ts` with the version stamped in; throws `BuildError` when deno bundle fails. */
export async function bundle(options: BundleOptions = {}): Promise<BundleResult> {
  const root = options.root ?? REPO_ROOT;
  const outFile = resolve(root, options.outFile ?? DEFAULT_BUNDLE);
  const version = options.version ?? await describeVersion(root);
  await Deno.mkdir(dirname(outFile), { recursive: true });
  await using staged = await stageStampedTree(root, version);
  const output = await new Deno.Command(Deno.execPath(), {
    args: bundleArgs(outFile),
    cwd: staged.dir,
    env: { NO_COLOR: "1", RUST_BACKTRACE: "0" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!output.success) {
    const decoder = new TextDecoder();
    const text = (decoder.decode(output.stderr) + decoder.decode(output.stdout)).trim();
    throw new BuildError(`deno bundle failed (exit ${output.code}):\n${text}`);
  }
  return { outFile, version };
}

async function main(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      out: { type: "string", short: "o" },
      version: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    console.log(
      "Usage: deno task bundle [--out FILE] [--version V]\n\n" +
        `Bundles main.ts into one file (default ${DEFAULT_BUNDLE}) with the version stamped in\n` +
        "(default: git describe --tags --dirty --always). Prints the output path.",
    );
    return 0;
  }
  const result = await bundle({ outFile: values.out, version: values.version });
  console.log(result.outFile);
  return 0;
}

if (import.meta.main) {
  try {
    Deno.exit(await main(Deno.args));
  } catch (error) {
    console.error(`svc bundle: ${(error as Error).message}`);
    Deno.exit(1);
  }
}
