/**
 * The transport of an ssh context (D32): every connection is one
 * `ssh -o BatchMode=yes … host svc dial-stdio [--home DIR]`, whose stdin and
 * stdout carry one HTTP/1.1 connection to the remote owner's socket. ssh is
 * the `ssh` on PATH, so the user's ssh config (keys, ProxyJump,
 * ControlMaster) applies; svc only adds the options below.
 */
import { ClientError } from "../client/client_error.ts";
import type { DialedStream, StreamDialer } from "../client/client.ts";
import type { SshEndpoint } from "./endpoint.ts";
import { sshFailureCause } from "./ssh_failure.ts";

/** ssh gives up on a host that does not answer (connect and banner) after this. */
const CONNECT_TIMEOUT_SECONDS = 10;
/** A connection whose host stops answering is dropped after 2 unanswered probes 5 s apart. */
const SERVER_ALIVE_SECONDS = 5;
/** ssh's stderr kept for the diagnosis (its last line says why). */
const MAX_STDERR_BYTES = 16 * 1024;

/**
 * ssh's arguments for `endpoint`: no prompt ever (BatchMode), a host key
 * that must already be known (svc never adds one, even where the user's
 * config says accept-new), no forwarding (a LocalForward of the user's config
 * would bind once per connection), no tty and no escape character on the
 * byte pipe.
 */
export function sshArguments(endpoint: SshEndpoint): string[] {
  return [
    "-o",
    "BatchMode=yes",
    "-o",
    "StrictHostKeyChecking=yes",
    "-o",
    `ConnectTimeout=${CONNECT_TIMEOUT_SECONDS}`,
    "-o",
    `ServerAliveInterval=${SERVER_ALIVE_SECONDS}`,
    "-o",
    "ServerAliveCountMax=2",
    "-o",
    "ClearAllForwardings=yes",
    "-o",
    "ForwardAgent=no",
    "-o",
    "ForwardX11=no",
    "-T",
    "-e",
    "none",
    ...(endpoint.port === null ? [] : ["-p", String(endpoint.port)]),
    ...(endpoint.user === null ? [] : ["-l", endpoint.user]),
    "--",
    endpoint.host,
    remoteCommand(endpoint),
  ];
}

/**
 * The command line the remote shell runs: each word single-quoted (ssh
 * hands the remote shell one string), a leading `~/` of the home left
 * unquoted so the remote shell expands it.
 */
export function remoteCommand(endpoint: SshEndpoint): string {
  const home = endpoint.home === null ? [] : [
    "--home",
    endpoint.home.startsWith("~/") ? `~/${quote(endpoint.home.slice(2))}` : quote(endpoint.home),
  ];
  return [quote(endpoint.svc), "dial-stdio", ...home].join(" ");
}

function quote(word: string): string {
  return /^[A-Za-z0-9_./=:@-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** A dialer that reaches context `name` through ssh; `label` names it in messages. */
export function sshDialer(name: string, endpoint: SshEndpoint): StreamDialer {
  const prefix = `Cannot reach context "${name}"`;
  return {
    label: `context "${name}"`,
    dial: () => dialSsh(endpoint, prefix),
  };
}

/**
 * One ssh process as a byte stream. Its stdout ends the readable: normally
 * when ssh exits 0 (the remote daemon closed the connection), else with a
 * `ClientError("unreachable")` that says why, read from the exit code and
 * stderr. Cancelling the readable or aborting the writable ends ssh.
 */
function dialSsh(endpoint: SshEndpoint, prefix: string): DialedStream {
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command("ssh", {
      args: sshArguments(endpoint),
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
  } catch (error) {
    const cause = error instanceof Deno.errors.NotFound
      ? `no "ssh" on PATH`
      : `ssh did not start (${(error as Error).message})`;
    return failedStream(new ClientError("unreachable", `${prefix}: ${cause}`));
  }
  const stderr = collectStderr(child.stderr);
  const stop = () => {
    try {
      child.kill("SIGTERM");
    } catch { /* already exited */ }
  };
  const output = child.stdout.getReader();
  const readable = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await output.read();
      if (!done) {
        controller.enqueue(value);
        return;
      }
      const status = await child.status;
      if (status.success || status.signal !== null) {
        controller.close();
        return;
      }
      const cause = sshFailureCause(endpoint, { code: status.code, stderr: await stderr });
      controller.error(new ClientError("unreachable", `${prefix}: ${cause}`));
    },
    cancel: stop,
  });
  const input = child.stdin.getWriter();
  const writable = new WritableStream<Uint8Array>({
    // A write into an ssh that has exited fails: the readable reports why.
    write: (chunk) => input.write(chunk).catch(() => {}),
    close: () => input.close().catch(() => {}),
    abort: stop,
  });
  return { readable, writable };
}

async function collectStderr(stream: ReadableStream<Uint8Array>): Promise<string> {
  let text = "";
  const decoder = new TextDecoder();
  for await (const chunk of stream) {
    if (text.length < MAX_STDERR_BYTES) text += decoder.decode(chunk, { stream: true });
  }
  return text.slice(-MAX_STDERR_BYTES);
}

function failedStream(error: ClientError): DialedStream {
  return {
    readable: new ReadableStream({ start: (controller) => controller.error(error) }),
    writable: new WritableStream(),
  };
}
