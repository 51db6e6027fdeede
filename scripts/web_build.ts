/**
 * `deno task web:build`: the web app's script (D30) into `web/dist/app.js`,
 * bundled from `src/web/app/main.tsx` for the browser (minified, no source
 * map). The page and its style (`src/web/app/index.html`, `app.css`: no
 * inline script or style, the CSP allows `'self'` only) are served from the
 * sources. The built script is committed, so svc serves the app without a
 * build step; tests/scripts/web_build_test.ts rebuilds it and fails when it differs.
 *
 *   deno task web:build [--out-dir DIR]
 */
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { BuildError } from "./bundle.ts";
import { REPO_ROOT } from "./stamp_version.ts";

/** Where the app is built to, relative to the repository root (src/web/static_assets.ts). */
export const WEB_DIST_DIR = "web/dist";

const SOURCE_DIR = "src/web/app";

/** Builds the app into `outDir` (absolute, or relative to `root`); returns the files written. */
export async function buildWebApp(
  options: { outDir?: string; root?: string } = {},
): Promise<string[]> {
  const root = options.root ?? REPO_ROOT;
  const outDir = resolve(root, options.outDir ?? WEB_DIST_DIR);
  await Deno.mkdir(outDir, { recursive: true });
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "bundle",
      "--platform=browser",
      "--minify",
      "-o",
      resolve(outDir, "app.js"),
      `${SOURCE_DIR}/main.tsx`,
    ],
    cwd: root,
    env: { NO_COLOR: "1", RUST_BACKTRACE: "0" },
  }).output();
  if (!output.success) {
    throw new BuildError(`deno bundle failed:\n${new TextDecoder().decode(output.stderr).trim()}`);
  }
  return [resolve(outDir, "app.js")];
}

if (import.meta.main) {
  const { values } = parseArgs({ args: Deno.args, options: { "out-dir": { type: "string" } } });
  try {
    for (const file of await buildWebApp({ outDir: values["out-dir"] })) console.log(file);
  } catch (error) {
    if (!(error instanceof BuildError)) throw error;
    console.error(error.message);
    Deno.exit(1);
  }
}
