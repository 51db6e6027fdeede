import assert from "node:assert/strict";
import { parseContextEndpoint, type SshEndpoint } from "../../src/contexts/endpoint.ts";
import { sshFailureCause } from "../../src/contexts/ssh_failure.ts";

const BOX = parseContextEndpoint("ssh://me@box:2222") as SshEndpoint;

Deno.test("sshFailureCause() names each cause from ssh's exit code and stderr", async (t) => {
  const cases: Array<[string, number, string, RegExp]> = [
    [
      "unknown host key",
      255,
      "No ED25519 host key is known for [box]:2222 and you have requested strict checking.\r\n" +
      "Host key verification failed.\r\n",
      /host key of "box:2222" is not in your known_hosts.*svc never adds one: run "ssh box"/,
    ],
    [
      "changed host key",
      255,
      "@ WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED! @\nHost key verification failed.\n",
      /is not in your known_hosts \(or has changed\)/,
    ],
    [
      "refused key",
      255,
      "me@box: Permission denied (publickey).\n",
      /ssh refused the login to "box:2222" \(me@box: Permission denied \(publickey\)\.\)/,
    ],
    [
      "connection refused",
      255,
      "ssh: connect to host box port 2222: Connection refused\n",
      /host "box:2222" is unreachable \(ssh: connect to host box port 2222: Connection refused\)/,
    ],
    [
      "unknown name",
      255,
      "ssh: Could not resolve hostname box: Name or service not known\n",
      /is unreachable \(ssh: Could not resolve hostname box/,
    ],
    [
      "timeout",
      255,
      "ssh: connect to host box port 2222: Connection timed out\n",
      /is unreachable/,
    ],
    ["other ssh failure", 255, "kex_exchange_identification: odd\n", /ssh to "box:2222" failed/],
    [
      "no svc on the remote",
      127,
      "bash: line 1: svc: command not found\n",
      /no svc on "box:2222": the remote shell cannot run "svc" \(bash: line 1: svc: command not found\); .*\?svc=/,
    ],
    [
      "no daemon on the remote",
      3,
      'svc is not running: no daemon answers on "/home/me/.svc/svc.sock" (refused)\n',
      /no daemon answers on "box:2222": svc is not running: .*start it there with "svc serve"/,
    ],
    [
      "an svc older than contexts",
      2,
      'svc: unknown command "dial-stdio"\nRun "svc help" for the list of commands\n',
      /has no dial-stdio: it is older than contexts/,
    ],
    ["anything else", 1, "boom\n", /"svc dial-stdio" on "box:2222" exited 1 \(boom\)/],
  ];
  for (const [name, code, stderr, expected] of cases) {
    await t.step(name, () => assert.match(sshFailureCause(BOX, { code, stderr }), expected));
  }
});
