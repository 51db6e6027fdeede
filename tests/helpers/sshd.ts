/**
 * A private OpenSSH server on 127.0.0.1 for the context tests (D32): its own
 * host key and one authorized client key, in a temporary directory, run in
 * the foreground (`-D -e`) on a free port. The client side is an `ssh`
 * wrapper put first on PATH that adds `-F` with this server's client config,
 * so svc runs "the ssh on PATH" as it does for a user, and the user's own
 * ~/.ssh is never read or written.
 */
import { freePort } from "./daemon.ts";
import { MAIN } from "./process.ts";

/** Where sshd is on Debian (openssh-server). */
const SSHD = "/usr/sbin/sshd";

/** Host aliases of the client config, one per way a login can go. */
export const HOSTS = {
  /** Known host key, authorized key: logs in. */
  ok: "svc-test",
  /** The host key is not in the client's known_hosts. */
  unknownKey: "svc-test-unknown-key",
  /** A key the server does not authorize. */
  refusedKey: "svc-test-refused-key",
  /** A loopback port nothing listens on. */
  unreachable: "svc-test-unreachable",
} as const;

/** A running private sshd and the client side that reaches it. */
export interface TestSshd {
  /** Prepend to PATH: holds the `ssh` wrapper. */
  readonly binDir: string;
  /** A `svc` for the remote side: this checkout's main.ts under this deno. */
  readonly svcPath: string;
  /** The environment a `svc` client command runs with (PATH, XDG_CONFIG_HOME). */
  readonly env: Record<string, string>;
  /** How many times the `ssh` wrapper has been run so far. */
  sshCalls(): Promise<number>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** Whether sshd is installed; the context tests are skipped, loudly, without it. */
export function sshdInstalled(): boolean {
  try {
    return Deno.statSync(SSHD).isFile;
  } catch {
    return false;
  }
}

/** Starts a private sshd and waits until it accepts connections. */
export async function startSshd(): Promise<TestSshd> {
  const dir = await Deno.makeTempDir({ prefix: "svc-sshd-" });
  await Deno.chmod(dir, 0o700);
  const binDir = `${dir}/bin`;
  await Deno.mkdir(binDir);
  await keygen(`${dir}/host_key`);
  await keygen(`${dir}/client_key`);
  await keygen(`${dir}/other_key`);
  await Deno.copyFile(`${dir}/client_key.pub`, `${dir}/authorized_keys`);
  const port = freePort();
  const hostKey = (await Deno.readTextFile(`${dir}/host_key.pub`)).trim();
  await Deno.writeTextFile(`${dir}/known_hosts`, `[127.0.0.1]:${port} ${hostKey}\n`);
  await Deno.writeTextFile(`${dir}/empty_known_hosts`, "");
  await Deno.writeTextFile(`${dir}/sshd_config`, sshdConfig(dir, port));
  await Deno.writeTextFile(`${dir}/ssh_config`, clientConfig(dir, port, freePort()));
  const svcPath = `${binDir}/svc`;
  await script(svcPath, remoteSvc());
  const calls = `${dir}/ssh_calls`;
  await script(
    `${binDir}/ssh`,
    `#!/bin/sh\necho >> '${calls}'\nexec /usr/bin/ssh -F '${dir}/ssh_config' "$@"\n`,
  );
  // sshd running as root needs its privilege separation directory (the init script makes it).
  await Deno.mkdir("/run/sshd", { recursive: true, mode: 0o755 });
  const child = new Deno.Command(SSHD, {
    args: ["-f", `${dir}/sshd_config`, "-D", "-e"],
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const log = collect(child.stderr);
  await waitForPort(port, child);
  const env = {
    PATH: `${binDir}:${Deno.env.get("PATH") ?? "/usr/bin:/bin"}`,
    XDG_CONFIG_HOME: `${dir}/config`,
  };
  return {
    binDir,
    svcPath,
    env,
    sshCalls: async () => {
      try {
        return (await Deno.readTextFile(calls)).length;
      } catch {
        return 0;
      }
    },
    async [Symbol.asyncDispose]() {
      try {
        child.kill("SIGTERM");
      } catch { /* already exited */ }
      await child.status;
      await log;
      await Deno.remove(dir, { recursive: true });
    },
  };
}

function sshdConfig(dir: string, port: number): string {
  return [
    `ListenAddress 127.0.0.1`,
    `Port ${port}`,
    `HostKey ${dir}/host_key`,
    `AuthorizedKeysFile ${dir}/authorized_keys`,
    `PidFile none`,
    `PermitRootLogin prohibit-password`,
    `StrictModes no`,
    `PasswordAuthentication no`,
    `KbdInteractiveAuthentication no`,
    `UsePAM no`,
    `PrintMotd no`,
    `LogLevel ERROR`,
    "",
  ].join("\n");
}

/** One alias per outcome; none reads the user's files (known_hosts, keys). */
function clientConfig(dir: string, port: number, closedPort: number): string {
  const host = (alias: string, hostPort: number, key: string, knownHosts: string) => [
    `Host ${alias}`,
    `  HostName 127.0.0.1`,
    `  Port ${hostPort}`,
    `  User root`,
    `  IdentityFile ${dir}/${key}`,
    `  UserKnownHostsFile ${dir}/${knownHosts}`,
    `  IdentitiesOnly yes`,
    `  IdentityAgent none`,
    `  GlobalKnownHostsFile /dev/null`,
    `  LogLevel ERROR`,
  ];
  return [
    ...host(HOSTS.ok, port, "client_key", "known_hosts"),
    ...host(HOSTS.unknownKey, port, "client_key", "empty_known_hosts"),
    // svc must refuse an unknown key even where the user's config would accept it.
    `  StrictHostKeyChecking accept-new`,
    ...host(HOSTS.refusedKey, port, "other_key", "known_hosts"),
    ...host(HOSTS.unreachable, closedPort, "client_key", "known_hosts"),
    "",
  ].join("\n");
}

/** The remote `svc`: sshd starts sessions with a clean environment, so everything is spelled out. */
function remoteSvc(): string {
  const denoDir = Deno.env.get("DENO_DIR");
  return [
    "#!/bin/sh",
    ...(denoDir === undefined ? [] : [`export DENO_DIR='${denoDir}'`]),
    "export NO_COLOR=1",
    `exec '${Deno.execPath()}' run --allow-all '${MAIN}' "$@"`,
    "",
  ].join("\n");
}

async function keygen(path: string): Promise<void> {
  const output = await new Deno.Command("ssh-keygen", {
    args: ["-q", "-t", "ed25519", "-N", "", "-C", "svc-test", "-f", path],
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!output.success) throw new Error(`ssh-keygen: ${new TextDecoder().decode(output.stderr)}`);
}

async function script(path: string, text: string): Promise<void> {
  await Deno.writeTextFile(path, text);
  await Deno.chmod(path, 0o755);
}

async function collect(stream: ReadableStream<Uint8Array>): Promise<string> {
  let text = "";
  for await (const chunk of stream.pipeThrough(new TextDecoderStream())) text += chunk;
  return text;
}

async function waitForPort(port: number, child: Deno.ChildProcess): Promise<void> {
  let exited = false;
  child.status.then(() => exited = true);
  const deadline = Date.now() + 10_000;
  while (!exited && Date.now() < deadline) {
    try {
      (await Deno.connect({ hostname: "127.0.0.1", port })).close();
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  throw new Error(`sshd did not listen on 127.0.0.1:${port}`);
}
