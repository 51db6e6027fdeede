/**
 * Out of file descriptors (issue 13): a daemon whose descriptor limit is
 * reached by connections keeps running (an accept that fails is logged and
 * retried, never fatal) and serves again once they close.
 * Run under `prlimit` with soft = hard, since Deno raises the soft limit to
 * the hard one at start.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { removeTree, tempHome } from "../helpers/home.ts";
import { httpRequest, rawHttp } from "../helpers/http.ts";
import { startServe } from "../helpers/process.ts";

const hasPrlimit = (() => {
  try {
    return Deno.statSync("/usr/bin/prlimit").isFile;
  } catch {
    return false;
  }
})();

Deno.test({
  name: "descriptors exhausted by connections: the daemon lives, then serves again",
  ignore: Deno.build.os !== "linux" || !hasPrlimit,
  async fn() {
    const home = await tempHome();
    const serve = await startServe(home, [], {}, ["/usr/bin/prlimit", "--nofile=128:128"]);
    const socket = { transport: "unix", path: join(home, "svc.sock") } as const;
    const conns: Deno.Conn[] = [];
    try {
      const limits = await Deno.readTextFile(`/proc/${serve.child.pid}/limits`);
      assert.match(limits, /Max open files\s+128\s+128/, "the limit applies to the daemon");
      // More connections than descriptors: the backlog takes some, then connects fail.
      for (let i = 0; i < 300; i++) {
        try {
          conns.push(await Deno.connect(socket));
        } catch { /* the listen backlog is full */ }
      }
      await new Promise((resolve) => setTimeout(resolve, 1500)); // accept fails, is retried
      const exited = await Promise.race([
        serve.child.status.then(() => true),
        new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 100)),
      ]);
      assert.equal(exited, false, `the daemon exited:\n${serve.stderr()}`);
      for (const conn of conns.splice(0)) conn.close();
      let status = 0;
      for (let attempt = 0; attempt < 50 && status !== 200; attempt++) {
        status = await rawHttp(socket, httpRequest("GET", "/api/v1/health"))
          .then((answer) => answer.status, () => 0);
        if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.equal(status, 200, "served again once the connections closed");
      assert.match(serve.stderr(), /Cannot accept a connection; retrying/);
      assert.equal((await serve.stop()).code, 0);
    } finally {
      for (const conn of conns) conn.close();
      await serve.stop().catch(() => {});
      await removeTree(home);
    }
  },
});
