/** A stop signal right after the socket answers stops the daemon gracefully: exit 0. */
import assert from "node:assert/strict";
import { removeTree, tempHome } from "../helpers/home.ts";
import { startServe } from "../helpers/process.ts";

Deno.test("SIGTERM at once after start is a graceful stop, not a kill (exit 0)", async () => {
  for (let i = 0; i < 3; i++) {
    const home = await tempHome();
    try {
      const serve = await startServe(home);
      const status = await serve.stop("SIGTERM");
      assert.equal(status.code, 0, serve.stderr());
    } finally {
      await removeTree(home);
    }
  }
});
