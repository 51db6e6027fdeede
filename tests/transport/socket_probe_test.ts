import assert from "node:assert/strict";
import { probeSocket } from "../../src/transport/socket_probe.ts";
import { removeTree, tempHome } from "../helpers/home.ts";

const unix = Deno.build.os !== "windows";

/** Binds a unix socket at `path` in a child process that exits without removing it. */
async function leaveStaleSocket(path: string): Promise<void> {
  const { success } = await new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      `Deno.listen({ transport: "unix", path: ${JSON.stringify(path)} }); Deno.exit(0);`,
    ],
    stdout: "null",
    stderr: "inherit",
  }).output();
  assert.ok(success);
}

Deno.test("probeSocket() reports an absent path", async () => {
  const dir = await tempHome();
  try {
    assert.equal(await probeSocket(`${dir}/svc.sock`), "absent");
  } finally {
    await removeTree(dir);
  }
});

Deno.test({
  name: "probeSocket() reports what is not a socket, without following links",
  ignore: !unix,
  async fn(t) {
    const dir = await tempHome();
    try {
      await t.step("a regular file", async () => {
        await Deno.writeTextFile(`${dir}/file.sock`, "not a socket");
        assert.equal(await probeSocket(`${dir}/file.sock`), "not_socket");
        assert.equal(await Deno.readTextFile(`${dir}/file.sock`), "not a socket");
      });
      await t.step("a directory", async () => {
        await Deno.mkdir(`${dir}/dir.sock`);
        assert.equal(await probeSocket(`${dir}/dir.sock`), "not_socket");
      });
      await t.step("a symlink to a live socket", async () => {
        const listener = Deno.listen({ transport: "unix", path: `${dir}/live.sock` });
        try {
          await Deno.symlink(`${dir}/live.sock`, `${dir}/link.sock`);
          assert.equal(await probeSocket(`${dir}/link.sock`), "not_socket");
        } finally {
          listener.close();
        }
      });
    } finally {
      await removeTree(dir);
    }
  },
});

Deno.test({
  name: "probeSocket() reports a socket that accepts connections as live",
  ignore: !unix,
  async fn() {
    const dir = await tempHome();
    const path = `${dir}/svc.sock`;
    const listener = Deno.listen({ transport: "unix", path });
    const accepted = listener.accept().then((conn) => conn.close());
    try {
      assert.equal(await probeSocket(path), "live");
      await accepted;
      assert.ok((await Deno.lstat(path)).isSocket);
    } finally {
      listener.close();
      await removeTree(dir);
    }
  },
});

Deno.test({
  name: "probeSocket() reports a socket file nobody listens on as stale",
  ignore: !unix,
  async fn() {
    const dir = await tempHome();
    const path = `${dir}/svc.sock`;
    try {
      await leaveStaleSocket(path);
      assert.ok((await Deno.lstat(path)).isSocket, "the child left its socket file");
      assert.equal(await probeSocket(path), "stale");
      // Probing never removes the file: the caller decides.
      assert.ok((await Deno.lstat(path)).isSocket);
    } finally {
      await removeTree(dir);
    }
  },
});
