/** `svc dial-stdio` (D32): the remote end of a context, run as a real process. */
import assert from "node:assert/strict";
import { MAIN, runSvc } from "../helpers/process.ts";
import { startCliDaemon, textReader } from "./cli_daemon.ts";

Deno.test("svc dial-stdio carries HTTP/1.1 both ways and exits when stdin closes", async () => {
  await using d = await startCliDaemon();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", MAIN, "dial-stdio", "--home", d.home],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  const output = textReader(child.stdout);
  const request = (path: string) =>
    writer.write(
      new TextEncoder().encode(`GET /api/v1${path} HTTP/1.1\r\nHost: localhost\r\n\r\n`),
    );
  await request("/health");
  assert.match(await output.until('"apiVersion":"svc.daemon.v1"'), /^HTTP\/1\.1 200 OK\r\n/);
  await request("/api-version");
  await output.until('{"version":"v1"}');
  await writer.close();
  const status = await child.status;
  assert.equal(status.code, 0);
  await output.rest();
  await child.stderr.cancel();
});

Deno.test("svc dial-stdio exits 3 and says so when no daemon answers", async () => {
  const home = await Deno.makeTempDir();
  try {
    const result = await runSvc(["dial-stdio", "--home", home]);
    assert.equal(result.code, 3);
    assert.match(result.stderr, /^svc is not running: no daemon answers on ".*svc\.sock"/);
    assert.equal(result.stdout, "");
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
