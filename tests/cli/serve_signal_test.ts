/** A stop signal right after the socket answers stops the daemon gracefully: exit 0. */
import assert from "node:assert/strict";
import { removeTree, tempHome } from "../helpers/home.ts";
import { runSvc, startServe } from "../helpers/process.ts";

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

Deno.test("svc serve's help and bad usage read the same through its own start path (D1, issue 26)", async () => {
  const help = await runSvc(["serve", "--help"]);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /^Usage: svc serve \[--home DIR\]/);
  const bad = await runSvc(["serve", "--bogus"]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /^svc serve: unknown option --bogus\n\nUsage: svc serve/);
  const badTcp = await runSvc(["serve", "--tcp", "0.0.0.0:1"]);
  assert.equal(badTcp.code, 2, badTcp.stderr);
  assert.match(badTcp.stderr, /^svc serve: /);
  // The command table still lists it.
  const listed = await runSvc(["help", "serve"]);
  assert.equal(listed.stdout, help.stdout);
});
