/**
 * The built web app (D30), imported as bytes so that it is part of svc's
 * module graph: `deno run`, the release bundle and a compiled binary all
 * carry it, with nothing read beside the program (the bundle test holds svc
 * to `import.meta.main` alone). The page and its style are the sources;
 * `deno task web:build` writes the script, and tests/scripts/web_build_test.ts
 * fails when it is not the build's.
 */
import appCss from "./app/app.css" with { type: "bytes" };
import indexHtml from "./app/index.html" with { type: "bytes" };
import appJs from "../../web/dist/app.js" with { type: "bytes" };
import { fileAssets, type StaticAssets } from "./static_assets.ts";

/** The app's files, by the path they are served at below `/`. */
export function embeddedApp(): StaticAssets {
  return fileAssets({ "index.html": indexHtml, "app.js": appJs, "app.css": appCss });
}
