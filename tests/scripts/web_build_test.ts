import assert from "node:assert/strict";
import { buildWebApp, WEB_DIST_DIR } from "../../scripts/web_build.ts";
import { REPO_ROOT } from "../../scripts/stamp_version.ts";
import { removeTree } from "../helpers/home.ts";

Deno.test("buildWebApp() rebuilds exactly the committed web/dist (it is never stale)", async () => {
  const outDir = await Deno.makeTempDir();
  try {
    const files = await buildWebApp({ outDir });
    for (const file of files) {
      const name = file.slice(outDir.length + 1);
      const committed = await Deno.readTextFile(`${REPO_ROOT}/${WEB_DIST_DIR}/${name}`);
      // Compared as text, one boolean: a byte-array diff of a 250 KB bundle exhausts memory.
      const same = (await Deno.readTextFile(file)) === committed;
      assert.ok(same, `${name} differs from the build: run deno task web:build`);
    }
    const app = await Deno.readTextFile(`${outDir}/app.js`);
    assert.ok(!/from\s*["']node:/.test(app), "the browser bundle imports node:*");
  } finally {
    await removeTree(outDir);
  }
});

Deno.test("the app's page has no inline script or style (CSP 'self')", async () => {
  const page = await Deno.readTextFile(`${REPO_ROOT}/src/web/app/index.html`);
  assert.match(page, /<script type="module" src="\/app\.js"><\/script>/);
  assert.doesNotMatch(page, /<script>|<style|style=/);
});
