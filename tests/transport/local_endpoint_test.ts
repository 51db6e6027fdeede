import assert from "node:assert/strict";
import { localEndpoint } from "../../src/transport/local_endpoint.ts";
import { homePaths } from "../../src/config/home.ts";
import { pipeNameFor } from "../../src/transport/named_pipe_windows.ts";

Deno.test("localEndpoint() is the home's socket on Unix and its pipe on Windows (C1, D15)", async () => {
  const paths = homePaths("/home/me/.svc");
  const unix = await localEndpoint(paths, "linux");
  assert.deepEqual(unix.endpoint, { transport: "unix", path: "/home/me/.svc/svc.sock" });
  assert.deepEqual(unix.target, { socketPath: "/home/me/.svc/svc.sock" });
  const windows = await localEndpoint(paths, "windows");
  assert.deepEqual(windows.endpoint, { transport: "pipe", name: pipeNameFor("/home/me/.svc") });
  assert.deepEqual(windows.target, { pipe: pipeNameFor("/home/me/.svc") });
  assert.match(windows.address, /^\\\\\.\\pipe\\svc-[0-9a-f]{16}$/);
});
