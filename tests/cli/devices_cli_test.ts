/** `svc devices pair|list|revoke` in-process against a daemon with its TCP listener (D30). */
import assert from "node:assert/strict";
import { durationSeconds } from "../../src/cli/devices.ts";
import { runCli } from "../../src/cli/main.ts";
import { EXIT, UsageError } from "../../src/cli/command.ts";
import { FakeClock } from "../fakes/clock.ts";
import { freePort, startTestDaemon } from "../helpers/daemon.ts";
import { captureIo } from "../helpers/capture_io.ts";
import { httpRequest, rawHttp } from "../helpers/http.ts";

async function svc(home: string, args: string[]) {
  const captured = captureIo({ SVC_HOME: home, NO_COLOR: "1" });
  const code = await runCli(args, captured.io);
  return { code, stdout: captured.stdout(), stderr: captured.stderr() };
}

Deno.test("svc devices pair --json, list, revoke through the socket; the code expires after 5 minutes", async () => {
  const port = freePort();
  const clock = new FakeClock(Date.parse("2026-03-01T12:00:00Z"));
  await using d = await startTestDaemon({
    tcp: { hostname: "127.0.0.1", port },
    clock,
    scheduler: false,
  });
  const origin = `http://127.0.0.1:${port}`;
  const exchange = (code: string) =>
    rawHttp(
      { hostname: "127.0.0.1", port },
      httpRequest("POST", "/api/v1/devices/pair", {
        host: `127.0.0.1:${port}`,
        headers: { origin, "content-type": "application/json" },
        body: JSON.stringify({ code }),
      }),
    );

  const paired = await svc(d.home, [
    "devices",
    "pair",
    "--name",
    "phone",
    "--scope",
    "approve",
    "--json",
  ]);
  assert.equal(paired.code, EXIT.ok, paired.stderr);
  const printed = JSON.parse(paired.stdout);
  assert.deepEqual(Object.keys(printed).sort(), ["code", "expiresAt", "url", "urls"]);
  assert.equal(printed.url, `${origin}/pair#${printed.code}`);
  assert.deepEqual(printed.urls, [printed.url]);
  assert.equal(printed.expiresAt, "2026-03-01T12:05:00.000Z");
  assert.equal((await exchange(printed.code)).status, 200);

  const late = JSON.parse((await svc(d.home, ["devices", "pair", "--json"])).stdout);
  await clock.advance(5 * 60_000);
  const expired = await exchange(late.code);
  assert.equal(expired.status, 401);
  assert.equal((expired.body as { error: { code: string } }).error.code, "pairing_refused");

  const human = await svc(d.home, ["devices", "pair", "--scope", "read"]);
  assert.equal(human.code, EXIT.ok, human.stderr);
  assert.match(human.stdout, /▄|█/, "a QR code is drawn");
  assert.match(human.stdout, new RegExp(`${origin}/pair#[A-Za-z0-9_-]{22}`));

  const listed = await svc(d.home, ["devices", "list", "--utc"]);
  assert.equal(listed.code, EXIT.ok, listed.stderr);
  const [header, row] = listed.stdout.trim().split("\n");
  assert.match(header, /^ID +NAME +SCOPES +CREATED +LAST SEEN +LAST PEER +EXPIRES$/);
  assert.match(
    row,
    /^dev_\S+ +phone +read,approve +2026-03-01 12:00 UTC +2026-03-01 12:00 UTC +127\.0\.0\.1 +2026-03-31 12:00 UTC$/,
  );
  const id = row.split(/ +/)[0];

  const revoked = await svc(d.home, ["devices", "revoke", id]);
  assert.equal(revoked.stdout.trim(), `Revoked ${id}`);
  assert.equal((await svc(d.home, ["devices", "revoke", id])).code, EXIT.refused);
  assert.equal((await svc(d.home, ["devices", "list"])).stdout.trim(), "No paired devices");
  assert.equal(
    (await svc(d.home, ["devices", "revoke", "--all"])).stdout.trim(),
    "No device to revoke",
  );
  assert.equal((await svc(d.home, ["devices", "revoke"])).code, EXIT.usage);
});

Deno.test("svc devices pair without a TCP listener says how to get one", async () => {
  await using d = await startTestDaemon();
  const result = await svc(d.home, ["devices", "pair"]);
  assert.equal(result.code, EXIT.refused);
  assert.match(result.stderr, /^web_unavailable: Pairing needs the TCP listener/);
});

Deno.test("durationSeconds() reads m, h and d up to 90 days", () => {
  assert.equal(durationSeconds("30d"), 30 * 86_400);
  assert.equal(durationSeconds("12h"), 12 * 3600);
  assert.equal(durationSeconds("90m"), 5400);
  for (const bad of ["91d", "0m", "30", "1w", "-1d"]) {
    assert.throws(() => durationSeconds(bad), UsageError, bad);
  }
});
