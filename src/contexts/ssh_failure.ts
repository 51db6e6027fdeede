/**
 * Why `ssh … svc dial-stdio` ended before the daemon answered, in the user's
 * words (D32): from ssh's exit code and what it (or the remote shell, or the
 * remote svc) wrote to stderr. Pure, so every cause is table-tested.
 */
import type { SshEndpoint } from "./endpoint.ts";

/** ssh's own failures (connection, authentication, host key) exit with this code. */
const SSH_FAILED = 255;
/** A shell's "command not found". */
const COMMAND_NOT_FOUND = 127;
/** `svc dial-stdio` found no daemon on the remote socket (D1's "no daemon reachable"). */
const NO_DAEMON = 3;

const HOST_KEY = [
  /Host key verification failed/i,
  /No \S+ host key is known/i,
  /REMOTE HOST IDENTIFICATION HAS CHANGED/i,
];
const REFUSED_LOGIN = [/Permission denied/i, /Too many authentication failures/i];
const UNREACHABLE = [
  /Connection refused/i,
  /No route to host/i,
  /Could not resolve hostname/i,
  /Name or service not known/i,
  /Network is unreachable/i,
  /timed out/i,
  /Connection closed by/i,
  /Connection reset/i,
];

/** The cause of an early exit, as the text after `Cannot reach context "NAME": `. */
export function sshFailureCause(
  endpoint: SshEndpoint,
  exit: { code: number; stderr: string },
): string {
  const said = lastLine(exit.stderr);
  const host = endpoint.port === null ? endpoint.host : `${endpoint.host}:${endpoint.port}`;
  if (exit.code === SSH_FAILED) {
    if (HOST_KEY.some((pattern) => pattern.test(exit.stderr))) {
      return `the host key of "${host}" is not in your known_hosts (or has changed); svc never ` +
        `adds one: run "ssh ${endpoint.host}" once and check the fingerprint it shows`;
    }
    if (REFUSED_LOGIN.some((pattern) => pattern.test(exit.stderr))) {
      return `ssh refused the login to "${host}" (${said}): check the key ssh offers ` +
        `(ssh-agent, IdentityFile); svc runs ssh with BatchMode, so it never asks for a password`;
    }
    if (UNREACHABLE.some((pattern) => pattern.test(exit.stderr))) {
      return `host "${host}" is unreachable (${said})`;
    }
    return `ssh to "${host}" failed (${said || "exit 255"})`;
  }
  if (exit.code === COMMAND_NOT_FOUND) {
    return `no svc on "${host}": the remote shell cannot run "${endpoint.svc}" (${
      said || "exit 127"
    }); install svc on its PATH or name it with ?svc=/path/to/svc in the context's URL`;
  }
  if (exit.code === NO_DAEMON) {
    return `no daemon answers on "${host}": ${said || "svc dial-stdio exited 3"}; ` +
      `start it there with "svc serve"`;
  }
  if (/unknown command "dial-stdio"/.test(exit.stderr)) {
    return `the svc on "${host}" has no dial-stdio: it is older than contexts, update it`;
  }
  return `"${endpoint.svc} dial-stdio" on "${host}" exited ${exit.code}${said ? ` (${said})` : ""}`;
}

/** ssh's last non-empty line: the one that says what went wrong. */
function lastLine(text: string): string {
  const lines = text.split(/\r?\n/).map((line) => line.trim()).filter((line) => line !== "");
  return lines.at(-1) ?? "";
}
