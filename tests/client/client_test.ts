import assert from "node:assert/strict";
import { ClientError, SvcClient } from "../../src/client/client.ts";
import { restartTestDaemon, startTestDaemon } from "../helpers/daemon.ts";
import { listenUnix } from "../../src/transport/unix_socket.ts";
import { removeTree, tempHome } from "../helpers/home.ts";

Deno.test("SvcClient negotiates, then fails and re-negotiates when the daemon is replaced (C9.7)", async () => {
  const home = await tempHome();
  const first = await startTestDaemon({ home });
  const client = new SvcClient({ socketPath: first.socket });
  try {
    const health = await client.negotiate();
    assert.equal(health.instanceId, first.daemon.instanceId);
    assert.equal((await client.get("/api-version")).status, 200);

    await first.daemon.stop();
    const second = await restartTestDaemon({ home });
    try {
      await assert.rejects(() => client.get("/api-version"), (error: unknown) => {
        assert.ok(error instanceof ClientError);
        // A pooled connection to the old daemon fails as unreachable; a new one sees the new instance.
        assert.ok(["instance_changed", "unreachable"].includes(error.code), error.code);
        return true;
      });
      assert.equal(client.negotiated, null);
      // The next call negotiates with the new instance.
      assert.equal((await client.get("/api-version")).status, 200);
      assert.equal(
        (client.negotiated as { instanceId: string } | null)?.instanceId,
        second.daemon.instanceId,
      );
    } finally {
      first.client.close();
      await second[Symbol.asyncDispose]();
    }
  } finally {
    client.close();
    await removeTree(home);
  }
});

Deno.test("SvcClient never sends a mutation to a replaced daemon", async () => {
  const home = await tempHome();
  const first = await startTestDaemon({ home });
  const client = new SvcClient({ socketPath: first.socket });
  await client.negotiate();
  await first.daemon.stop();
  first.client.close();
  const second = await restartTestDaemon({ home });
  try {
    const log = () => Deno.readTextFile(`${home}/logs/daemon.log`);
    const before = await log();
    // The preflight health fails on the old pooled connection or sees the new instance.
    await assert.rejects(() => client.post("/shutdown", {}), (error: unknown) => {
      assert.ok(error instanceof ClientError);
      assert.ok(["instance_changed", "unreachable"].includes(error.code), error.code);
      return true;
    });
    // The second daemon is still running: the shutdown was never sent.
    assert.equal((await second.client.health()).instanceId, second.daemon.instanceId);
    assert.equal(
      (await log()).split("svc daemon stopping").length,
      before.split("svc daemon stopping").length,
    );
  } finally {
    client.close();
    await second[Symbol.asyncDispose]();
    await removeTree(home);
  }
});

Deno.test("SvcClient refuses response bodies over its bound and reports unreachable daemons", async () => {
  const dir = await tempHome();
  const path = `${dir}/big.sock`;
  const server = listenUnix(path, () =>
    Promise.resolve(
      new Response(
        JSON.stringify({ apiVersion: "svc.daemon.v1", blob: "x".repeat(5 * 1024 * 1024) }),
        {
          headers: { "content-type": "application/json" },
        },
      ),
    ));
  const client = new SvcClient({ socketPath: path });
  const gone = new SvcClient({ socketPath: `${dir}/none.sock` });
  try {
    await assert.rejects(() => client.health(), { code: "response_too_large" });
    await assert.rejects(() => gone.health(), { code: "unreachable" });
  } finally {
    client.close();
    gone.close();
    await server.shutdown();
    await removeTree(dir);
  }
});

Deno.test("SvcClient over the node:http path transport (the Windows pipe client) negotiates and posts", async () => {
  await using t = await startTestDaemon();
  // node:http dials a Unix socket path the same way it dials a named pipe.
  const client = new SvcClient({ pipe: t.socket });
  try {
    assert.equal((await client.negotiate()).instanceId, t.daemon.instanceId);
    const refused = await client.post<{ error: { code: string } }>("/sessions", { bogus: 1 });
    assert.equal(refused.status, 400);
    assert.equal(refused.body.error.code, "invalid_request");
  } finally {
    client.close();
  }
});
