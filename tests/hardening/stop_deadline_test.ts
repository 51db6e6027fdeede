/** svc stop ends the daemon even while a client holds a request open (issue 13). */
import assert from "node:assert/strict";
import { join } from "node:path";
import { removeTree, tempHome } from "../helpers/home.ts";
import { runSvc, startServe } from "../helpers/process.ts";

Deno.test("an unfinished request body does not keep a stopping daemon alive: exit 0, socket and lock released", async () => {
  const home = await tempHome();
  const serve = await startServe(home);
  const socket = join(home, "svc.sock");
  const conn = await Deno.connect({ transport: "unix", path: socket });
  try {
    // A body announced as 100 bytes, of which 10 arrive.
    await conn.write(new TextEncoder().encode(
      "POST /api/v1/sessions HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n" +
        'Content-Length: 100\r\n\r\n{"project',
    ));
    await new Promise((resolve) => setTimeout(resolve, 200));
    const started = Date.now();
    const stop = await runSvc(["stop", "--home", home]);
    const status = await serve.stop("SIGCONT"); // Waits for the exit without signalling it.
    assert.equal(status.code, 0, serve.stderr());
    assert.ok(Date.now() - started < 20_000, "the stop deadline held");
    assert.equal(stop.code, 0, stop.stderr);
    await assert.rejects(Deno.stat(socket), Deno.errors.NotFound);
    // The home is free: a new daemon starts on it.
    const again = await startServe(home);
    assert.equal((await again.stop()).code, 0);
  } finally {
    try {
      conn.close();
    } catch { /* closed by the daemon */ }
    await removeTree(home);
  }
});
