import assert from "node:assert/strict";
import { parseContextEndpoint, type SshEndpoint } from "../../src/contexts/endpoint.ts";
import { remoteCommand, sshArguments } from "../../src/contexts/ssh_dialer.ts";

const ssh = (url: string) => parseContextEndpoint(url) as SshEndpoint;

Deno.test("sshArguments() never prompts, never adds a host key, and ends options before the host", () => {
  const args = sshArguments(ssh("ssh://me@box:2222?home=%2Fsrv%2Fsvc"));
  const options = args.flatMap((arg, i) => args[i - 1] === "-o" ? [arg] : []);
  assert.ok(options.includes("BatchMode=yes"));
  assert.ok(options.includes("StrictHostKeyChecking=yes"));
  assert.ok(options.includes("ClearAllForwardings=yes"));
  assert.ok(options.some((option) => /^ConnectTimeout=\d+$/.test(option)));
  assert.deepEqual(args.slice(args.indexOf("--")), ["--", "box", "svc dial-stdio --home /srv/svc"]);
  assert.deepEqual(args.slice(args.indexOf("-p"), args.indexOf("-p") + 4), [
    "-p",
    "2222",
    "-l",
    "me",
  ]);
});

Deno.test("remoteCommand() quotes each word for the remote shell, leaving ~/ to expand", async (t) => {
  const cases: Array<[string, string]> = [
    ["ssh://box", "svc dial-stdio"],
    ["ssh://box?home=%2Fsrv%2Fsvc%20home", "svc dial-stdio --home '/srv/svc home'"],
    ["ssh://box?home=~%2F.svc-dev", "svc dial-stdio --home ~/.svc-dev"],
    ["ssh://box?home=~%2Fit's", "svc dial-stdio --home ~/'it'\\''s'"],
    ["ssh://box?svc=%2Fopt%2Fsvc%20x%2Fsvc%3Brm", "'/opt/svc x/svc;rm' dial-stdio"],
    ["ssh://box?home=%24(reboot)", "svc dial-stdio --home '$(reboot)'"],
  ];
  for (const [url, expected] of cases) {
    await t.step(url, () => assert.equal(remoteCommand(ssh(url)), expected));
  }
});
